"""IBM MQ's promise for persistent messages, proved by SIGKILL against a real ``qmlite serve`` process.

* A persistent message (MQPER_PERSISTENT, or PERSISTENCE_AS_Q_DEF on a DEFPSIST(YES) queue, and the
  copy of a persistent publication delivered to a subscriber's queue) is on disk before MQPUT/MQPUT1
  replies (NO_SYNCPOINT) or before MQCMIT replies (SYNCPOINT); a destructive MQGET of one is durable
  before its reply (NO_SYNCPOINT) or at MQCMIT (SYNCPOINT).  Nothing acknowledged is lost or comes
  back twice; a unit of work is all or nothing.
* Non-persistent messages are never written: they are gone after a restart.
* Uncommitted work is backed out (restart, MQBACK, a connection lost without MQDISC); queue order
  (priority, then arrival) and MsgId uniqueness are exact across restarts.

The crash test defines one local queue per client (CRASH.Q.1..4; the even ones DEFPSIST(YES)) and
one durable PROVIDED subscription per client (topic ``crash/<n>`` to CRASH.Q.<n>), then runs four
client threads, each on its own connection (so group commit serves several connections at once),
through a deterministic pseudo-random sequence of operations on its own queue.  Each client keeps a
model of its queue, updated only when an operation was acknowledged (its last call returned), and
remembers the one operation it had in flight.  The test thread counts acks and SIGKILLs the server
after a chosen number, while operations are in flight; then it opens the data directory in-process
and requires, per client, that the persistent messages present are exactly (same bodies, same order,
same MsgIds) the model's persistent messages, or those after the in-flight operation as a whole (a
unit of work only once its MQCMIT was sent).  Acks are the only synchronisation: no sleeps, no timing.
"""

from __future__ import annotations

import bisect
import dataclasses
import pathlib
import random
import sqlite3
import threading

import pytest

from qmlite.client.errors import ConnectionBroken, MQIError
from qmlite.client.sync import QueueManager
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf.mqi import MQCHARV, MQGMO, MQMD, MQOD, MQPMO
from qmlite.registry.storage import journal as J
from qmlite.registry.storage import sqlite as SQ
from qmlite.registry.messaging.queues import Message
from qmlite.registry.qmgr import QueueManager as DomainQueueManager
from qmlite.registry.storage.catalog import Registry
from tests.support.pcfkit import Clock
from tests.support.served import Served

QMGR = "QM1"
CLIENTS = 4
PER, NPER, AS_Q_DEF = C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENCE_AS_Q_DEF
OPS_PER_PHASE = 320  # per client; more than any kill point, so every client is cut off mid-stream
ACK_BOUND = 60.0  # seconds: a bound for a hung server, never a synchronisation


def queue_name(n: int) -> str:
    return f"CRASH.Q.{n}"


def sub_name(n: int) -> str:
    return f"CRASH.SUB.{n}"


def topic_string(n: int) -> str:
    return f"crash/{n}"


def def_persistent(n: int) -> bool:
    """CRASH.Q.2 and CRASH.Q.4 are DEFPSIST(YES): PERSISTENCE_AS_Q_DEF puts there are persistent."""
    return n % 2 == 0


@pytest.fixture(autouse=True)
def reap_servers():
    """A failing test must not leave a server behind."""
    yield
    Served.reap_all()


# ------------------------------------------------------------------------------------------------
# the model of one queue
# ------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Entry:
    body: bytes
    priority: int
    persistent: bool
    arrival: int
    msg_id: bytes | None = None  # as MQPUT/MQPUT1 returned it (or as loaded); None for a publication's copy


def _order(e: Entry) -> tuple[int, int]:
    return (-e.priority, e.arrival)


class Model:
    """A queue's messages in delivery order: highest priority first, then arrival."""

    def __init__(self, entries=(), next_arrival: int = 0) -> None:
        self.entries: list[Entry] = sorted(entries, key=_order)
        self.next_arrival = next_arrival

    def copy(self) -> Model:
        return Model(self.entries, self.next_arrival)

    def add(self, body: bytes, priority: int, persistent: bool, msg_id: bytes | None = None) -> None:
        entry = Entry(body, priority, persistent, self.next_arrival, msg_id)
        self.next_arrival += 1
        bisect.insort(self.entries, entry, key=_order)

    def first(self) -> Entry | None:
        return self.entries[0] if self.entries else None

    def take_first(self) -> None:
        if self.entries:
            self.entries.pop(0)

    def durable(self) -> list[Entry]:
        return [e for e in self.entries if e.persistent]


