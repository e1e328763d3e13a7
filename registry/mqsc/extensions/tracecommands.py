"""qmlite's MQSC commands for the call log (registry/monitoring/activity.py), a qmlite extension:

    DISPLAY QMLTRACE [AFTER(n)] [CONN(hex)] [APPLNAME(name)] [LIMIT(n)]   the calls recorded, one line each
    ALTER QMLTRACE RECORD(ON|OFF)                                           start or stop recording
    CLEAR QMLTRACE                                                          forget the calls recorded

Every malformed keyword or value is runmqsc's syntax error (AMQ8405I) up to the offending token.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

from qmlite.registry import qmlmessages as QML
from qmlite.registry.mqsc.lexer import MqscSyntaxError, Token

_KEYWORDS = {"DISPLAY": {"AFTER": "int", "CONN": "hex", "APPLNAME": "str", "LIMIT": "int"},
             "ALTER": {"RECORD": ("ON", "OFF")},
             "CLEAR": {}}


@dataclasses.dataclass(frozen=True)
class TraceCommand:
    verb: str  # DISPLAY, ALTER or CLEAR
    args: dict  # keyword -> value


def parse(text: str, verb: str, tokens: list[Token]) -> TraceCommand:
    """The command's keywords as {name: value}; MqscSyntaxError for anything else."""
    noun_token, rest = tokens[1], tokens[2:]
    allowed = _KEYWORDS.get(verb)
    if allowed is None or noun_token.items is not None:
        raise MqscSyntaxError(text[:noun_token.end if noun_token.items is not None else noun_token.word_end])
    args: dict = {}
    for token in rest:
        kind = allowed.get(token.word)
        here = text[:token.end]
        if kind is None:
            raise MqscSyntaxError(text[:token.word_end], "unknown keyword")
        if token.items is None or len(token.items) != 1:
            raise MqscSyntaxError(here, "one value expected")
        if token.word in args:
            raise MqscSyntaxError(here, "repeated keyword")
        value = token.items[0].text
        if kind == "int":
            if not value.isdigit():
                raise MqscSyntaxError(here, "a number expected")
            args[token.word] = int(value)
        elif kind == "hex":
            if not value or len(value) > 48 or any(ch not in "0123456789abcdefABCDEF" for ch in value):
                raise MqscSyntaxError(here, "hexadecimal digits expected")
            args[token.word] = value.upper()
        elif isinstance(kind, tuple):
            if value.upper() not in kind:
                raise MqscSyntaxError(here, "ON or OFF expected")
            args[token.word] = value.upper()
        else:
            args[token.word] = value
    if verb == "ALTER" and "RECORD" not in args:
        raise MqscSyntaxError(text, "RECORD(ON|OFF) expected")
    return TraceCommand(verb, args)


def run(qm, command: TraceCommand, requester) -> tuple[int, int, list[str], list[dict]]:
    """Run a parsed command on the queue manager's activity trace: (CompCode, Reason, runmqsc lines, objects)."""
    lines, objects = _run(qm, command.verb, command.args, requester.user)
    return C.MQCC_OK, 0, lines, objects


def _run(qm, verb: str, args: dict, user: str) -> tuple[list[str], list[dict]]:
    tracer = qm.activity
    if verb == "ALTER":
        tracer.record(args["RECORD"] == "ON", user=user, via="ALTER QMLTRACE")
        return [QML.TRACE_RECORDING(state=args["RECORD"])], []
    if verb == "CLEAR":
        gone = tracer.clear()
        return [QML.TRACE_CLEARED(count=gone)], []
    calls = tracer.calls(after=args.get("AFTER", 0), connection=args.get("CONN", ""),
                         appl=args.get("APPLNAME", ""), limit=args.get("LIMIT", 0))
    state = "ON" if tracer.recording else "OFF"
    lines = [QML.TRACE_SHOWN(state=state, count=len(calls), last=tracer.seq)]
    lines += [f"   {call.seq:>6} {call.line()}" for call in calls]
    return lines, [call.to_dict() for call in calls]
