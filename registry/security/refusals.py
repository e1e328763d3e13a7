"""Recent refusals: a 2035 that explains itself (docs/errorlog.md "Why was I refused?").

Every refusal the queue manager makes of a client -- a channel blocked by a CHLAUTH record, a user id and
password that did not check, an authority missing on an object, a TLS rule, a channel limit -- is kept
here, the most recent :data:`KEPT`, with who was refused (user, address, channel, application), what (the
object and its type), why (the rule or the missing authorities, the MQ reason and IBM's error-log
message number written for it) and the MQSC that would have allowed it, as an administrator reading
AMQERR01.LOG would work it out.  The REST API (``GET .../qmlite/refusals``), the web console and the
pytest plugin (a failing test's report) show this list; nothing here is stored: a restart forgets it.
"""

from __future__ import annotations

import collections
import dataclasses
import threading

KEPT = 100  # refusals remembered per queue manager (the oldest go first)

# kinds of refusal
CHLAUTH = "chlauth"  # a channel authentication record
PASSWORD = "password"  # connection authentication: the user id and password
AUTHORITY = "authority"  # an authority record missing (the OAM)
TLS = "tls"  # the channel's TLS rules, the key repository
CHANNEL = "channel"  # the channel itself: unknown, stopped, at its instance limits


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    seq: int
    time: str  # ISO 8601 UTC, as the error log's Time(...)
    kind: str
    reason: int  # the MQRC the application saw (2035, 2059, 2393 ...)
    reason_name: str
    message_id: str  # IBM's error-log message written for it ("" when none)
    user: str = ""
    address: str = ""
    channel: str = ""
    appl: str = ""
    object: str = ""
    object_type: str = ""  # as SET AUTHREC's OBJTYPE names it (QUEUE, TOPIC, QMGR ...)
    rule: str = ""  # the CHLAUTH record, the TLS or channel rule that refused
    missing: tuple = ()  # the authorities missing (SET AUTHREC's names: PUT, GET ...)
    detail: str = ""  # the error log's message text
    mqsc: tuple = ()  # MQSC that would allow it

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["missing"], out["mqsc"] = list(self.missing), list(self.mqsc)
        return out

    def line(self) -> str:
        """One line for a test report: what, who, why, and the fix."""
        who = " ".join(f"{k}={v}" for k, v in (("user", self.user), ("address", self.address),
                                                  ("channel", self.channel), ("object", self.object)) if v)
        why = self.rule or (("missing " + ",".join(self.missing)) if self.missing else "")
        text = f"{self.time} {self.reason} {self.reason_name} {self.kind}: {who}"
        if why:
            text += f" ({why})"
        if self.message_id:
            text += f" [{self.message_id}]"
        return text + "".join(f"\n    fix: {command}" for command in self.mqsc)


class Refusals:
    """One queue manager's recent refusals (``registry.diagnostics.refusals``)."""

    def __init__(self, kept: int = KEPT) -> None:
        self._items: collections.deque[Refusal] = collections.deque(maxlen=kept)
        self._lock = threading.Lock()
        self.seq = 0  # the last refusal's number (counts on past the ones forgotten)

    def add(self, **fields) -> Refusal:
        with self._lock:
            self.seq += 1
            refusal = Refusal(seq=self.seq, **fields)
            self._items.append(refusal)
        return refusal

    def recent(self, *, after: int = 0, limit: int = 0) -> list[Refusal]:
        with self._lock:
            items = [r for r in self._items if r.seq > after]
        return items[-limit:] if limit > 0 else items

    def clear(self) -> int:
        with self._lock:
            n = len(self._items)
            self._items.clear()
        return n


def quote(value: str) -> str:
    """An MQSC string in quotes, a quote inside doubled."""
    return "'" + value.replace("'", "''") + "'"