@dataclasses.dataclass(frozen=True)
class Item:
    verb: str  # "put", "put1", "pub" or "get"
    body: bytes = b""
    priority: int = 0
    persistence: int = PER


@dataclasses.dataclass(frozen=True)
class Op:
    """One operation: a single NO_SYNCPOINT call (end "none"), or a unit of work whose items run
    under SYNCPOINT and which ends with MQCMIT ("commit") or MQBACK ("back")."""

    end: str
    items: tuple[Item, ...]

    def __str__(self) -> str:
        items = ", ".join(f"{i.verb} {i.body.decode()} prio {i.priority} per {i.persistence}" if i.verb != "get"
                          else "get" for i in self.items)
        return f"{self.end}[{items}]"


def is_persistent(n: int, item: Item) -> bool:
    return item.persistence == PER or (item.persistence == AS_Q_DEF and item.verb != "pub" and def_persistent(n))


def apply(n: int, model: Model, op: Op, msg_ids: list | None = None) -> Model:
    """The model after ``op`` completed.  A unit of work's MQGET sees only committed messages (its own
    puts are not visible to it), so it takes the first message of the model it started from."""
    new = model.copy()
    if op.end == "back":
        return new  # the gotten message returns to its place; the puts vanish
    if any(item.verb == "get" for item in op.items):
        new.take_first()
    for k, item in enumerate(op.items):
        if item.verb != "get":
            new.add(item.body, item.priority, is_persistent(n, item), msg_ids[k] if msg_ids else None)
    return new


def generate(seed: int, phase: int, n: int, count: int) -> list[Op]:
    rng = random.Random(f"{seed}/{phase}/{n}")
    ops = []
    for i in range(count):
        tag = f"s{seed}.p{phase}.c{n}.o{i}"

        def make(k: int, verb: str, persistence: int | None = None) -> Item:
            if persistence is None:
                persistence = rng.choice([PER, PER, AS_Q_DEF]) if verb != "pub" else rng.choice([PER] * 5 + [NPER])
            return Item(verb, f"{tag}.m{k}".encode(), rng.randrange(10), persistence)

        roll = rng.random()
        if roll < 0.22:
            op = Op("none", (make(0, "put"),))
        elif roll < 0.32:
            op = Op("none", (make(0, "put", NPER),))
        elif roll < 0.52:
            op = Op("none", (Item("get"),))
        elif roll < 0.63:
            op = Op("none", (make(0, "put1"),))
        elif roll < 0.74:
            op = Op("none", (make(0, "pub"),))
        else:
            items = [make(k, rng.choice(["put", "put", "put1", "pub"]),
                          rng.choice([PER, PER, PER, AS_Q_DEF, NPER])) for k in range(rng.randint(1, 4))]
            if rng.random() < 0.8:
                items.insert(rng.randint(0, len(items)), Item("get"))
            op = Op("commit" if rng.random() < 0.7 else "back", tuple(items))
        ops.append(op)
    return ops


# ------------------------------------------------------------------------------------------------
# clients
# ------------------------------------------------------------------------------------------------

class Mismatch(AssertionError):
    pass


class Acks:
    """The test thread's view of the clients: how many operations were acknowledged, who still runs."""

    def __init__(self, clients: int) -> None:
        self.cond = threading.Condition()
        self.count = 0
        self.active = clients

    def ack(self) -> None:
        with self.cond:
            self.count += 1
            self.cond.notify_all()

    def leave(self) -> None:
        with self.cond:
            self.active -= 1
            self.cond.notify_all()

    def wait_for(self, n: int) -> int:
        with self.cond:
            self.cond.wait_for(lambda: self.count >= n or self.active == 0, timeout=ACK_BOUND)
            return self.count


