"""Channel synchronisation records: what each end of a message channel last committed, and the sender's
in-doubt batch, as persistent messages on SYSTEM.CHANNEL.SYNCQ (IBM keeps them there too).

Why messages on a queue rather than rows of their own (docs/decisions.md MCA8): a record then joins the
unit of work of the batch it describes -- the receiver's puts and its new record, the sender's gets and
its new record -- and the journal writes a unit of work all or nothing, so no crash can leave a batch
committed and its record not, or the reverse.

One message per (channel, kind): CorrelId is the channel name, the body a small JSON object.  Kinds:
``sender`` and ``receiver`` ({"seq": last sequence number committed, "luw": that batch's LUWID in
hex}), and ``indoubt`` (the sender's batch whose confirmation it is waiting for: {"luw", "first",
"last", "msg_ids"}).
"""

from __future__ import annotations

import hashlib
import json

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

SYNCQ = "SYSTEM.CHANNEL.SYNCQ"
SENDER, RECEIVER, INDOUBT = "sender", "receiver", "indoubt"
_OPEN = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING
_BIG = 1 << 20


def correl_id(channel: str) -> bytes:
    return channel.encode("latin-1").ljust(24, b" ")[:24]


def cluster_record_key(channel: str, partner: str) -> str:
    """The synchronisation records' key of a cluster-receiver's partner: 24 characters (a CorrelId)."""
    return "C" + hashlib.blake2b(f"{channel}\0{partner}".encode(), digest_size=12).hexdigest()[:23]


class SyncRecords:
    """One channel's records on one queue manager, read once at start and then written through.

    Every write names the session whose unit of work it joins (``syncpoint=True``) or is made at once;
    the caller commits.  The records it holds in memory are those committed or staged by its own writes:
    only the channel's agent writes them.  After a backout of a unit that wrote one, read them again
    (a new ``SyncRecords``): what is held would be the backed-out state."""

    def __init__(self, qm, session, channel: str) -> None:
        self.qm = qm
        self.channel = channel
        self.correl = correl_id(channel)
        self.records: dict[str, dict] = {}
        self._msg_ids: dict[str, bytes] = {}
        self._handles: dict[int, object] = {}  # session id -> its SYNCQ handle
        self._load(session)

    def _handle(self, session):
        handle = self._handles.get(id(session))
        if handle is None or handle.hobj not in session.handles:
            handle, _ = self.qm.open_object(session, S.MQOD(ObjectName=SYNCQ), _OPEN)
            self._handles[id(session)] = handle
        return handle

    def _load(self, session) -> None:
        handle = self._handle(session)
        options = C.MQGMO_BROWSE_FIRST
        while True:
            md = S.MQMD(CorrelId=self.correl)
            gmo = S.MQGMO(Version=2, Options=options | C.MQGMO_NO_SYNCPOINT, MatchOptions=C.MQMO_MATCH_CORREL_ID)
            got = self.qm.get(session, handle, md, gmo, _BIG)
            if got is None:
                return
            options = C.MQGMO_BROWSE_NEXT
            try:
                record = json.loads(got.data)
                kind = record.pop("kind")
            except (ValueError, KeyError, TypeError):
                continue  # not a record of ours: left alone
            self.records[kind] = record
            self._msg_ids[kind] = got.md.MsgId

    def get(self, kind: str) -> dict | None:
        return self.records.get(kind)

    def _remove(self, session, kind: str, syncpoint: bool) -> None:
        msg_id = self._msg_ids.pop(kind, None)
        self.records.pop(kind, None)
        if msg_id is None:
            return
        md = S.MQMD(MsgId=msg_id, CorrelId=self.correl)
        gmo = S.MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT,
                      MatchOptions=C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID)
        self.qm.get(session, self._handle(session), md, gmo, _BIG)

    def write(self, session, kind: str, record: dict | None, *, syncpoint: bool = True) -> None:
        """Replace the channel's ``kind`` record with ``record`` (None: remove it)."""
        self._remove(session, kind, syncpoint)
        if record is None:
            return
        md = S.MQMD(CorrelId=self.correl, Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
        pmo = S.MQPMO(Options=(C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT) | C.MQPMO_NEW_MSG_ID)
        body = json.dumps({"kind": kind, **record}, sort_keys=True).encode()
        stored, _pmo, _pos = self.qm.put(session, self._handle(session).hobj, md, pmo, body)
        self.records[kind] = dict(record)
        self._msg_ids[kind] = stored.MsgId
