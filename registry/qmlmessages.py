"""qmlite's own messages, the QMLnnnnX lines its extension commands print: one catalogue, one text per number.

IBM's AMQ numbers are IBM's (registry/mqsc/messages.py); what qmlite adds that no queue manager has
answers with a QML number instead, so no number IBM could later give a meaning is taken (decision MS6).
Every QML line qmlite prints is made here, by calling an entry with its template's fields:

    RESET_DONE(deleted=3, restored=0, cleared=12, kept=1)
    -> "QML0001I: qmlite reset: 3 objects deleted, 0 restored, 12 messages cleared, 1 kept in use."

Each extension owns a range of a hundred numbers (RANGES; docs/mqsc.md "qmlite's messages", decision
MC1), so two extensions can never reuse a number, and tests/registry/test_qmlmessages.py fails on a
number given twice, on an entry outside its extension's range, and on a literal QML number anywhere
else in the source.  Numbers once published keep their meaning: a changed text gets a new number.
The severity letter is IBM's: I information, W warning, E error, S severe.

Here rather than in registry/mqsc/ because the domain's storage (RESET QMLITE, snapshots) and the pytest
plugin use it too, and registry/mqsc/'s package imports the whole PCF engine.
"""

from __future__ import annotations

import dataclasses

# extension -> its numbers
RANGES: dict[str, range] = {
    "general": range(0, 100),  # RESET QMLITE and what belongs to no one extension
    "calltrace": range(100, 200),  # DISPLAY / ALTER / CLEAR QMLTRACE
    "snapshots": range(200, 300),  # SET / RESET / DISPLAY / DELETE QMLITE SNAPSHOT
    "clock": range(300, 400),  # SET / DISPLAY QMLITE CLOCK
    "faults": range(400, 500),  # SET / DISPLAY / DELETE QMLITE FAULT
    "hosting": range(500, 600),  # DISPLAY / DEFINE QMLITE QMGR(S)
}
SEVERITIES = "IWES"


@dataclasses.dataclass(frozen=True, slots=True)
class QmlMessage:
    number: int
    severity: str  # I, W, E or S
    extension: str  # a key of RANGES
    template: str  # str.format fields, named

    @property
    def id(self) -> str:
        """``QML0001I``: what a line starts with, and what a reader greps for."""
        return f"QML{self.number:04d}{self.severity}"

    def __call__(self, **fields: object) -> str:
        return f"{self.id}: {self.template.format(**fields)}"


CATALOGUE: dict[str, QmlMessage] = {}  # id -> entry, in number order


def _entry(number: int, severity: str, extension: str, template: str) -> QmlMessage:
    message = QmlMessage(number, severity, extension, template)
    CATALOGUE[message.id] = message
    return message


# ---- general (0000-0099) ----------------------------------------------------------------------------
RESET_DONE = _entry(1, "I", "general", "qmlite reset: {deleted} objects deleted, {restored} restored, "
                    "{cleared} messages cleared, {kept} kept in use.")

# ---- call trace (0100-0199) -------------------------------------------------------------------------
TRACE_SHOWN = _entry(100, "I", "calltrace", "qmlite call trace, recording {state}, {count} calls, last {last}.")
TRACE_RECORDING = _entry(101, "I", "calltrace", "qmlite call trace recording {state}.")
TRACE_CLEARED = _entry(102, "I", "calltrace", "qmlite call trace cleared, {count} calls.")

# ---- snapshots (0200-0299) --------------------------------------------------------------------------
SNAPSHOT_SAVED = _entry(200, "I", "snapshots", "qmlite snapshot {name} saved: {objects} objects, {messages} "
                        "messages, {subscriptions} subscriptions, {retained} retained publications.")
SNAPSHOT_RESTORED = _entry(201, "I", "snapshots", "qmlite snapshot {name} restored: {deleted} objects deleted, "
                           "{restored} restored, {messages} messages on {queues} queues put back, "
                           "{kept} kept in use.")
SNAPSHOT_SHOWN = _entry(202, "I", "snapshots", "Display qmlite snapshot details.")
SNAPSHOT_DELETED = _entry(203, "I", "snapshots", "qmlite snapshot {name} deleted.")
SNAPSHOT_NONE = _entry(204, "I", "snapshots", "No qmlite snapshots saved.")
SNAPSHOT_NAME_MISSING = _entry(210, "E", "snapshots", "qmlite snapshot name missing.")
SNAPSHOT_NAME_LONG = _entry(211, "E", "snapshots", "qmlite snapshot name {name} is longer than {limit} characters.")
SNAPSHOT_NAME_BAD = _entry(212, "E", "snapshots", "qmlite snapshot name {name} is not valid: use {allowed}.")
SNAPSHOT_NOT_FOUND = _entry(213, "E", "snapshots", "qmlite snapshot {name} not found.")

# ---- clock (0300-0399) ------------------------------------------------------------------------------
CLOCK_MOVED = _entry(301, "I", "clock", "qmlite clock now {date} {time} GMT ({advanced} seconds advanced).")
CLOCK_SHOWN = _entry(302, "I", "clock", "Display qmlite clock details.")
CLOCK_REFUSED = _entry(303, "E", "clock", "qmlite clock: {why}.")

# ---- fault rules (0400-0499) ------------------------------------------------------------------------
FAULT_SET = _entry(400, "I", "faults", "qmlite fault rule set.")
FAULT_SHOWN = _entry(401, "I", "faults", "Display qmlite fault details.")
FAULT_DELETED = _entry(402, "I", "faults", "qmlite fault rule deleted.")
FAULT_NOT_FOUND = _entry(403, "E", "faults", "qmlite fault rule {name} not found.")
FAULT_NOT_VALID = _entry(404, "E", "faults", "qmlite fault rule not valid: {keyword}({value}) {why}.")

# ---- hosted queue managers (0500-0599) --------------------------------------------------------------
QMGR_SHOWN = _entry(501, "I", "hosting", "Display qmlite queue manager details.")
QMGR_CREATED = _entry(502, "I", "hosting", "qmlite queue manager {name} created.")
QMGR_EXISTS = _entry(503, "E", "hosting", "qmlite queue manager {name} already exists.")
QMGR_NOT_HOSTED = _entry(505, "E", "hosting", "queue manager {name} is not hosted here.")
QMGR_CANNOT_HOST = _entry(506, "E", "hosting",
                          "This queue manager is not run by a qmlite server that can host others.")
# 0504 is retired: its text named the characters before "/" was allowed (docs/decisions.md NM1).
QMGR_NAME_INVALID = _entry(507, "E", "hosting", "{name!r} is not a valid queue manager name: 1 to 48 characters "
                           "from A-Z a-z 0-9 . / _ %, not . or ...")
QMGR_NOT_CREATED = _entry(508, "E", "hosting", "qmlite queue manager {name} not created: {why}.")
QMGR_ENDING = _entry(509, "I", "hosting", "qmlite queue manager {name} ending.")
QMGR_NOT_ENDED = _entry(510, "E", "hosting", "qmlite queue manager {name} not ended: {why}.")
QMGR_STARTED = _entry(511, "I", "hosting", "qmlite queue manager {name} started.")
QMGR_NOT_STARTED = _entry(512, "E", "hosting", "qmlite queue manager {name} not started: {why}.")
QMGR_DELETED = _entry(513, "I", "hosting", "qmlite queue manager {name} deleted.")
QMGR_NOT_DELETED = _entry(514, "E", "hosting", "qmlite queue manager {name} not deleted: {why}.")
