"""Change Queue Manager as IBM's ``ibmmq`` (and pymqi) send it (issue 21): every attribute IBM documents
for it on Multiplatforms set to a value a new queue manager does not have and read back by Inquire
Queue Manager, the same after a restart, each integer IBM refuses refused with IBM's reason, ALTER QMGR
and DISPLAY QMGR over the same list, a monitoring agent's set-up as a start-up MQSC file, and what the
attributes that act do to MQI calls (MAXMSGL, MAXHANDS, MAXUMSGS, MAXPROPL, PSMODE).  The list is IBM's
(tests/support/qmgrattrs.py)."""

from __future__ import annotations

import os

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402
from tests.support.qmgrattrs import EVERY, MONITORING_SETUP, REPOS_STEP, SWEEP, Swept  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
FINAL = list({s.pid: s for s in SWEEP + REPOS_STEP}.values())
INTEGERS = [s for s in EVERY if isinstance(s.value, int)]


def _connect(server):
    return ibmmq.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")


def _wire(s: Swept) -> object:
    if isinstance(s.value, str):
        return s.value.encode() or b" "
    return list(s.value) if isinstance(s.value, tuple) else s.value


def _read(response: dict, s: Swept) -> object:
    value = response.get(s.pid)
    if isinstance(value, bytes):
        return value.decode().rstrip(" \x00")
    if isinstance(value, str):
        return value.rstrip(" \x00")
    return tuple(value) if isinstance(value, list) else value


def _expected(s: Swept) -> object:
    return None if s.hidden else s.value  # KEYRPWD, INITKEY: write-only


def _check(inquired: dict, items) -> None:
    wrong = {s.keyword: (_read(inquired, s), _expected(s)) for s in items if _read(inquired, s) != _expected(s)}
    assert wrong == {}


def _sweep(pcf) -> None:
    assert pcf.MQCMD_CHANGE_Q_MGR({**{s.pid: _wire(s) for s in SWEEP}, CMQCFC.MQIACF_FORCE: CMQCFC.MQFC_YES}) == []
    [inquired] = pcf.MQCMD_INQUIRE_Q_MGR()
    _check(inquired, SWEEP)
    assert pcf.MQCMD_CHANGE_Q_MGR({s.pid: _wire(s) for s in REPOS_STEP}) == []


def test_every_attribute_through_ibmmq_and_over_a_restart(tmp_path):
    with running_qmlite(tmp_path) as server:
        qm = _connect(server)
        pcf = ibmmq.PCFExecute(qm)
        try:
            [before] = pcf.MQCMD_INQUIRE_Q_MGR()
            assert [s.keyword for s in EVERY if _read(before, s) == _expected(s) and not s.hidden] == []
            _sweep(pcf)
            [after] = pcf.MQCMD_INQUIRE_Q_MGR()
            _check(after, FINAL)
        finally:
            pcf.disconnect()
            qm.disconnect()
    with running_qmlite(tmp_path) as server:  # the same data directory: every value persisted
        qm = _connect(server)
        pcf = ibmmq.PCFExecute(qm)
        try:
            [again] = pcf.MQCMD_INQUIRE_Q_MGR()
            _check(again, FINAL)
            # MQINQ on the queue manager answers from the same attributes
            obj = ibmmq.QueueManager.inquire(qm, CMQC.MQIA_MAX_UNCOMMITTED_MSGS)
            assert obj == 5_000
        finally:
            pcf.disconnect()
            qm.disconnect()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-qmgr-attrs")) as srv:
        yield srv


@pytest.mark.parametrize("s", INTEGERS, ids=[s.keyword for s in INTEGERS])
def test_each_integer_ibm_refuses_is_refused_with_ibms_reason(pcf, s):
    reason = CMQCFC.MQRCCF_Q_MGR_CCSID_ERROR if s.pid == CMQC.MQIA_CODED_CHAR_SET_ID else CMQCFC.MQRCCF_PARM_VALUE_ERROR
    [before] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [s.pid]})
    raises(reason, pcf.MQCMD_CHANGE_Q_MGR, {s.pid: s.bad})
    [after] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [s.pid]})
    assert after[s.pid] == before[s.pid]


