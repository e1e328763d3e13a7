"""Publish/subscribe durability, proved by SIGKILL against a real ``qmlite serve`` process.

IBM MQ's promise for a persistent publication is that of any persistent message: once MQPUT/MQPUT1
has replied (NO_SYNCPOINT), the persistent copies on the subscribers' queues and, with MQPMO_RETAIN,
the retained publication are on disk.  A non-persistent retained publication is not: "persistence of
the retained message stays as published" and a non-persistent one is lost when the queue manager
restarts (IBM MQTTRET, docs/pubsub-facts.md section 6).  A retained publication replaced by a
non-persistent one must not come back either: after the replacement was acknowledged the old one was
gone.

The test publishes through a client connection, counts a publication as acknowledged when its
MQPUT1 returned, SIGKILLs the server (no shutdown code runs), checks the data directory in-process,
then restarts the server and reads everything back over the wire.  The reply is the only
synchronisation: no sleeps, no timing.
"""

from __future__ import annotations

import pytest

from qmlite.client.errors import MQIError
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf.mqi import MQCHARV, MQGMO, MQMD, MQOD, MQPMO, MQSD
from qmlite.registry.storage.catalog import Registry
from tests.support.served import Served

QMGR = "QM1"
QUEUE = "PS.CRASH.Q"
ADMIN_SUB = "PS.CRASH.ADMIN"
API_SUB = "PS.CRASH.API"
TOPICS = "crash/ps/#"
PER, NPER = C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT

# (topic, body, persistence, retained), published in this order, each acknowledged before the next
PUBLICATIONS = [
    ("crash/ps/kept", b"kept", PER, True),
    ("crash/ps/plain", b"plain", PER, False),
    ("crash/ps/np", b"np-copy", NPER, False),
    ("crash/ps/gone", b"gone", NPER, True),
    ("crash/ps/replaced", b"old", PER, True),
    ("crash/ps/replaced", b"new", NPER, True),
]
DURABLE_COPIES = [body for _, body, persistence, _ in PUBLICATIONS if persistence == PER]


@pytest.fixture(autouse=True)
def reap_servers():
    """A failing test must not leave a server behind."""
    yield
    Served.reap_all()


def publish(qm, topic: str, body: bytes, persistence: int, retained: bool) -> None:
    od = MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV(topic))
    pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | (C.MQPMO_RETAIN if retained else 0))
    qm.put1(od, MQMD(Persistence=persistence, Format=C.MQFMT_STRING), pmo, body)


def drain(qm, hobj: int) -> list[bytes]:
    """Destructive MQGETs until MQRC_NO_MSG_AVAILABLE."""
    out = []
    while True:
        gmo = MQGMO(Version=C.MQGMO_VERSION_2, Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_NO_WAIT, MatchOptions=0)
        try:
            _, _, data = qm.get(hobj, MQMD(), gmo, 4096)
        except MQIError as exc:
            assert exc.reason == C.MQRC_NO_MSG_AVAILABLE, exc
            return out
        out.append(data)


def test_sigkill_keeps_acknowledged_persistent_publications_and_drops_non_persistent_retained(tmp_path):
    data_dir = tmp_path / "data"
    served = Served(data_dir)
    with served.connect() as admin:
        admin.pcf(C.MQCMD_CREATE_Q, [P.CFST(C.MQCA_Q_NAME, QUEUE), P.CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL)])
        admin.pcf(C.MQCMD_CREATE_SUBSCRIPTION, [
            P.CFST(C.MQCACF_SUB_NAME, ADMIN_SUB), P.CFST(C.MQCA_TOPIC_STRING, TOPICS),
            P.CFST(C.MQCACF_DESTINATION, QUEUE), P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_PROVIDED)])
    client = served.connect()
    try:
        # A durable managed subscription, still held by this connection when the server dies.
        client.sub(MQSD(Options=C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED,
                        ObjectString=MQCHARV(TOPICS), SubName=MQCHARV(API_SUB)))
        for topic, body, persistence, retained in PUBLICATIONS:
            publish(client, topic, body, persistence, retained)  # returned: acknowledged
        served.kill()
    finally:
        Served.reap_all()
        try:
            client.disc()
        except MQIError:
            pass

    # What the killed server left on disk, as a restarted queue manager loads it.
    reg = Registry.open(data_dir, QMGR)
    try:
        assert set(reg.retained) == {"crash/ps/kept"}, "only the persistent retained publication survives"
        kept = reg.retained["crash/ps/kept"]
        assert kept.body == b"kept" and kept.md.Persistence == PER
        managed = reg.subs[API_SUB].destination
        assert managed.startswith("SYSTEM.MANAGED.DURABLE.") and managed in reg.queues
        for queue in (QUEUE, managed):
            loaded = list(reg.messages.contents(queue))
            assert [m.data for m in loaded] == DURABLE_COPIES, queue
            assert all(m.persistent and m.md.Persistence == PER for m in loaded)
        ids = [m.msg_id for q in (QUEUE, managed) for m in reg.messages.contents(q)]
        assert len(set(ids)) == len(ids), "each copy has its own MsgId"
    finally:
        reg.close()

    # The restarted server delivers them, and the retained publication to a new subscription.
    served = Served(data_dir)
    try:
        with served.connect() as qm:
            _, managed_hobj, _ = qm.sub(MQSD(Options=C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED,
                                             SubName=MQCHARV(API_SUB)))
            assert drain(qm, managed_hobj) == DURABLE_COPIES
            provided, _ = qm.open(MQOD(ObjectName=QUEUE), C.MQOO_INPUT_SHARED)
            assert drain(qm, provided) == DURABLE_COPIES
            _, fresh, _ = qm.sub(MQSD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED,
                                      ObjectString=MQCHARV(TOPICS)))
            assert drain(qm, fresh) == [b"kept"]
        assert served.stop() == 0
    finally:
        Served.reap_all()
