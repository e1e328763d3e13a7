"""``RESET QMLITE``: the queue manager back to its defaults for the next test (docs/mqsc.md), a qmlite
extension command.  The verb and noun alone; the reset itself is registry/storage/reset.py's, which REST's
reset and the pytest plugin's ``reset()`` reach too."""

from __future__ import annotations

from qmlite.pcf import constants as C

from qmlite.registry.mqsc.lexer import MqscSyntaxError, Token


def parse(text: str, verb: str, tokens: list[Token]) -> None:
    """Nothing to parse: ``RESET QMLITE`` with no value and nothing after it (the table's row saw no more
    tokens); a value on the noun is a syntax error up to it."""
    if tokens[1].items is not None:
        raise MqscSyntaxError(text[:tokens[1].end])


def run(qm, command: None, requester) -> tuple[int, int, list[str], list[dict]]:
    from qmlite.registry.storage import reset

    summary = reset.reset(qm)
    return C.MQCC_OK, 0, [summary.message()], []