def test_a_z_os_only_parameter_is_refused(pcf):
    raises(CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR, pcf.MQCMD_CHANGE_Q_MGR, {CMQC.MQIA_ADOPTNEWMCA_CHECK: 0})


# ---- MQSC ------------------------------------------------------------------------------------------
def _escape(pcf, text: str) -> list[str]:
    responses = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                  CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})
    out = []
    for r in responses:
        value = r[CMQCFC.MQCACF_ESCAPE_TEXT]
        out.append((value.decode() if isinstance(value, bytes) else value).rstrip())
    return out


def _displayed(lines: list[str]) -> dict[str, str]:
    """DISPLAY QMGR's KEYWORD(value) pairs (values without parentheses of their own)."""
    import re

    text = "\n".join(lines)
    return {k: v.strip() for k, v in re.findall(r"\b([A-Z0-9]+)\(((?:[^()]|\([^()]*\))*)\)", text)}


def test_alter_qmgr_sweep_and_display_qmgr_through_escape(tmp_path):
    with running_qmlite(tmp_path) as server:
        qm = _connect(server)
        pcf = ibmmq.PCFExecute(qm)
        try:
            for n in range(0, len(SWEEP), 8):
                chunk = " ".join(s.mqsc for s in SWEEP[n:n + 8])
                assert _escape(pcf, "ALTER QMGR " + chunk) == ["AMQ8005I: IBM MQ queue manager changed."]
            assert _escape(pcf, "ALTER QMGR " + " ".join(s.mqsc for s in REPOS_STEP)) == [
                "AMQ8005I: IBM MQ queue manager changed."]
            shown = _displayed(_escape(pcf, "DISPLAY QMGR ALL"))
            assert {s.keyword: shown.get(s.keyword) for s in FINAL} == {
                s.keyword: None if s.hidden else s.shown.strip() for s in FINAL}
        finally:
            pcf.disconnect()
            qm.disconnect()


def test_each_attribute_answers_alone_by_selector_and_by_display_keyword(pcf):
    """Every attribute Change Q Mgr takes is answered when asked for alone: Inquire Q Mgr with just its
    selector in QMgrAttrs gives the value the full inquiry gives, and DISPLAY QMGR with just its
    keyword shows it as DISPLAY QMGR ALL does (the write-only KEYRPWD and INITKEY in neither)."""
    [everything] = pcf.MQCMD_INQUIRE_Q_MGR()
    shown_all = _displayed(_escape(pcf, "DISPLAY QMGR ALL"))
    wrong = {}
    for s in EVERY:
        [alone] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [s.pid]})
        if (s.pid in alone, alone.get(s.pid)) != (not s.hidden, everything.get(s.pid)):
            wrong[(s.keyword, "Inquire")] = (alone.get(s.pid), everything.get(s.pid))
        shown = _displayed(_escape(pcf, f"DISPLAY QMGR {s.keyword}"))
        if shown.get(s.keyword) != shown_all.get(s.keyword) or (s.keyword in shown) == s.hidden:
            wrong[(s.keyword, "DISPLAY")] = (shown.get(s.keyword), shown_all.get(s.keyword))
    assert wrong == {}


