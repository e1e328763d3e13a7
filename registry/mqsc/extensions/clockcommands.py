"""MQSC for the test's clock (qmlite extension commands; docs/mqsc.md "Clock", decisions VC5-VC6):

    SET QMLITE CLOCK(ADVANCE) SECONDS(n)                  move a virtual clock n seconds on (0.001 steps)
    SET QMLITE CLOCK(SET) DATE(yyyy-mm-dd) [TIME(hh.mm.ss)]  move it to that GMT time (never back)
    DISPLAY QMLITE CLOCK                                  CLOCK(REAL|VIRTUAL) DATE TIME SECONDS ADVANCED WAITS

Parsed here into a :class:`ClockCommand` and run here (a row of registry/mqsc/extensions/'s table) by
``registry/testing/clock.py``'s ``ClockControl``, the object the REST API and the pytest plugin call too.  A keyword
this grammar does not have, a value of the wrong shape or a missing one is runmqsc's syntax error (AMQ8405I); a
well-formed request the clock refuses (a real clock, a step beyond a year, a time in the past) fails with the clock's
reason.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

from qmlite.registry import qmlmessages as QML
from qmlite.registry.mqsc.lexer import MqscSyntaxError, Token
from qmlite.registry.testing import clock as vclock

_SET_KEYWORDS = {"ADVANCE": ("SECONDS",), "SET": ("DATE", "TIME")}
SHOWN = ("CLOCK", "DATE", "TIME", "SECONDS", "ADVANCED", "WAITS")  # DISPLAY's attributes, in order


@dataclasses.dataclass(frozen=True)
class ClockCommand:
    """A parsed clock command: ``action`` is DISPLAY, ADVANCE or SET, ``values`` its keywords."""

    action: str = "DISPLAY"
    values: dict[str, str] = dataclasses.field(default_factory=dict)


def parse(text: str, verb: str, tokens: list[Token]) -> ClockCommand:
    noun_token, clock_token, rest = tokens[1], tokens[2], tokens[3:]
    if noun_token.items is not None:
        raise MqscSyntaxError(text[:noun_token.end])
    if verb == "DISPLAY":
        if clock_token.items is not None:
            raise MqscSyntaxError(text[:clock_token.end])
        selected = []
        for token in rest:  # DISPLAY QMLITE CLOCK [ALL | attribute ...]
            if token.items is not None or (token.word not in SHOWN and token.word != "ALL"):
                raise MqscSyntaxError(text[:token.end], "unknown keyword")
            selected.append(token.word)
        return ClockCommand("DISPLAY", {w: "" for w in selected if w != "ALL"})
    if clock_token.items is None or len(clock_token.items) != 1:
        raise MqscSyntaxError(text[:clock_token.end], "CLOCK(ADVANCE) or CLOCK(SET)")
    action = clock_token.items[0].text.upper()
    allowed = _SET_KEYWORDS.get(action)
    if allowed is None:
        raise MqscSyntaxError(text[:clock_token.end], "CLOCK(ADVANCE) or CLOCK(SET)")
    values: dict[str, str] = {}
    for token in rest:
        if token.word not in allowed:
            raise MqscSyntaxError(text[:token.word_end], "unknown keyword")
        if token.word in values:
            raise MqscSyntaxError(text[:token.end], "repeated keyword")
        if token.items is None or len(token.items) != 1 or not token.items[0].text.strip():
            raise MqscSyntaxError(text[:token.end], "value missing")
        values[token.word] = token.items[0].text.strip()
    if action == "ADVANCE":
        if "SECONDS" not in values:
            raise MqscSyntaxError(text, "SECONDS(n) missing")
        if not vclock.SECONDS_FORM.match(values["SECONDS"]):  # its range is the clock's to refuse (3229)
            raise MqscSyntaxError(text[:_end(rest, "SECONDS")], "SECONDS(n): a number of seconds")
    else:
        if "DATE" not in values:
            raise MqscSyntaxError(text, "DATE(yyyy-mm-dd) missing")
        try:
            vclock.parse_datetime(values["DATE"], values.get("TIME", "00.00.00"))
        except vclock.ClockError as err:
            raise MqscSyntaxError(text[:_end(rest, err.parameter or "DATE")], str(err)) from None
    return ClockCommand(action, values)


def _end(tokens: list[Token], word: str) -> int:
    return next(t.end for t in tokens if t.word == word)


def run(qm, command: ClockCommand, requester) -> tuple[int, int, list[str], list[dict[str, str]]]:
    """(CompCode, Reason, runmqsc lines, DISPLAY objects) for one clock command."""
    from qmlite.registry.mqsc import display, messages

    control = qm.clock_control
    try:
        if command.action == "ADVANCE":
            state = control.advance(command.values["SECONDS"])
        elif command.action == "SET":
            state = control.set_time(vclock.parse_datetime(command.values["DATE"],
                                                           command.values.get("TIME", "00.00.00")))
        else:
            state = control.status()
    except vclock.ClockError as err:
        return C.MQCC_FAILED, err.reason, [messages.failure(err.reason, ""), QML.CLOCK_REFUSED(why=err.message)], []
    shown = shown_values(state)
    if command.action != "DISPLAY":
        return C.MQCC_OK, 0, [QML.CLOCK_MOVED(date=shown["DATE"], time=shown["TIME"],
                                                 advanced=shown["ADVANCED"])], []
    wanted = [k for k in SHOWN if not command.values or k == "CLOCK" or k in command.values]
    obj = {k: shown[k] for k in wanted}
    return C.MQCC_OK, 0, [QML.CLOCK_SHOWN(),
                          *display.lines([f"{k}({v})" for k, v in obj.items()])], [obj]


def shown_values(state: dict) -> dict[str, str]:
    return {"CLOCK": state["mode"], "DATE": state["date"], "TIME": state["time"], "SECONDS": f"{state['now']:.3f}",
            "ADVANCED": f"{state['advanced']:.3f}", "WAITS": str(state["waits"])}