class Client:
    """One connection working on its own queue; ``model`` changes only when an operation is acked."""

    def __init__(self, n: int, qm: QueueManager, ops: list[Op], model: Model, acks: Acks | None = None) -> None:
        self.n = n
        self.qm = qm
        self.ops = ops
        self.model = model
        self.acks = acks
        self.in_flight: Op | None = None
        self.commit_sent = False
        self.acked = 0
        self.broken: ConnectionBroken | None = None
        self.failure: BaseException | None = None
        self.hq, _ = qm.open(MQOD(ObjectName=queue_name(n)), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        od = MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV(topic_string(n)))
        self.ht, _ = qm.open(od, C.MQOO_OUTPUT)

    def run(self) -> None:
        try:
            for op in self.ops:
                self.in_flight, self.commit_sent = op, False
                msg_ids = self.perform(op)
                self.model = apply(self.n, self.model, op, msg_ids)
                self.in_flight = None
                self.acked += 1
                if self.acks is not None:
                    self.acks.ack()
        except ConnectionBroken as exc:
            self.broken = exc
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            self.failure = exc
        finally:
            if self.acks is not None:
                self.acks.leave()

    def perform(self, op: Op) -> list:
        syncpoint = op.end != "none"
        msg_ids = [self._item(item, syncpoint) for item in op.items]
        if op.end == "commit":
            self.commit_sent = True
            self.qm.cmit()
        elif op.end == "back":
            self.qm.back()
        return msg_ids

    def _item(self, item: Item, syncpoint: bool) -> bytes | None:
        pmo = MQPMO(Options=C.MQPMO_SYNCPOINT if syncpoint else C.MQPMO_NO_SYNCPOINT)
        md = MQMD(Persistence=item.persistence, Priority=item.priority)
        if item.verb == "put":
            return self.qm.put(self.hq, md, pmo, item.body)[0].MsgId
        if item.verb == "put1":
            return self.qm.put1(MQOD(ObjectName=queue_name(self.n)), md, pmo, item.body)[0].MsgId
        if item.verb == "pub":
            self.qm.put(self.ht, md, pmo, item.body)
            return None
        self.get(syncpoint)
        return None

    def get(self, syncpoint: bool = False) -> MQMD | None:
        """Destructive MQGET of the first message: it must be the model's first (never one already
        gotten, never one a unit of work has not committed)."""
        expected = self.model.first()
        options = (C.MQGMO_SYNCPOINT if syncpoint else C.MQGMO_NO_SYNCPOINT) | C.MQGMO_NO_WAIT
        try:
            md, _, data = self.qm.get(self.hq, MQMD(), MQGMO(Version=C.MQGMO_VERSION_2, Options=options), 4096)
        except MQIError as exc:
            if isinstance(exc, ConnectionBroken) or exc.reason != C.MQRC_NO_MSG_AVAILABLE:
                raise
            if expected is not None:
                raise Mismatch(f"client {self.n}: MQGET found the queue empty, expected {expected.body!r}") from None
            return None
        if expected is None or data != expected.body:
            raise Mismatch(f"client {self.n}: MQGET returned {data!r}, expected "
                           f"{expected.body if expected else 'no message (2033)'!r}")
        if md.Persistence != (PER if expected.persistent else NPER) or md.Priority != expected.priority:
            raise Mismatch(f"client {self.n}: {data!r} came back with Persistence {md.Persistence}, "
                           f"Priority {md.Priority}; expected {expected}")
        if expected.msg_id is not None and md.MsgId != expected.msg_id:
            raise Mismatch(f"client {self.n}: {data!r} came back with MsgId {md.MsgId.hex()}, "
                           f"put as {expected.msg_id.hex()}")
        return md

    def close(self) -> None:
        try:
            self.qm.disc()
        except MQIError:
            pass


# ------------------------------------------------------------------------------------------------
# definitions, observation
# ------------------------------------------------------------------------------------------------

