"""The attributes the sweep made act, seen through IBM's ``ibmmq``: a queue's and a topic's CAPEXPRY
cap a message's expiry; an alias queue's PUT, DEFPRTY, DEFPSIST and CAPEXPRY apply to what is put
through it; a remote queue definition naming this queue manager delivers to its local queue, one
naming another queue manager puts behind an MQXQH on its transmission queue (or is refused when none
resolves), and a remote queue never opens for input; NOSHARE lets one application open a queue for input;
MSGDLVSQ(FIFO) delivers in arrival order; triggering puts an MQTM on the initiation queue."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-attr-effects")) as srv:
        yield srv


def _local(pcf, name: bytes, attrs: dict | None = None) -> None:
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES,
                        **(attrs or {})})


def _get(qm, name: str) -> tuple[bytes, object]:
    q = ibmmq.Queue(qm, name, CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        md = ibmmq.MD()
        return q.get(None, md), md
    finally:
        q.close()


def _put(qm, name: str, body: bytes, md=None) -> None:
    q = ibmmq.Queue(qm, name, CMQC.MQOO_OUTPUT)
    try:
        q.put(body, md or ibmmq.MD())
    finally:
        q.close()


def test_a_queues_capexpry_caps_the_expiry_of_what_is_put(pcf, qmgr):
    _local(pcf, b"EFFECT.CAP.Q", {CMQC.MQIA_CAP_EXPIRY: 50})
    _put(qmgr, "EFFECT.CAP.Q", b"unlimited")  # MQEI_UNLIMITED
    _put(qmgr, "EFFECT.CAP.Q", b"shorter", ibmmq.MD(Expiry=20))
    _put(qmgr, "EFFECT.CAP.Q", b"longer", ibmmq.MD(Expiry=5000))
    got = dict(_get(qmgr, "EFFECT.CAP.Q") for _ in range(3))
    assert 0 < got[b"unlimited"].Expiry <= 50
    assert 0 < got[b"shorter"].Expiry <= 20  # a shorter expiry is kept
    assert 0 < got[b"longer"].Expiry <= 50


def test_an_alias_queues_put_defprty_defpsist_and_capexpry_apply_through_it(pcf, qmgr):
    _local(pcf, b"EFFECT.BASE.Q", {CMQC.MQIA_DEF_PRIORITY: 0, CMQC.MQIA_DEF_PERSISTENCE: CMQC.MQPER_NOT_PERSISTENT})
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"EFFECT.ALIAS.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS,
                        CMQC.MQCA_BASE_Q_NAME: b"EFFECT.BASE.Q", CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED})
    err = raises(CMQC.MQRC_PUT_INHIBITED, _put, qmgr, "EFFECT.ALIAS.Q", b"refused")
    assert err.comp == CMQC.MQCC_FAILED
    pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: b"EFFECT.ALIAS.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS,
                        CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_ALLOWED, CMQC.MQIA_DEF_PRIORITY: 8,
                        CMQC.MQIA_DEF_PERSISTENCE: CMQC.MQPER_PERSISTENT, CMQC.MQIA_CAP_EXPIRY: 30})
    _put(qmgr, "EFFECT.ALIAS.Q", b"through the alias")  # priority and persistence AS_Q_DEF
    _put(qmgr, "EFFECT.BASE.Q", b"direct")
    got = dict(_get(qmgr, "EFFECT.BASE.Q") for _ in range(2))
    alias, direct = got[b"through the alias"], got[b"direct"]
    assert (alias.Priority, alias.Persistence) == (8, CMQC.MQPER_PERSISTENT)
    assert 0 < alias.Expiry <= 30
    assert (direct.Priority, direct.Persistence, direct.Expiry) == (0, CMQC.MQPER_NOT_PERSISTENT, CMQC.MQEI_UNLIMITED)


def test_a_remote_queue_definition_for_this_queue_manager_delivers_to_its_local_queue(pcf, qmgr):
    _local(pcf, b"EFFECT.TARGET.Q")
    for name, rqm in ((b"EFFECT.HERE.RQ", b"QM1"), (b"EFFECT.THERE.RQ", b"QM2")):
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_REMOTE,
                            CMQC.MQCA_REMOTE_Q_NAME: b"EFFECT.TARGET.Q", CMQC.MQCA_REMOTE_Q_MGR_NAME: rqm,
                            CMQC.MQIA_DEF_PRIORITY: 6})
    _put(qmgr, "EFFECT.HERE.RQ", b"resolved here")
    body, md = _get(qmgr, "EFFECT.TARGET.Q")
    assert (body, md.Priority) == (b"resolved here", 6)  # the remote definition's DEFPRTY, first in the path
    raises(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR, ibmmq.Queue, qmgr, "EFFECT.THERE.RQ", CMQC.MQOO_OUTPUT)
    raises(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE, ibmmq.Queue, qmgr, "EFFECT.HERE.RQ", CMQC.MQOO_INPUT_AS_Q_DEF)


def test_a_topics_capexpry_caps_the_expiry_of_its_publications(pcf, qmgr):
    _local(pcf, b"EFFECT.SUB.Q")
    pcf.MQCMD_CREATE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"EFFECT.CAP.T", CMQC.MQCA_TOPIC_STRING: b"effect/cap",
                            CMQC.MQIA_CAP_EXPIRY: 40})
    pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"EFFECT.CAP.SUB", CMQC.MQCA_TOPIC_STRING: b"effect/cap/#",
                                   CMQCFC.MQCACF_DESTINATION: b"EFFECT.SUB.Q"})
    topic = ibmmq.Topic(qmgr, topic_string="effect/cap/child")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    try:
        topic.pub(b"capped")  # below the topic object: CAPEXPRY is inherited
    finally:
        topic.close()
    body, md = _get(qmgr, "EFFECT.SUB.Q")
    assert body == b"capped" and 0 < md.Expiry <= 40


def test_noshare_lets_one_application_open_the_queue_for_input(pcf, qmgr):
    _local(pcf, b"EFFECT.NOSHARE.Q", {CMQC.MQIA_SHAREABILITY: CMQC.MQQA_NOT_SHAREABLE})
    first = ibmmq.Queue(qmgr, "EFFECT.NOSHARE.Q", CMQC.MQOO_INPUT_SHARED)  # treated as exclusive
    try:
        raises(CMQC.MQRC_OBJECT_IN_USE, ibmmq.Queue, qmgr, "EFFECT.NOSHARE.Q", CMQC.MQOO_INPUT_SHARED)
    finally:
        first.close()
    pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: b"EFFECT.NOSHARE.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_SHAREABILITY: CMQC.MQQA_SHAREABLE})
    both = [ibmmq.Queue(qmgr, "EFFECT.NOSHARE.Q", CMQC.MQOO_INPUT_SHARED) for _ in range(2)]  # SHARE: both open
    for q in both:
        q.close()


def test_a_remote_queue_for_another_queue_manager_puts_behind_an_mqxqh_on_its_transmission_queue(pcf, qmgr):
    from qmlite.pcf import mqi as S

    _local(pcf, b"QM3", {CMQC.MQIA_USAGE: CMQC.MQUS_TRANSMISSION})  # named as the queue manager: found by RQMNAME
    _local(pcf, b"EFFECT.NORMAL.Q")
    for name, rqm, xmitq in ((b"EFFECT.QM3.RQ", b"QM3", b""), (b"EFFECT.NOXQ.RQ", b"QM4", b"EFFECT.NO.SUCH.XQ"),
                             (b"EFFECT.BADXQ.RQ", b"QM4", b"EFFECT.NORMAL.Q")):
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: CMQC.MQQT_REMOTE,
                            CMQC.MQCA_REMOTE_Q_NAME: b"APP.IN", CMQC.MQCA_REMOTE_Q_MGR_NAME: rqm,
                            CMQC.MQCA_XMIT_Q_NAME: xmitq})
    q = ibmmq.Queue(qmgr, "EFFECT.QM3.RQ", CMQC.MQOO_OUTPUT)
    try:
        q.put(b"for QM3", ibmmq.MD(Format=CMQC.MQFMT_STRING, Priority=3))
    finally:
        q.close()
    body, md = _get(qmgr, "QM3")
    assert md.Format == CMQC.MQFMT_XMIT_Q_HEADER
    header, end = S.MQXQH.unpack(body)
    assert (header.RemoteQName, header.RemoteQMgrName) == ("APP.IN", "QM3")
    assert (header.MsgDesc.Format, header.MsgDesc.Priority) == (CMQC.MQFMT_STRING.decode().rstrip(), 3)
    assert body[end:] == b"for QM3"
    raises(CMQC.MQRC_UNKNOWN_XMIT_Q, ibmmq.Queue, qmgr, "EFFECT.NOXQ.RQ", CMQC.MQOO_OUTPUT)
    raises(CMQC.MQRC_XMIT_Q_USAGE_ERROR, ibmmq.Queue, qmgr, "EFFECT.BADXQ.RQ", CMQC.MQOO_OUTPUT)


def test_msgdlvsq_fifo_delivers_in_arrival_order_whatever_the_priority(pcf, qmgr):
    _local(pcf, b"EFFECT.FIFO.Q", {CMQC.MQIA_MSG_DELIVERY_SEQUENCE: CMQC.MQMDS_FIFO})
    _local(pcf, b"EFFECT.PRIO.Q")
    for name in ("EFFECT.FIFO.Q", "EFFECT.PRIO.Q"):
        for body, priority in ((b"low", 1), (b"high", 9), (b"middle", 5)):
            _put(qmgr, name, body, ibmmq.MD(Priority=priority, Persistence=CMQC.MQPER_PERSISTENT))
    fifo = [_get(qmgr, "EFFECT.FIFO.Q") for _ in range(3)]
    assert [(b, md.Priority) for b, md in fifo] == [(b"low", 1), (b"high", 9), (b"middle", 5)]
    assert [_get(qmgr, "EFFECT.PRIO.Q")[0] for _ in range(3)] == [b"high", b"middle", b"low"]


def _trigger_messages(initq) -> list:
    from qmlite.pcf import mqi as S

    out = []
    while True:
        md = ibmmq.MD()
        try:
            body = initq.get(None, md)
        except ibmmq.MQMIError as err:
            assert err.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out
        assert md.Format == CMQC.MQFMT_TRIGGER
        out.append(S.MQTM.unpack(body)[0])


def test_triggering_puts_an_mqtm_on_the_initiation_queue_per_trigger_type(pcf, qmgr):
    pcf.MQCMD_CREATE_PROCESS({CMQC.MQCA_PROCESS_NAME: b"EFFECT.PROC", CMQC.MQCA_APPL_ID: b"/opt/app/run",
                              CMQC.MQCA_USER_DATA: b"user data", CMQC.MQCA_ENV_DATA: b"ENV=1"})
    _local(pcf, b"EFFECT.INITQ")
    trig = {CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQTC_ON, CMQC.MQCA_INITIATION_Q_NAME: b"EFFECT.INITQ",
            CMQC.MQCA_PROCESS_NAME: b"EFFECT.PROC", CMQC.MQCA_TRIGGER_DATA: b"trigger data"}
    _local(pcf, b"EFFECT.FIRST.Q", {**trig, CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_FIRST})
    _local(pcf, b"EFFECT.DEPTH.Q", {**trig, CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_DEPTH, CMQC.MQIA_TRIGGER_DEPTH: 3})
    _local(pcf, b"EFFECT.EVERY.Q", {**trig, CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_EVERY,
                                    CMQC.MQIA_TRIGGER_MSG_PRIORITY: 5})
    _put(qmgr, "EFFECT.EVERY.Q", b"no monitor yet", ibmmq.MD(Priority=7))  # nobody has the initiation queue open
    monitor = ibmmq.Queue(qmgr, "EFFECT.INITQ", CMQC.MQOO_INPUT_AS_Q_DEF)  # the trigger monitor
    try:
        assert _trigger_messages(monitor) == []
        for _ in range(2):
            _put(qmgr, "EFFECT.FIRST.Q", b"first")  # FIRST: the depth goes from 0 to 1 once
        [tm] = _trigger_messages(monitor)
        assert (tm.QName, tm.ProcessName, tm.TriggerData) == ("EFFECT.FIRST.Q", "EFFECT.PROC", "trigger data")
        assert (tm.ApplId, tm.UserData, tm.EnvData, tm.ApplType) == ("/opt/app/run", "user data", "ENV=1",
                                                                     CMQC.MQAT_UNIX)
        for n in range(4):
            _put(qmgr, "EFFECT.DEPTH.Q", b"depth %d" % n)
        assert [t.QName for t in _trigger_messages(monitor)] == ["EFFECT.DEPTH.Q"]  # at the third, then off
        [depth_q] = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"EFFECT.DEPTH.Q"})
        assert depth_q[CMQC.MQIA_TRIGGER_CONTROL] == CMQC.MQTC_OFF
        for priority in (1, 7, 9):
            _put(qmgr, "EFFECT.EVERY.Q", b"every", ibmmq.MD(Priority=priority))
        assert [t.QName for t in _trigger_messages(monitor)] == ["EFFECT.EVERY.Q"] * 2  # TRIGMPRI(5): 7 and 9
    finally:
        monitor.close()