def test_a_monitoring_agents_setup_runs_as_a_start_up_file(tmp_path):
    script = tmp_path / "monitoring.mqsc"
    script.write_text(MONITORING_SETUP)
    with running_qmlite(tmp_path / "data", mqsc_files=(script,), mqsc_strict=True) as server:
        qm = _connect(server)
        pcf = ibmmq.PCFExecute(qm)
        try:
            [qmgr] = pcf.MQCMD_INQUIRE_Q_MGR()
            assert {pid: qmgr[pid] for pid in (
                CMQC.MQIA_MONITORING_Q, CMQC.MQIA_MONITORING_CHANNEL, CMQC.MQIA_STATISTICS_INTERVAL,
                CMQC.MQIA_STATISTICS_Q, CMQC.MQIA_STATISTICS_MQI, CMQC.MQIA_STATISTICS_CHANNEL,
                CMQC.MQIA_ACCOUNTING_Q, CMQC.MQIA_ACCOUNTING_MQI, CMQC.MQIA_ACCOUNTING_INTERVAL,
                CMQC.MQIA_PERFORMANCE_EVENT, CMQC.MQIA_ACTIVITY_TRACE, CMQC.MQIA_CHANNEL_EVENT,
                CMQC.MQIA_COMMAND_EVENT, CMQC.MQIA_AUTHORITY_EVENT)} == {
                CMQC.MQIA_MONITORING_Q: CMQC.MQMON_MEDIUM, CMQC.MQIA_MONITORING_CHANNEL: CMQC.MQMON_MEDIUM,
                CMQC.MQIA_STATISTICS_INTERVAL: 60, CMQC.MQIA_STATISTICS_Q: CMQC.MQMON_ON,
                CMQC.MQIA_STATISTICS_MQI: CMQC.MQMON_ON, CMQC.MQIA_STATISTICS_CHANNEL: CMQC.MQMON_MEDIUM,
                CMQC.MQIA_ACCOUNTING_Q: CMQC.MQMON_ON, CMQC.MQIA_ACCOUNTING_MQI: CMQC.MQMON_ON,
                CMQC.MQIA_ACCOUNTING_INTERVAL: 60, CMQC.MQIA_PERFORMANCE_EVENT: CMQCFC.MQEVR_ENABLED,
                CMQC.MQIA_ACTIVITY_TRACE: CMQC.MQMON_ON, CMQC.MQIA_CHANNEL_EVENT: CMQCFC.MQEVR_ENABLED,
                CMQC.MQIA_COMMAND_EVENT: CMQCFC.MQEVR_ENABLED, CMQC.MQIA_AUTHORITY_EVENT: CMQCFC.MQEVR_ENABLED}
        finally:
            pcf.disconnect()
            qm.disconnect()


# ---- the attributes that act -------------------------------------------------------------------------
@pytest.fixture
def altered(pcf):
    """Change Q Mgr for one test; the attributes it set go back to their values afterwards."""
    changed: dict[int, object] = {}

    def alter(**by_id) -> None:
        values = {int(k[1:]): v for k, v in by_id.items()}
        [now] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: list(values)})
        for pid in values:
            changed.setdefault(pid, now[pid])
        assert pcf.MQCMD_CHANGE_Q_MGR(values) == []

    yield alter
    if changed:
        pcf.MQCMD_CHANGE_Q_MGR(changed)


def _q(pid: int) -> str:
    return f"_{pid}"


def _queue(qm, name=b"DEV.QUEUE.1",
           options=CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING):
    return ibmmq.Queue(qm, name, options)


def _drain(queue) -> None:
    while True:
        try:
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        except ibmmq.MQMIError as err:
            assert err.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return


def test_maxmsgl_limits_every_put(qmgr, altered):
    altered(**{_q(CMQC.MQIA_MAX_MSG_LENGTH): 32_768})  # the queue's own MAXMSGL stays 4 MB
    queue = _queue(qmgr)
    try:
        queue.put(b"x" * 32_768)  # exactly the limit
        raises(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR, queue.put, b"x" * 32_769)
        od = ibmmq.OD(ObjectName=b"DEV.QUEUE.1")
        raises(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR, qmgr.put1, od, b"x" * 40_000)
    finally:
        _drain(queue)
        queue.close()


def test_maxhands_limits_a_connections_open_handles(server, altered):
    altered(**{_q(CMQC.MQIA_MAX_HANDLES): 3})
    qm = _connect(server)
    opened = []
    try:
        for n in range(3):
            opened.append(_queue(qm, f"DEV.QUEUE.{n + 1}".encode(), CMQC.MQOO_INQUIRE))
        raises(CMQC.MQRC_HANDLE_NOT_AVAILABLE, _queue, qm, b"DEV.QUEUE.1", CMQC.MQOO_INQUIRE)
        opened.pop().close()
        opened.append(_queue(qm, b"DEV.QUEUE.3", CMQC.MQOO_INQUIRE))  # one freed, one more may open
    finally:
        for q in opened:
            q.close()
        qm.disconnect()


