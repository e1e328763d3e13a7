"""One MQSC command into the PCF command that does it (sans-IO: no engine, no queue manager).

Driven by the command table (commands.py) and the keyword table (keywords.py): the ``(name)``
becomes the row's name parameter, each ``KEYWORD(value)`` the PCF parameter its keyword names, a
DISPLAY's bare keywords its attribute selectors, ``ALL`` MQIACF_ALL, ``WHERE(attr op value)`` an
MQCFIF/MQCFSF/MQCFBF filter and ``LIKE(x)`` the Copy command.  Anything the tables do not know is a
syntax error (AMQ8405I) carrying the command text up to the offending token, as runmqsc reports it;
nothing is sent to the engine for it.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.security import vocab as A
from qmlite.registry.mqsc import commands as MC
from qmlite.registry.mqsc import extensions
from qmlite.registry.mqsc.keywords import ENUMLIST, FLAG, HEX, INT, INTLIST, STR, STRLIST, Keyword
from qmlite.registry.mqsc.lexer import MqscSyntaxError, Token, tokenize

OPERATORS = {"LT": C.MQCFOP_LESS, "GT": C.MQCFOP_GREATER, "EQ": C.MQCFOP_EQUAL, "NE": C.MQCFOP_NOT_EQUAL,
             "LE": C.MQCFOP_NOT_GREATER, "GE": C.MQCFOP_NOT_LESS, "LK": C.MQCFOP_LIKE, "NL": C.MQCFOP_NOT_LIKE,
             "CT": C.MQCFOP_CONTAINS, "EX": C.MQCFOP_EXCLUDES, "CTG": C.MQCFOP_CONTAINS_GEN,
             "EXG": C.MQCFOP_EXCLUDES_GEN}


@dataclasses.dataclass
class Translated:
    """A command ready to run: its PCF (None for an extension or END), the row, the name; or qmlite's own
    command (``extension``, run by registry/mqsc/extensions/'s table)."""

    verb: str
    noun: str
    row: MC.Command | None
    name: str = ""
    message: P.PCFMessage | None = None
    selectors: tuple[str, ...] | None = None  # DISPLAY: the keywords asked for (None: ALL or summary)
    qstatus_type: int = C.MQIACF_Q_STATUS  # DISPLAY QSTATUS TYPE(...)
    extension: extensions.ExtensionCommand | None = None  # qmlite's own command (no row, no PCF)


def translate(text: str) -> Translated:
    tokens = tokenize(text)
    if not tokens:
        raise MqscSyntaxError(text)
    first = tokens[0]
    verb = MC.VERBS.get(first.word)
    if verb is None or first.items is not None:
        raise MqscSyntaxError(text[:first.word_end])
    if verb == "END":
        if len(tokens) > 1:
            raise MqscSyntaxError(text[:tokens[1].end])
        return Translated("END", "", None)
    if len(tokens) < 2:
        raise MqscSyntaxError(text)
    noun_token = tokens[1]
    noun = MC.NOUNS.get(noun_token.word)
    if noun is None:
        raise MqscSyntaxError(text[:noun_token.word_end])
    ext = extensions.claim(text, verb, noun, tokens)  # qmlite's own commands, one table (docs/architecture.md)
    if ext is not None:
        return Translated(verb, noun, None, extension=ext)
    row = MC.TABLE.get((verb, noun))
    if row is None:
        raise MqscSyntaxError(text[:noun_token.word_end])
    return _build(text, row, noun_token, tokens[2:])


def _build(text: str, row: MC.Command, noun_token: Token, rest: list[Token]) -> Translated:
    params: list = []
    name = ""
    if noun_token.items is not None:
        if row.name == MC.NAME_NONE and not (row.noun == "SECURITY" and _one(text, noun_token) == "*"):
            raise MqscSyntaxError(text[:noun_token.end])
        name = _one(text, noun_token)
        if row.noun == "SECURITY":
            name = ""  # REFRESH SECURITY(*): every class, as without a name
    elif row.name == MC.NAME_REQUIRED:
        raise MqscSyntaxError(text[:noun_token.end])
    display = row.verb == "DISPLAY"
    selectors: list[str] = []
    seen: set[str] = set()
    all_attrs = False
    like = None
    flt = None
    values: dict[str, tuple[Keyword, object]] = {}
    for token in rest:
        word = token.word
        here = text[:token.end]
        if word in seen:
            raise MqscSyntaxError(here, "repeated keyword")
        if display and word == "ALL" and token.items is None:
            all_attrs = True
            seen.add(word)
            continue
        if display and word == "WHERE" and token.items is not None:
            flt = _filter(here, row, token)
            seen.add(word)
            continue
        if row.verb == "DEFINE" and word == "LIKE" and row.like is not None and token.items is not None:
            like = _one(text, token)
            seen.add(word)
            continue
        kw = command_keyword(row, word)
        if kw is None:
            raise MqscSyntaxError(text[:token.word_end], "unknown keyword")
        for other in (kw.name, kw.off):
            if other and other in seen:
                raise MqscSyntaxError(here, "repeated keyword")
        seen.update(w for w in (kw.name, kw.off, word) if w)
        if display and token.items is None:
            if kw.kind == FLAG and kw in row.extra:  # DISPLAY CHSTATUS SAVED: which status, not an attribute
                values[kw.name] = (kw, kw.on_value if word == kw.name else kw.off_value)
                continue
            if kw.kind == FLAG and word != kw.name:
                raise MqscSyntaxError(here)
            selectors.append(kw.name)
            continue
        if kw.kind == FLAG:
            if token.items is not None:
                raise MqscSyntaxError(here)
            values[kw.name] = (kw, kw.on_value if word == kw.name else kw.off_value)
            continue
        if token.items is None:
            raise MqscSyntaxError(here, "value missing")
        values[word] = (kw, _value(here, kw, token))
    command = row.pcf
    if like is not None:
        command, from_pid, to_pid = row.like  # type: ignore[misc]
        params.append(P.CFST(from_pid, like))
        params.append(P.CFST(to_pid, name))
    elif row.name_pid is not None and (name or row.name == MC.NAME_REQUIRED):
        params.append(_name_param(text, row, noun_token, name))
    for pid, value in row.fixed:
        params.append(P.CFIN(pid, value))
    _hook(row, values, params)
    for kw, value in values.values():
        params.append(_param(kw, value))
    if display and row.attrs_pid is not None:
        # IBM: ALL "is the default if you do not specify a generic name and do not request any
        # specific attributes"; a generic name without attributes shows the summary (name, type).
        generic = name.endswith("*")
        if all_attrs or (not selectors and (row.default_all or row.summary is None or not generic)):
            params.append(P.CFIL(row.attrs_pid, (C.MQIACF_ALL,)))
        else:
            wanted = selectors or list(row.summary or ())
            pids: list[int] = []
            for word in wanted:
                kw = row.otype.keyword(word)
                if kw is not None and kw.pid not in pids:
                    pids.append(kw.pid)
            params.append(P.CFIL(row.attrs_pid, tuple(pids) or (C.MQIACF_ALL,)))
    if flt is not None:
        params.append(flt)
    header = P.CFH(Type=C.MQCFT_COMMAND, StrucLength=36, Version=1, Command=command, MsgSeqNumber=1,
                   Control=C.MQCFC_LAST, ParameterCount=len(params))
    shown = None if all_attrs or not selectors else tuple(selectors)
    out = Translated(row.verb, row.noun, row, name, P.PCFMessage(header, params), selectors=shown)
    if "TYPE" in values and row.noun == "QSTATUS":
        out.qstatus_type = values["TYPE"][1]  # type: ignore[assignment]
    return out


def command_keyword(row: MC.Command, word: str) -> Keyword | None:
    """The keyword ``word`` names in this command: one only it takes (REPLACE, PURGE), else its object
    type's (the REST runCommandJSON translation asks too, for keyword-only flags)."""
    for kw in row.extra:
        if word in (kw.name, kw.off, *kw.aliases):
            return kw
    return row.otype.keyword(word)


def _one(text: str, token: Token) -> str:
    items = token.items or ()
    if len(items) != 1:
        raise MqscSyntaxError(text[:token.end])
    return items[0].text


def _name_param(text: str, row: MC.Command, token: Token, name: str):
    pid = row.name_pid
    assert pid is not None
    if 6001 <= pid <= 8000:  # a byte-string name: DISPLAY CONN(hex), STOP CONN(hex)
        if name == "*":
            return P.CFBS(pid, b"")
        try:
            return P.CFBS(pid, bytes.fromhex(name))
        except ValueError:
            raise MqscSyntaxError(text[:token.end], "not hexadecimal") from None
    if pid < 2001:
        try:
            return P.CFIN(pid, int(name))
        except ValueError:
            raise MqscSyntaxError(text[:token.end]) from None
    return P.CFST(pid, name)


def _value(here: str, kw: Keyword, token: Token) -> object:
    items = token.items or ()
    if kw.kind in (STRLIST, ENUMLIST, INTLIST):
        if kw.kind == STRLIST:
            return tuple(item.text for item in items)
        if kw.kind == INTLIST:
            try:
                return tuple(int(item.text) for item in items)
            except ValueError:
                raise MqscSyntaxError(here, "not a number") from None
        return tuple(_word(here, kw, item.text) for item in items)
    if len(items) > 1:
        raise MqscSyntaxError(here, "one value expected")
    text = items[0].text if items else ""
    if kw.kind == STR:
        return text
    if kw.kind == HEX:
        try:
            return bytes.fromhex(text)
        except ValueError:
            raise MqscSyntaxError(here, "not hexadecimal") from None
    if kw.kind == INT:
        if text in kw.words:
            return kw.words[text]
        try:
            return int(text)
        except ValueError:
            raise MqscSyntaxError(here, "not a number") from None
    return _word(here, kw, text)


def _word(here: str, kw: Keyword, text: str) -> int:
    value = kw.words.get(text)
    if value is None:
        raise MqscSyntaxError(here, "value not allowed")
    return value


def _param(kw: Keyword, value: object):
    if kw.kind == STR:
        return P.CFST(kw.pid, value)  # type: ignore[arg-type]
    if kw.kind == HEX:
        return P.CFBS(kw.pid, value)  # type: ignore[arg-type]
    if kw.kind == STRLIST:
        return P.CFSL(kw.pid, value)  # type: ignore[arg-type]
    if kw.kind in (ENUMLIST, INTLIST):
        return P.CFIL(kw.pid, value)  # type: ignore[arg-type]
    return P.CFIN(kw.pid, value)  # type: ignore[arg-type]


def _filter(here: str, row: MC.Command, token: Token):
    items = token.items or ()
    if len(items) < 3:
        raise MqscSyntaxError(here, "WHERE needs keyword, operator and value")
    kw = row.otype.keyword(items[0].text)
    op = OPERATORS.get(items[1].text)
    if kw is None or op is None or kw.kind == INTLIST or (len(items) > 3 and kw.kind not in (STRLIST, ENUMLIST)):
        raise MqscSyntaxError(here, "bad WHERE")
    raw = items[2].text
    if kw.kind in (STR, STRLIST):
        return P.CFSF(kw.pid, op, raw)
    if kw.kind == HEX:
        try:
            return P.CFBF(kw.pid, op, bytes.fromhex(raw))
        except ValueError:
            raise MqscSyntaxError(here, "not hexadecimal") from None
    if kw.kind == INT:
        value = kw.words.get(raw)
        if value is None:
            try:
                value = int(raw)
            except ValueError:
                raise MqscSyntaxError(here, "not a number") from None
    elif kw.kind == FLAG:
        if raw not in kw.words:
            raise MqscSyntaxError(here, "value not allowed")
        value = kw.words[raw]
    else:
        value = _word(here, kw, raw)
    return P.CFIF(kw.pid, op, value)


def _hook(row: MC.Command, values: dict, params: list) -> None:
    """The few commands whose keywords are not one parameter each (IBM's own mapping)."""
    if row.noun in ("AUTHREC", "ENTAUTH") and row.verb == "DISPLAY":
        for word, entity_type in (("PRINCIPAL", A.MQZAET_PRINCIPAL), ("GROUP", A.MQZAET_GROUP)):
            if word in values:
                params.append(P.CFIN(C.MQIACF_ENTITY_TYPE, entity_type))
        if row.noun == "AUTHREC" and "MATCH" not in values:
            params.append(P.CFIN(C.MQIACF_AUTH_OPTIONS, MC.MATCH["PROFILE"]))
