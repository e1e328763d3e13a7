"""MQSC for qmlite's fault rules: ``SET``, ``DISPLAY`` and ``DELETE QMLITE FAULT(name) ...`` (docs/faults.md).

qmlite's own commands (no PCF): the text is checked here, a keyword-by-keyword syntax check as
runmqsc makes (AMQ8405I with the text up to the offending keyword), and the rule itself is checked
and kept by the one domain object (registry/testing/faults.py), which REST and the pytest plugin call
too.  A rule that parses but makes no sense (REASON(1) is no reason code, ACTION(BREAK) REASON(2053))
is refused with the domain's MQRCCF reason and a QML message naming the keyword.
"""

from __future__ import annotations

import dataclasses
import re

from qmlite.pcf import constants as C

from qmlite.registry import qmlmessages as QML
from qmlite.registry.mqsc.display import lines
from qmlite.registry.mqsc.lexer import MqscSyntaxError, Token
from qmlite.registry.testing import faults as FR

_INT = re.compile(r"[0-9]{1,10}")
_PROB = re.compile(r"(0?\.[0-9]{1,9}|1(\.0{0,9})?|0)")
# keyword -> (define()'s argument, kind)
_KEYWORDS = {"VERB": ("verb", "list"), "ACTION": ("action", "word"), "REASON": ("reason", "reason"),
             "DELAY": ("delay", "int"), "OBJECT": ("object", "text"), "USER": ("user", "text"),
             "CHANNEL": ("channel", "text"), "APPL": ("appl", "text"), "NTH": ("nth", "int"),
             "COUNT": ("count", "int"), "PROB": ("probability", "prob"), "SEED": ("seed", "int")}
VERBS = ("SET", "DISPLAY", "DELETE")


@dataclasses.dataclass(frozen=True)
class FaultCommand:
    verb: str
    name: str
    args: dict


def parse(text: str, verb: str, tokens: list[Token]) -> FaultCommand:
    """The command's ``tokens`` (verb, QMLITE, FAULT(name), ...); MqscSyntaxError for anything the syntax
    does not allow."""
    tokens = tokens[2:]
    first = tokens[0]
    if verb not in VERBS or first.items is None or len(first.items) != 1:
        raise MqscSyntaxError(text[:first.end])
    name = first.items[0].text
    if not first.items[0].quoted:
        name = name.upper()
    args: dict = {}
    for token in tokens[1:]:
        spec = _KEYWORDS.get(token.word) if verb == "SET" else None
        if spec is None or token.items is None or token.word in {k for k in args if k.isupper()}:
            raise MqscSyntaxError(text[:token.end if token.items is not None else token.word_end])
        arg, kind = spec
        items = token.items
        if kind != "list" and len(items) != 1:
            raise MqscSyntaxError(text[:token.end])
        value = items[0].text if items else ""
        if kind == "list":
            if not items or any(not i.text for i in items):
                raise MqscSyntaxError(text[:token.end])
            args[arg] = [i.text for i in items]
        elif kind == "int":
            if not _INT.fullmatch(value):
                raise MqscSyntaxError(text[:token.end])
            args[arg] = int(value)
        elif kind == "prob":
            if not _PROB.fullmatch(value):
                raise MqscSyntaxError(text[:token.end])
            args[arg] = float(value)
        elif kind == "reason":  # REASON(2053) or REASON(MQRC_Q_FULL)
            if _INT.fullmatch(value):
                args[arg] = int(value)
            else:
                try:
                    code = C.value_of(value.upper()) if value.upper().startswith("MQRC") else None
                except KeyError:
                    code = None
                if not isinstance(code, int):
                    raise MqscSyntaxError(text[:token.end])
                args[arg] = code
        elif kind == "word":
            args[arg] = value.upper()
        else:
            args[arg] = value if items[0].quoted else value.upper()
        args[token.word] = True  # seen (a keyword given twice is a syntax error)
    return FaultCommand(verb, name, {k: v for k, v in args.items() if not k.isupper()})


def run(qm, command: FaultCommand, requester) -> tuple[int, int, list[str], list[dict[str, str]]]:
    """Run a parsed command on the queue manager's rules: (CompCode, Reason, runmqsc lines, DISPLAY objects)."""
    faults: FR.Faults = qm.faults
    try:
        if command.verb == "SET":
            faults.define(command.name, **command.args)
            return C.MQCC_OK, 0, [QML.FAULT_SET()], []
        if command.verb == "DELETE":
            faults.delete(command.name)
            return C.MQCC_OK, 0, [QML.FAULT_DELETED()], []
        rules = faults.rules(command.name)
    except FR.FaultRuleError as err:
        return C.MQCC_FAILED, err.reason, [QML.FAULT_NOT_VALID(keyword=err.keyword, value=_given(command, err.keyword),
                                                                why=err.why)], []
    except FR.FaultNotFound as err:
        return C.MQCC_FAILED, err.reason, [QML.FAULT_NOT_FOUND(name=err.name)], []
    if not rules and "*" not in command.name:
        return C.MQCC_FAILED, C.MQRC_UNKNOWN_OBJECT_NAME, [QML.FAULT_NOT_FOUND(name=command.name)], []
    text: list[str] = []
    objects = []
    for rule in rules:
        shown = display_values(rule)
        objects.append(shown)
        text.append(QML.FAULT_SHOWN())
        text += lines([f"{k}({v or ' '})" for k, v in shown.items()])
    return C.MQCC_OK, 0, text, objects


def display_values(rule: FR.Rule) -> dict[str, str]:
    """A rule's attributes as runmqsc prints them, keyword -> text."""
    out = {}
    for keyword, value in rule.attributes().items():
        if isinstance(value, list):
            value = ",".join(value)
        elif isinstance(value, float):
            value = f"{value:g}"
        out[keyword] = str(value)
    return out


def _given(command: FaultCommand, keyword: str) -> str:
    if keyword == "FAULT":
        return command.name
    arg = _KEYWORDS.get(keyword, (keyword.lower(),))[0]
    value = command.args.get(arg, "")
    return ",".join(value) if isinstance(value, list) else str(value)
