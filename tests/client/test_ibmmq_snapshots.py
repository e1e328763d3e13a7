"""A snapshot restored between tests, through IBM's ``ibmmq`` (over our ``ibmmqc`` transport) against a
server the module starts: the state is built once with MQI calls and MQSC (PCF Escape), saved with
``SET QMLITE SNAPSHOT``, and every test starts from it again (``RESET QMLITE SNAPSHOT`` before each)
whatever the test before it did.  Bad snapshot names and commands give their precise reasons."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import SnapshotFailed, running_qmlite  # noqa: E402
from qmlite.registry.security import vocab as A  # noqa: E402

ORDERS = "SNAP.ORDERS"
BODIES = [b"order-1", b"order-2", b"order-3"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-snapshots")) as srv:
        yield srv


def _escape(pcf, text: str) -> list[str]:
    answers = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})
    out = []
    for a in answers:
        value = a[CMQCFC.MQCACF_ESCAPE_TEXT]
        out.append((value.decode() if isinstance(value, bytes) else value).rstrip())
    return out


@pytest.fixture(scope="module")
def base(qmgr, pcf):
    """The known state: a queue with three persistent orders, a durable subscription, a retained
    publication, an authority record; saved as BASE.  Returns the orders' MsgIds."""
    _escape(pcf, f"DEFINE QLOCAL({ORDERS}) MAXDEPTH(50) DESCR('known state')")
    _escape(pcf, "DEFINE QLOCAL(SNAP.PRICES)")
    _escape(pcf, "DEFINE SUB(SNAP.PRICES.SUB) TOPICSTR('snap/prices/#') DEST(SNAP.PRICES)")
    _escape(pcf, f"SET AUTHREC PROFILE({ORDERS}) OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT, GET, INQ)")
    queue = ibmmq.Queue(qmgr, ORDERS, CMQC.MQOO_OUTPUT)
    ids = []
    for body in BODIES:
        md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
        queue.put(body, md)
        ids.append(md.MsgId)
    queue.close()
    topic = ibmmq.Topic(qmgr, topic_string="snap/prices/apple")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"1.25", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT), ibmmq.PMO(Options=CMQC.MQPMO_RETAIN))
    topic.close()
    [saved] = _escape(pcf, "SET QMLITE SNAPSHOT(BASE)")
    assert saved.startswith("QML0200I: qmlite snapshot BASE saved: ")
    return ids


@pytest.fixture(autouse=True)
def known_state(base, pcf):
    [restored] = _escape(pcf, "RESET QMLITE SNAPSHOT(BASE)")
    assert restored.startswith("QML0201I: qmlite snapshot BASE restored: ")
    yield base


def _drain(qmgr, name: str) -> list[tuple[bytes, bytes, int]]:
    queue = ibmmq.Queue(qmgr, name, CMQC.MQOO_INPUT_AS_Q_DEF)
    out = []
    try:
        while True:
            md = ibmmq.MD()
            try:
                body = queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
            except ibmmq.MQMIError as err:
                assert err.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            out.append((body, md.MsgId, md.BackoutCount))
    finally:
        queue.close()


def _check_known_state(qmgr, pcf, ids) -> None:
    [queue] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: ORDERS.encode()})
    assert queue[CMQC.MQIA_MAX_Q_DEPTH] == 50 and queue[CMQC.MQCA_Q_DESC].strip() == b"known state"
    assert queue[CMQC.MQIA_CURRENT_Q_DEPTH] == 3
    with pytest.raises(ibmmq.MQMIError) as err:
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"SNAP.EXTRA"})
    assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    [sub] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"SNAP.PRICES.SUB"})
    assert sub[CMQC.MQCA_TOPIC_STRING].strip() == b"snap/prices/#"
    [rec] = pcf.MQCMD_INQUIRE_AUTH_RECS({CMQCFC.MQIACF_AUTH_OPTIONS: A.MQAUTHOPT_NAME_EXPLICIT
                                         | A.MQAUTHOPT_ENTITY_EXPLICIT,
                                         CMQCFC.MQCACF_AUTH_PROFILE_NAME: ORDERS.encode(),
                                         CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q})
    assert sorted(rec[CMQCFC.MQIACF_AUTHORIZATION_LIST]) == sorted([A.MQAUTH_OUTPUT, A.MQAUTH_INPUT, A.MQAUTH_INQUIRE])
    # every order back, in order, with its MsgId, never backed out
    assert _drain(qmgr, ORDERS) == [(body, msg_id, 0) for body, msg_id in zip(BODIES, ids)]
    # the retained publication reaches a new subscriber
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "snap/prices/apple")
    subscription = ibmmq.Subscription(qmgr)
    subscription.sub(sub_desc=sd)
    try:
        assert subscription.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)) == b"1.25"
    finally:
        subscription.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)