def define(served: Served) -> None:
    """One local queue and one durable PROVIDED subscription per client, through PCF."""
    with served.connect() as qm:
        for n in range(1, CLIENTS + 1):
            qm.pcf(C.MQCMD_CREATE_Q, [
                P.CFST(C.MQCA_Q_NAME, queue_name(n)), P.CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
                P.CFIN(C.MQIA_DEF_PERSISTENCE, PER if def_persistent(n) else NPER),
                P.CFIN(C.MQIA_MAX_Q_DEPTH, 100_000)])
            qm.pcf(C.MQCMD_CREATE_SUBSCRIPTION, [
                P.CFST(C.MQCACF_SUB_NAME, sub_name(n)), P.CFST(C.MQCA_TOPIC_STRING, topic_string(n)),
                P.CFST(C.MQCACF_DESTINATION, queue_name(n)),
                P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_PROVIDED)])


def observe(data_dir) -> dict[int, list[Message]]:
    """Each client queue's messages as a restarted queue manager loads them, in delivery order, after
    checking what must hold whatever happened: an intact file, every definition present, only
    persistent messages, MsgIds unique, and a new message's MsgId unlike every loaded one."""
    db = sqlite3.connect(data_dir / SQ.FILENAME)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()
    reg = Registry.open(data_dir, QMGR)
    try:
        found = {}
        for n in range(1, CLIENTS + 1):
            assert queue_name(n) in reg.queues and sub_name(n) in reg.subs, f"definitions of client {n} lost"
            found[n] = list(reg.messages.contents(queue_name(n)))
        loaded = [m for name in list(reg.queues) for m in reg.messages.contents(name)]
        ids = [m.msg_id for m in loaded]
        assert len(ids) == len(set(ids)), "duplicate MsgIds after the restart"
        for m in loaded:
            assert m.persistent and m.md.Persistence == PER, f"a non-persistent message was written: {m.data!r}"
            assert (m.md.MsgId, m.md.Priority) == (m.msg_id, m.priority), f"{m.data!r}: MQMD and keys disagree"
        bodies = [m.data for n in found for m in found[n]]
        assert len(bodies) == len(set(bodies)), "a message is on disk twice"
        # The restarted queue manager never reissues a MsgId (non-persistent: nothing is written).
        domain = DomainQueueManager(reg)
        session = domain.connect(QMGR, user="admin", admin=True)
        handle, _ = domain.open_object(session, MQOD(ObjectName=queue_name(1)), C.MQOO_OUTPUT)
        md, _, _ = domain.put(session, handle.hobj, MQMD(Persistence=NPER), MQPMO(Options=C.MQPMO_NO_SYNCPOINT),
                              b"probe")
        assert md.MsgId not in set(ids), "a new message got the MsgId of a loaded one"
        return found
    finally:
        reg.close()


def _diff(want: list[bytes], seen: list[bytes]) -> str:
    missing = [b.decode() for b in want if b not in seen]
    extra = [b.decode() for b in seen if b not in want]
    text = f"{len(want)} expected, {len(seen)} found; missing {missing[:8]}, unexpected {extra[:8]}"
    if not missing and not extra:
        at = next(i for i, (a, b) in enumerate(zip(want, seen)) if a != b)
        text += f"; order differs at {at}: expected {[b.decode() for b in want[at:at + 4]]}, " \
                f"found {[b.decode() for b in seen[at:at + 4]]}"
    return text


def settle(client: Client, found: list[Message], context: str) -> Model:
    """The model the disk matches: the acknowledged one, or that after the whole in-flight operation
    (a unit of work only once its MQCMIT was sent).  Returns it with loaded MsgIds, persistent only."""
    options = [("the acknowledged operations", client.model)]
    op = client.in_flight
    if op is not None and (op.end != "commit" or client.commit_sent):
        options.append(("the acknowledged operations + the one in flight", apply(client.n, client.model, op)))
    seen = [m.data for m in found]
    for _label, model in options:
        durable = model.durable()
        if [(e.body, e.priority) for e in durable] == [(m.data, m.priority) for m in found]:
            for e, m in zip(durable, found):
                assert e.msg_id is None or e.msg_id == m.msg_id, \
                    f"{context}: {m.data!r} has MsgId {m.msg_id.hex()}, put as {e.msg_id.hex()}"
            return Model([dataclasses.replace(e, msg_id=m.msg_id) for e, m in zip(durable, found)],
                         model.next_arrival)
    lines = [f"{context}: client {client.n} (in flight: {op}, MQCMIT sent: {client.commit_sent}, "
             f"acked {client.acked}) -- the restarted queue matches nothing"]
    for label, model in options:
        lines.append(f"  vs {label}: {_diff([e.body for e in model.durable()], seen)}")
    raise AssertionError("\n".join(lines))