def test_maxumsgs_limits_a_unit_of_work(qmgr, altered):
    altered(**{_q(CMQC.MQIA_MAX_UNCOMMITTED_MSGS): 2})
    queue = _queue(qmgr)
    sync_put = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    try:
        queue.put(b"1", ibmmq.MD(), sync_put)
        queue.put(b"2", ibmmq.MD(), sync_put)
        raises(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED, queue.put, b"3", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        queue.put(b"3")  # outside the unit of work: not counted
        qmgr.commit()
        sync_get = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
        for _ in range(2):
            queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=sync_get))
        raises(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED, queue.get, None, ibmmq.MD(), ibmmq.GMO(Options=sync_get))
        qmgr.backout()
        assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 3  # the refused get took nothing
    finally:
        _drain(queue)
        queue.close()


def test_maxpropl_limits_a_messages_properties(qmgr, altered):
    altered(**{_q(CMQC.MQIA_MAX_PROPERTIES_LENGTH): 256})
    queue = _queue(qmgr)

    def put_with(value: str) -> None:
        handle = ibmmq.MessageHandle(qmgr)
        handle.properties.set("note", value)
        queue.put(b"body", ibmmq.MD(), ibmmq.PMO(Version=CMQC.MQPMO_VERSION_3, OriginalMsgHandle=handle.msg_handle))

    try:
        put_with("short")
        raises(CMQC.MQRC_PROPERTIES_TOO_BIG, put_with, "x" * 1_000)
        queue.put(b"no properties at all")
        assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2
        altered(**{_q(CMQC.MQIA_MAX_PROPERTIES_LENGTH): CMQC.MQPROP_UNRESTRICTED_LENGTH})
        put_with("x" * 1_000)  # NOLIMIT
    finally:
        _drain(queue)
        queue.close()


def test_psmode_disabled_inhibits_publish_subscribe_and_compat_does_not(qmgr, altered):
    def subscribe():
        sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
        sd.set_vs("ObjectString", "qmgrattrs/psmode")
        sub = ibmmq.Subscription(qmgr)
        sub.sub(sub_desc=sd)
        return sub

    def publish():
        topic = ibmmq.Topic(qmgr, topic_string="qmgrattrs/psmode")
        topic.open(open_opts=CMQC.MQOO_OUTPUT)
        try:
            topic.pub(b"tick")
        finally:
            topic.close()

    opened = ibmmq.Topic(qmgr, topic_string="qmgrattrs/psmode")
    opened.open(open_opts=CMQC.MQOO_OUTPUT)  # before the engine stops
    try:
        altered(**{_q(CMQC.MQIA_PUBSUB_MODE): CMQC.MQPSM_DISABLED})
        raises(CMQC.MQRC_PUBSUB_INHIBITED, subscribe)
        raises(CMQC.MQRC_PUBSUB_INHIBITED, publish)
        raises(CMQC.MQRC_PUBSUB_INHIBITED, opened.pub, b"tick")
        queue = _queue(qmgr)  # point to point is untouched
        queue.put(b"still works")
        _drain(queue)
        queue.close()
        altered(**{_q(CMQC.MQIA_PUBSUB_MODE): CMQC.MQPSM_COMPAT})  # only the queued interface stops
        sub = subscribe()
        publish()
        md = ibmmq.MD()
        assert sub.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT)) == b"tick"
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    finally:
        opened.close()


# ---- pymqi -------------------------------------------------------------------------------------------
def _pymqi():
    if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
        import pymqi
        return pymqi
    return pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")


def test_every_attribute_through_pymqi_and_over_a_restart(tmp_path):
    pymqi = _pymqi()

    def connect(server):
        qm = pymqi.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
        return qm, pymqi.PCFExecute(qm)

    with running_qmlite(tmp_path) as server:
        qm, pcf = connect(server)
        try:
            pcf.MQCMD_CHANGE_Q_MGR({s.pid: _wire(s) for s in SWEEP})
            pcf.MQCMD_CHANGE_Q_MGR({s.pid: _wire(s) for s in REPOS_STEP})
            [after] = pcf.MQCMD_INQUIRE_Q_MGR()
            _check(after, FINAL)
            with pytest.raises(pymqi.MQMIError) as info:
                pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_TREE_LIFE_TIME: 30})
            assert info.value.reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR
        finally:
            qm.disconnect()
    with running_qmlite(tmp_path) as server:
        qm, pcf = connect(server)
        try:
            [again] = pcf.MQCMD_INQUIRE_Q_MGR()
            _check(again, FINAL)
        finally:
            qm.disconnect()