def _mess_up(qmgr, pcf) -> None:
    """What a test might leave behind: consumed and backed-out orders, altered and deleted objects,
    a new queue with a message, the retained publication gone."""
    queue = ibmmq.Queue(qmgr, ORDERS, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    queue.put(b"stranger", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    queue.put(b"another", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qmgr.backout()  # "stranger" is back, BackoutCount 1
    queue.close()
    _escape(pcf, f"ALTER QLOCAL({ORDERS}) MAXDEPTH(7) DESCR('changed')")
    _escape(pcf, "DELETE SUB(SNAP.PRICES.SUB)")
    _escape(pcf, f"DELETE AUTHREC PROFILE({ORDERS}) OBJTYPE(QUEUE) PRINCIPAL('app')")
    _escape(pcf, "DEFINE QLOCAL(SNAP.EXTRA)")
    extra = ibmmq.Queue(qmgr, "SNAP.EXTRA", CMQC.MQOO_OUTPUT)
    extra.put(b"extra")
    extra.close()
    _escape(pcf, "CLEAR TOPICSTR('snap/prices/apple') CLRTYPE(RETAINED)")


# Three tests, each starting from the known state and leaving a mess: whichever runs first, the
# next ones see the snapshot's state again.
def test_a_test_starts_from_the_snapshot_and_leaves_a_mess(qmgr, pcf, known_state):
    _check_known_state(qmgr, pcf, known_state)
    _mess_up(qmgr, pcf)


def test_the_next_test_starts_from_the_snapshot_again(qmgr, pcf, known_state):
    _check_known_state(qmgr, pcf, known_state)
    _mess_up(qmgr, pcf)
    _escape(pcf, "RESET QMLITE")  # even a full reset is undone by the next restore


def test_and_the_one_after(qmgr, pcf, known_state):
    _check_known_state(qmgr, pcf, known_state)


def test_the_plugin_api_saves_lists_restores_and_deletes(server, qmgr, pcf, known_state):
    server.snapshot("plugin.Case")  # quoted by the plugin: the name keeps its case
    assert [s["SNAPSHOT"] for s in server.snapshots("plugin*")] == ["plugin.Case"]
    _escape(pcf, "DEFINE QLOCAL(SNAP.EXTRA)")
    server.restore("plugin.Case")
    with pytest.raises(ibmmq.MQMIError) as err:
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"SNAP.EXTRA"})
    assert err.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    server.delete_snapshot("plugin.Case")
    with pytest.raises(SnapshotFailed) as failed:
        server.restore("plugin.Case")
    assert failed.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(SnapshotFailed) as failed:
        server.snapshot("not valid")
    assert failed.value.reason == CMQCFC.MQRCCF_OBJECT_NAME_ERROR


@pytest.mark.parametrize("text, reason", [
    *((f"{verb} QMLITE SNAPSHOT({name})", CMQCFC.MQRCCF_OBJECT_NAME_ERROR)
      for verb in ("SET", "RESET", "DELETE", "DISPLAY")
      for name in ("'A B'", "'A-B'", "'" + "N" * 49 + "'", "'A:B'")),
    *((f"{verb} QMLITE SNAPSHOT(A*)", CMQCFC.MQRCCF_OBJECT_NAME_ERROR) for verb in ("SET", "RESET", "DELETE")),
    *((f"{verb} QMLITE SNAPSHOT(NEVER.SAVED)", CMQC.MQRC_UNKNOWN_OBJECT_NAME)
      for verb in ("RESET", "DELETE", "DISPLAY")),
    *((text, CMQCFC.MQRCCF_PARM_SYNTAX_ERROR) for text in (
        "SET QMLITE", "SET QMLITE SNAPSHOT()", "SET QMLITE SNAPSHOT(A) REPLACE", "SET QMLITE SNAPSHOT(A, B)",
        "RESET QMLITE SNAP(A)", "DELETE QMLITE", "DISPLAY QMLITE")),
])
def test_bad_snapshot_names_and_commands_get_their_precise_reason(pcf, text, reason):
    with pytest.raises(ibmmq.MQMIError) as err:
        _escape(pcf, text)
    assert err.value.reason == reason


def test_an_app_user_may_not_restore(server):
    app = ibmmq.connect(server.qmgr, server.app_channel, server.conn_name)
    try:
        with pytest.raises(ibmmq.MQMIError) as err:
            _escape(ibmmq.PCFExecute(app), "RESET QMLITE SNAPSHOT(BASE)")
        assert err.value.reason in (CMQC.MQRC_NOT_AUTHORIZED, CMQCFC.MQRCCF_COMMAND_FAILED)
    finally:
        app.disconnect()