# ------------------------------------------------------------------------------------------------
# the crash test
# ------------------------------------------------------------------------------------------------

def run_until_killed(served: Served, seed: int, phase: int, models: dict[int, Model],
                     kill_after: int) -> tuple[list[Client], int]:
    """Four clients on four connections; SIGKILL the server after ``kill_after`` acknowledged operations."""
    acks = Acks(CLIENTS)
    clients: list[Client] = []
    threads: list[threading.Thread] = []
    try:
        for n in range(1, CLIENTS + 1):
            clients.append(Client(n, served.connect(), generate(seed, phase, n, OPS_PER_PHASE), models[n], acks))
        for client in clients:
            threads.append(threading.Thread(target=client.run, name=f"crash-client-{client.n}", daemon=True))
            threads[-1].start()
        at_kill = acks.wait_for(kill_after)
        served.kill()
    finally:
        if served.proc.poll() is None:
            served.kill()
        for thread in threads:
            thread.join(ACK_BOUND)
        for client in clients:
            client.close()
    assert not any(t.is_alive() for t in threads), "a client did not notice the killed server"
    for client in clients:
        if client.failure is not None:
            raise AssertionError(f"seed {seed} phase {phase}: client {client.n} failed after {client.acked} acks "
                                 f"(in flight: {client.in_flight}): {client.failure!r}") from client.failure
    assert at_kill >= kill_after, f"only {at_kill} acks came before the clients stopped\n{served.stderr_tail()}"
    for client in clients:
        assert isinstance(client.broken, ConnectionBroken), f"client {client.n} was not cut off mid-stream"
    return clients, at_kill


def kill_points(seed: int) -> list[int]:
    rng = random.Random(seed * 7919)
    return [rng.randrange(1, 40), rng.randrange(40, 240), rng.randrange(100, 240)]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_sigkill_keeps_exactly_the_acknowledged_messages(tmp_path, seed):
    crash_phases(tmp_path, seed)


@pytest.mark.parametrize("seed", [5, 6])
def test_sigkill_while_journal_segments_fold_keeps_exactly_the_acknowledged_messages(tmp_path, monkeypatch, seed):
    """The same, with journal segments of 2 KiB (registry/storage/journal.py): segments close every
    few groups and the writer thread folds them into SQLite while the clients run, so kills land
    before, during and after folds."""
    monkeypatch.setenv("QMLITE_JOURNAL_SEGMENT_BYTES", "2048")
    folds = crash_phases(tmp_path, seed)
    assert folds >= 3, "the segments were not folded while the clients ran"


def crash_phases(tmp_path, seed: int) -> int:
    """Three phases each SIGKILLed mid-stream, then a check over the wire; returns how many journal
    segments had been folded (and deleted) by the server before the kills."""
    data_dir = tmp_path / "data"
    models = {n: Model() for n in range(1, CLIENTS + 1)}
    served = Served(data_dir)
    define(served)
    folded = 0
    for phase, kill_after in enumerate(kill_points(seed)):
        if phase:
            served = Served(data_dir)
        clients, at_kill = run_until_killed(served, seed, phase, models, kill_after)
        folded += journal_segments_gone(data_dir)
        found = observe(data_dir)
        context = f"seed {seed}, phase {phase}, SIGKILL after {kill_after} acks (seen {at_kill})"
        for client in clients:
            models[client.n] = settle(client, found[client.n], context)

    # The recovered queue manager carries on over the wire: new MsgIds, and every queue delivers
    # exactly its model, in order, with the MsgIds the messages were put with.
    loaded_ids = {e.msg_id for model in models.values() for e in model.entries}
    served = Served(data_dir)
    try:
        for n in range(1, CLIENTS + 1):
            client = Client(n, served.connect(), [], models[n])
            try:
                md, _ = client.qm.put(client.hq, MQMD(Persistence=PER), MQPMO(Options=C.MQPMO_NO_SYNCPOINT),
                                      f"after.{n}".encode())
                assert md.MsgId not in loaded_ids, "the restarted server reissued a MsgId"
                client.model.add(f"after.{n}".encode(), 0, True, md.MsgId)
                while client.model.first() is not None:
                    client.get()
                    client.model.take_first()
                assert client.get() is None  # and nothing else
            finally:
                client.close()
        assert served.stop() == 0
    finally:
        Served.reap_all()
    assert not list(data_dir.glob(f"{J.PREFIX}*")), "a clean stop leaves no journal"
    assert all(found == [] for found in observe(data_dir).values())
    return folded


