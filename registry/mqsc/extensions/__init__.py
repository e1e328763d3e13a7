"""qmlite's own MQSC commands (no IBM queue manager has them; docs/mqsc.md), one module each, in ONE table.

Each row of :data:`TABLE` says, by words alone, which commands are an extension's: the noun (``QMLITE``
or ``QMLTRACE``), the verbs it takes, the word after the noun that selects it, and whether the noun may
carry a value.  Its module (``clockcommands.py`` ...) holds the two halves of the command:

    parse(text, verb, tokens) -> command     MqscSyntaxError (runmqsc's AMQ8405I) for anything else
    run(qm, command, requester) -> (CompCode, Reason, runmqsc lines, DISPLAY objects)

``translate.py`` asks :func:`claim` before IBM's command table; whatever runs a translated command
(``run_with_engine``, hence PCF Escape, REST's ``mqsc`` and the pytest plugin) calls :func:`run`, the one
place that checks the administrator and the queue manager.  A module is imported at its first command,
so importing MQSC loads none of the domains these drive.  Rows are tried in order: the snapshot commands
come last among QMLITE's, as they take any other keyword after ``SET/RESET/DISPLAY/DELETE QMLITE`` as a
malformed snapshot command, and after the bare ``RESET QMLITE``.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import TYPE_CHECKING

from qmlite.pcf import constants as C

if TYPE_CHECKING:
    from qmlite.registry.admin.engine import Requester
    from qmlite.registry.mqsc.lexer import Token

Outcome = tuple[int, int, list[str], list[dict]]  # CompCode, Reason, runmqsc lines, DISPLAY objects


@dataclasses.dataclass(frozen=True)
class Extension:
    module: str  # the module of this package holding parse() and run()
    messages: str  # its range of QML numbers: a key of registry/qmlmessages.py RANGES
    noun: str
    verbs: frozenset[str] | None = None  # None: any verb (the module's parse refuses the others)
    subjects: frozenset[str] | None = None  # the word after the noun that selects it; None any, empty none
    bare_noun: bool = False  # the noun must carry no value for the row to claim the command
    guarded: bool = True  # only an administrator, and only with a queue manager (else the module judges)

    def claims(self, verb: str, noun: str, tokens: list[Token]) -> bool:
        if noun != self.noun or (self.verbs is not None and verb not in self.verbs):
            return False
        if self.bare_noun and tokens[1].items is not None:
            return False
        if self.subjects is None:
            return True
        if not self.subjects:
            return len(tokens) == 2
        return len(tokens) > 2 and tokens[2].word in self.subjects

    def code(self):
        return importlib.import_module(f"{__name__}.{self.module}")


TABLE: tuple[Extension, ...] = (
    Extension("clockcommands", "clock", "QMLITE", frozenset({"SET", "DISPLAY"}), frozenset({"CLOCK"})),
    Extension("hostingcommands", "hosting", "QMLITE", None, frozenset({"QMGRS", "QMGR"}), bare_noun=True,
              guarded=False),
    Extension("tracecommands", "calltrace", "QMLTRACE"),
    Extension("faultcommands", "faults", "QMLITE", None, frozenset({"FAULT"}), bare_noun=True),
    Extension("resetcommands", "general", "QMLITE", frozenset({"RESET"}), frozenset()),
    Extension("snapshotcommands", "snapshots", "QMLITE", frozenset({"SET", "RESET", "DISPLAY", "DELETE"})),
)
NOUNS = frozenset(row.noun for row in TABLE)  # the MQSC nouns only qmlite has


@dataclasses.dataclass(frozen=True)
class ExtensionCommand:
    """A translated extension command: its row and what its module's ``parse`` made of the text."""

    extension: Extension
    command: object


def claim(text: str, verb: str, noun: str, tokens: list[Token]) -> ExtensionCommand | None:
    """The extension command ``tokens`` is (parsed by its module), or None when it is IBM's."""
    for row in TABLE:
        if row.claims(verb, noun, tokens):
            return ExtensionCommand(row, row.code().parse(text, verb, tokens))
    return None


def run(qm, translated: ExtensionCommand, requester: Requester) -> Outcome:
    row = translated.extension
    if row.guarded:
        from qmlite.registry.mqsc import messages

        if not requester.admin:
            return C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, ["AMQ8135E: Not authorized."], []
        if qm is None:
            return (C.MQCC_FAILED, C.MQRC_FUNCTION_NOT_SUPPORTED,
                    [messages.failure(C.MQRC_FUNCTION_NOT_SUPPORTED, "")], [])
    return row.code().run(qm, translated.command, requester)