def journal_segments_gone(data_dir) -> int:
    """Segments a killed server had made and folded away.  Every server here starts on a directory
    with no segments (observe's open folded them and its close left none), so it numbers its own
    from 1; those below the oldest left were folded and deleted."""
    numbers = sorted(int(p.name[len(J.PREFIX):]) for p in data_dir.glob(f"{J.PREFIX}*"))
    return numbers[0] - 1 if numbers else 0


def test_generator_mixes_every_kind_of_operation():
    ops = [op for n in range(1, CLIENTS + 1) for op in generate(1, 0, n, OPS_PER_PHASE)]
    kinds = {(op.end, item.verb, item.persistence) for op in ops for item in op.items}
    for end in ("none", "commit", "back"):
        for verb in ("put", "put1", "pub", "get"):
            assert any(k[:2] == (end, verb) for k in kinds), (end, verb)
    assert {(v, p) for e, v, p in kinds if e == "none"} >= {("put", PER), ("put", AS_Q_DEF), ("put", NPER),
                                                            ("put1", PER), ("pub", PER), ("pub", NPER)}
    assert min(kill_points(s)[0] for s in range(1, 5)) < 40 and max(max(kill_points(s)) for s in range(1, 5)) < 240


# ------------------------------------------------------------------------------------------------
# a clean stop, with every path written out
# ------------------------------------------------------------------------------------------------

def single(verb: str, body: str, priority: int = 0, persistence: int = PER) -> Op:
    return Op("none", (Item(verb, body.encode(), priority, persistence),))


def unit(end: str, *items: Item) -> Op:
    return Op(end, items)


def item(verb: str, body: str = "", priority: int = 0, persistence: int = PER) -> Item:
    return Item(verb, body.encode(), priority, persistence)


GET = single("get", "")

# CRASH.Q.2 is DEFPSIST(YES): AS_Q_DEF is persistent there.
OPS_Q2 = [
    single("put", "a", 3), single("put", "b", 7, AS_Q_DEF), single("put", "n1", 9, NPER), single("put1", "c", 3),
    single("pub", "d", 7), single("pub", "n2", 5, NPER), single("put", "e", 0), single("put1", "f", 9, AS_Q_DEF),
    GET,  # n1: priority 9 and before f
    unit("commit", item("put", "g", 5), item("get"), item("pub", "h", 3), item("put1", "i", 7, NPER)),  # gets f
    unit("back", item("get"), item("put", "j", 9)),  # b is taken and comes back; j vanishes
]
# CRASH.Q.1 is DEFPSIST(NO): AS_Q_DEF is non-persistent there.
OPS_Q1 = [
    single("put", "x1", 4, AS_Q_DEF), single("put", "x2", 4), single("pub", "x3", 4),
    unit("commit", item("put", "x4", 6, AS_Q_DEF), item("put1", "x5", 6)),
]


def test_clean_stop_and_restart_keeps_exactly_the_persistent_messages_in_order(tmp_path):
    data_dir = tmp_path / "data"
    served = Served(data_dir)
    define(served)
    models = {}
    clients = []
    try:
        for n, ops in ((1, OPS_Q1), (2, OPS_Q2)):
            client = Client(n, served.connect(), ops, Model())
            clients.append(client)
            client.run()
            assert client.failure is None and client.broken is None, client.failure or client.broken
            assert client.acked == len(ops)
            models[n] = client.model
        q2 = clients[1]
        md = q2.get()  # b again, after its MQBACK
        assert md.BackoutCount == 1
        q2.model.take_first()
        assert [(e.body, e.persistent) for e in models[2].entries] == [
            (b"d", True), (b"i", False), (b"n2", False), (b"g", True), (b"a", True), (b"c", True), (b"h", True),
            (b"e", True)]
        assert [e.body for e in models[1].durable()] == [b"x5", b"x2", b"x3"]

        # A unit of work still open when the queue manager stops: backed out (d stays, k never appears).
        q2.qm.put(q2.hq, MQMD(Persistence=PER, Priority=9), MQPMO(Options=C.MQPMO_SYNCPOINT), b"k")
        assert q2.get(syncpoint=True).BackoutCount == 0  # d

        # A connection lost without MQDISC backs its unit of work out: y1 returns, y2 never appears.
        lost = Client(3, served.connect(), [], Model())
        clients.append(lost)
        lost.qm.put(lost.hq, MQMD(Persistence=PER), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"y1")
        _, _, data = lost.qm.get(lost.hq, MQMD(), MQGMO(Version=2, Options=C.MQGMO_SYNCPOINT), 100)
        assert data == b"y1"
        lost.qm.put(lost.hq, MQMD(Persistence=PER), MQPMO(Options=C.MQPMO_SYNCPOINT), b"y2")
        lost.qm.abort()  # the socket closes; no MQBACK, no MQDISC
        with served.connect() as watcher:
            hobj, _ = watcher.open(MQOD(ObjectName=queue_name(3)), C.MQOO_BROWSE)
            browse = MQGMO(Version=2, Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_WAIT, WaitInterval=20_000)
            md, _, data = watcher.get(hobj, MQMD(), browse, 100)  # waits for the backout, if need be
            assert (data, md.BackoutCount) == (b"y1", 1)
            with pytest.raises(MQIError) as info:
                watcher.get(hobj, MQMD(), MQGMO(Version=2, Options=C.MQGMO_BROWSE_NEXT), 100)
            assert info.value.reason == C.MQRC_NO_MSG_AVAILABLE

        assert served.stop() == 0
    finally:
        for client in clients:
            client.close()
        Served.reap_all()

    found = observe(data_dir)
    assert [m.data for m in found[2]] == [b"d", b"g", b"a", b"c", b"h", b"e"]
    assert [m.data for m in found[1]] == [b"x5", b"x2", b"x3"]
    assert [m.data for m in found[3]] == [b"y1"]
    assert found[4] == []
    for n in (1, 2):  # bodies, priorities and the MsgIds MQPUT/MQPUT1 returned, exactly
        settle(clients[n - 1], found[n], f"clean stop, client {n}")
    assert [m.md.Priority for m in found[2]] == [7, 5, 3, 3, 3, 0]
    assert [m.seq for m in found[2][2:5]] == sorted(m.seq for m in found[2][2:5])  # FIFO within a priority


# ------------------------------------------------------------------------------------------------
# expiry across a restart
# ------------------------------------------------------------------------------------------------

def test_expiry_survives_a_restart_and_an_expired_message_is_not_delivered(tmp_path):
    data_dir = tmp_path / "data"
    served = Served(data_dir)
    define(served)
    with served.connect() as qm:
        for body, expiry in ((b"soon", 600), (b"never", C.MQEI_UNLIMITED), (b"later", 36_000)):
            qm.put1(MQOD(ObjectName=queue_name(1)), MQMD(Persistence=PER, Expiry=expiry),
                    MQPMO(Options=C.MQPMO_NO_SYNCPOINT), body)
    served.kill()

    reg = Registry.open(data_dir, QMGR)
    try:
        stored = {m.data: (m.put_time, m.expires_at, m.md.Expiry) for m in reg.messages.contents(queue_name(1))}
    finally:
        reg.close()
    assert list(stored) == [b"soon", b"never", b"later"]
    assert stored[b"soon"][1] == stored[b"soon"][0] + 60.0 and stored[b"soon"][2] == 600
    assert stored[b"later"][1] == stored[b"later"][0] + 3600.0
    assert stored[b"never"][1] is None and stored[b"never"][2] == C.MQEI_UNLIMITED
    expires = stored[b"soon"][1]

    def browse_all(qm: DomainQueueManager) -> list[bytes]:
        session = qm.connect(QMGR, user="admin", admin=True)
        handle, _ = qm.open_object(session, MQOD(ObjectName=queue_name(1)), C.MQOO_BROWSE)
        out, options = [], C.MQGMO_BROWSE_FIRST
        for _ in range(10):
            got = qm.get(session, handle, MQMD(), MQGMO(Version=2, Options=options), 100)
            if got is None:
                break
            out.append(got.data)
            options = C.MQGMO_BROWSE_NEXT
        return out

    # Loaded just before the expiry: the same expiry times, and every message is delivered.
    clock = Clock(expires - 0.5)
    qm = DomainQueueManager(Registry.open(data_dir, QMGR, clock=clock))
    try:
        assert {m.data: m.expires_at for m in qm.registry.messages.contents(queue_name(1))} == \
            {body: at for body, (_, at, _) in stored.items()}
        assert browse_all(qm) == [b"soon", b"never", b"later"]
    finally:
        qm.shutdown()

    # Loaded after it: the expired message is not delivered, and its removal is written.
    clock = Clock(expires + 0.5)
    qm = DomainQueueManager(Registry.open(data_dir, QMGR, clock=clock))
    try:
        assert browse_all(qm) == [b"never", b"later"]
        qm.flush()
    finally:
        qm.shutdown()
    reg = Registry.open(data_dir, QMGR, clock=Clock(expires - 100))  # even an earlier clock finds it gone
    try:
        assert [m.data for m in reg.messages.contents(queue_name(1))] == [b"never", b"later"]
    finally:
        reg.close()


def test_sigkill_inside_a_preallocated_journal_segment_keeps_exactly_the_acknowledged_messages(tmp_path, monkeypatch):
    """Journal segments preallocated (registry/storage/journal.py, decision JN6): the server is killed
    while it writes into a spare it took, so the newest segment is records, then zeros to its
    preallocated size.  The zeros are its clean end (read back without a torn tail, nothing logged
    at recovery), and the restarted queue holds exactly the acknowledged messages, in order."""
    import structlog

    segment_bytes = 64 << 10
    monkeypatch.setenv("QMLITE_JOURNAL_SEGMENT_BYTES", str(segment_bytes))
    data_dir = tmp_path / "data"
    served = Served(data_dir)
    model: list[bytes] = []  # the acknowledged queue, in order

    def newest() -> pathlib.Path | None:
        paths = sorted(data_dir.glob(f"{J.PREFIX}*"))
        return paths[-1] if paths else None

    qm = served.connect()
    try:
        hq, _ = qm.open(MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        gmo = MQGMO(Version=C.MQGMO_VERSION_2, Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT)
        after_taken = None  # acknowledged operations since a preallocated segment was taken
        for i in range(2000):  # bounds a server that never takes a spare
            body = b"m%05d" % i + bytes(1000)
            qm.put(hq, MQMD(Persistence=PER), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), body)
            model.append(body)
            if i % 3 == 2:  # deletes in the journal too
                assert qm.get(hq, MQMD(), gmo, 2048)[2] == model.pop(0)
            path = newest()
            if after_taken is None and path is not None and path.name != f"{J.PREFIX}{1:010d}" \
                    and path.stat().st_size == segment_bytes:
                after_taken = 0
            elif after_taken is not None:
                after_taken += 1
                if after_taken == 10:  # a few groups into the segment, far from its end
                    break
        assert after_taken == 10, "the server never wrote into a preallocated segment"
        served.kill()  # connected, mid-stream
    finally:
        try:
            qm.disc()
        except MQIError:  # the server is gone: the connection is broken
            pass
        Served.reap_all()

    path = newest()
    data = path.read_bytes()
    assert len(data) == segment_bytes  # written in place: the file never grew
    records = list(J.read_records(data))
    assert records and all(lsn is not None for lsn, _ in records)  # no torn tail
    assert len(data.rstrip(b"\0")) < segment_bytes // 2  # records, then the preallocated zeros

    with structlog.testing.capture_logs() as logs:
        reg = Registry.open(data_dir, QMGR)
    try:
        assert not [e for e in logs if e["event"] == "journal_torn_tail"]
        assert [m.data for m in reg.messages.contents("DEV.QUEUE.1")] == model
    finally:
        reg.close()
