"""Queue and channel status the way pymqi-based monitoring agents ask for them, after real traffic.

Each request is sent as the public agent sends it: Datadog's ibm_mq check (integrations-core
``ibm_mq/datadog_checks/ibm_mq/collectors/queue_metric_collector.py``) asks Inquire Queue Status with
QType MQQT_ALL and QStatusAttrs MQIACF_ALL as one int (pymqi packs an MQCFIN), and Inquire Channel
Status with the channel name alone; other scripts ask for one instance attribute as an int.  The values
are checked after puts, gets and a unit of work; times against bounds that cannot be wrong (the
server runs on the wall clock here; tests/client/test_ibmmq_status_depth.py checks exact values on an
injected clock)."""

from __future__ import annotations

import math
import os
import time

import pytest

if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
    import pymqi
else:
    pymqi = pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

from pymqi import CMQC, CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.countingproxy import CountingProxy  # noqa: E402

ADMIN, APP = "DEV.ADMIN.SVRCONN", "DEV.APP.SVRCONN"
Q = b"PYMQI.STATUS.Q"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("pymqi-status")) as srv:
        yield srv


@pytest.fixture(scope="module")
def qmgr(server):
    qm = pymqi.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
    yield qm
    qm.disconnect()


@pytest.fixture(scope="module")
def pcf(qmgr):
    return pymqi.PCFExecute(qmgr)


@pytest.fixture(scope="module", autouse=True)
def status_queue(pcf):
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_MONITORING_Q: CMQC.MQMON_HIGH})
    yield
    pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: Q, CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})


def _text(value) -> str:
    return (value.decode() if isinstance(value, bytes) else str(value)).strip(" \x00")


def test_datadog_queue_status_request_after_traffic(server, qmgr, pcf):
    started = time.time()
    q = pymqi.Queue(qmgr, Q, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    other = pymqi.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
    uow = pymqi.Queue(other, Q, CMQC.MQOO_OUTPUT)
    try:
        for n in range(4):
            q.put(b"m%d" % n)
        q.get()
        uow.put(b"pending", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        for qtype in (CMQC.MQQT_ALL, CMQC.MQQT_MODEL):  # Datadog today, and its earlier releases
            response = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: qtype,
                                                   CMQCFC.MQIACF_Q_STATUS_ATTRS: CMQCFC.MQIACF_ALL})
            assert len(response) == 1
            s = response[0]
            elapsed = math.ceil(time.time() - started)
            assert s[CMQC.MQIA_CURRENT_Q_DEPTH] == 4          # three committed, one uncommitted put
            assert s[CMQCFC.MQIACF_UNCOMMITTED_MSGS] == 1
            assert 0 <= s[CMQCFC.MQIACF_OLDEST_MSG_AGE] <= elapsed
            short, long_ = s[CMQCFC.MQIACF_Q_TIME_INDICATOR]
            assert 0 <= long_ <= elapsed * 1_000_000 and 0 <= short <= elapsed * 1_000_000
            assert _text(s[CMQCFC.MQCACF_LAST_PUT_DATE]) and _text(s[CMQCFC.MQCACF_LAST_GET_TIME])
            assert (s[CMQC.MQIA_OPEN_INPUT_COUNT], s[CMQC.MQIA_OPEN_OUTPUT_COUNT]) == (1, 2)
        # one selector as an int, as pymqi scripts send it
        depth = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: Q,
                                            CMQCFC.MQIACF_Q_STATUS_ATTRS: CMQC.MQIA_CURRENT_Q_DEPTH})
        assert depth[0][CMQC.MQIA_CURRENT_Q_DEPTH] == 4 and CMQCFC.MQIACF_OLDEST_MSG_AGE not in depth[0]
        other.commit()
        after = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: Q, CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALL})[0]
        assert (after[CMQC.MQIA_CURRENT_Q_DEPTH], after[CMQCFC.MQIACF_UNCOMMITTED_MSGS]) == (4, 0)
    finally:
        uow.close()
        other.disconnect()
        q.close()


def test_channel_status_of_a_pymqi_connection_matches_its_socket(server, pcf):
    proxy = CountingProxy(server.port)
    try:
        app = pymqi.connect("QM1", APP, proxy.conn_name)
        (flow,) = proxy.connections
        q = pymqi.Queue(app, b"DEV.QUEUE.2", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        q.put(b"z" * 2000)
        q.get()
        rows = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: APP.encode()})  # Datadog's request
        assert len(rows) == 1 and rows[0][CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_RUNNING
        # every attribute, then one attribute as an int (as some scripts send MQIACH_CHANNEL_INSTANCE_ATTRS)
        full = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: APP.encode(),
                                                 CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS: [CMQCFC.MQIACF_ALL]})[0]
        assert full[CMQCFC.MQIACH_BYTES_RECEIVED] == flow.to_server.bytes
        assert full[CMQCFC.MQIACH_BYTES_SENT] == flow.to_client.bytes
        assert full[CMQCFC.MQIACH_BUFFERS_RECEIVED] == flow.to_server.segments
        assert full[CMQCFC.MQIACH_BUFFERS_SENT] == flow.to_client.segments
        assert full[CMQCFC.MQIACH_BYTES_RECEIVED] > 2000 and full[CMQCFC.MQIACH_BYTES_SENT] > 2000
        assert full[CMQCFC.MQIACH_MSGS] >= 4  # MQCONN, MQOPEN, MQPUT, MQGET at least
        one = pcf.MQCMD_INQUIRE_CHANNEL_STATUS({CMQCFC.MQCACH_CHANNEL_NAME: APP.encode(),
                                                CMQCFC.MQIACH_CHANNEL_INSTANCE_ATTRS: CMQCFC.MQIACH_MSGS})[0]
        assert one[CMQCFC.MQIACH_MSGS] == full[CMQCFC.MQIACH_MSGS] and CMQCFC.MQIACH_BYTES_SENT not in one
        q.close()
        app.disconnect()
    finally:
        proxy.close()


def test_blockuser_with_one_user_as_pymqi_sends_it(pcf):
    rule = {CMQCFC.MQCACH_CHANNEL_NAME: b"PYMQI.BLOCK.*", CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_BLOCKUSER,
            CMQCFC.MQCACH_MCA_USER_ID_LIST: b"nobody"}  # bytes: an MQCFST where IBM documents an MQCFSL
    pcf.MQCMD_SET_CHLAUTH_REC({**rule, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REPLACE})
    found = pcf.MQCMD_INQUIRE_CHLAUTH_RECS({CMQCFC.MQCACH_CHANNEL_NAME: b"PYMQI.BLOCK.*"})
    assert len(found) == 1 and found[0][CMQCFC.MQIACF_CHLAUTH_TYPE] == CMQCFC.MQCAUT_BLOCKUSER
    pcf.MQCMD_SET_CHLAUTH_REC({**rule, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVE})
    # pymqi's own tests/test_tls.py (and Datadog's ibm_mq test set-up) send explicit structures: the same
    attrs = [pymqi.CFST(Parameter=CMQCFC.MQCACH_CHANNEL_NAME, String=b"PYMQI.TLS.*"),
             pymqi.CFIN(Parameter=CMQCFC.MQIACF_CHLAUTH_TYPE, Value=CMQCFC.MQCAUT_BLOCKUSER),
             pymqi.CFST(Parameter=CMQCFC.MQCACH_MCA_USER_ID_LIST, String=b"nobody"),
             pymqi.CFIN(Parameter=CMQCFC.MQIACH_WARNING, Value=CMQC.MQWARN_NO),
             pymqi.CFIN(Parameter=CMQCFC.MQIACF_ACTION, Value=CMQCFC.MQACT_REPLACE)]
    pcf.MQCMD_SET_CHLAUTH_REC(attrs)
    assert len(pcf.MQCMD_INQUIRE_CHLAUTH_RECS({CMQCFC.MQCACH_CHANNEL_NAME: b"PYMQI.TLS.*"})) == 1
    pcf.MQCMD_SET_CHLAUTH_REC(attrs[:3] + [pymqi.CFIN(Parameter=CMQCFC.MQIACF_ACTION, Value=CMQCFC.MQACT_REMOVE)])


def test_pubsub_status_through_pymqi(pcf):
    found = pcf.MQCMD_INQUIRE_PUBSUB_STATUS({CMQCFC.MQIACF_PUBSUB_STATUS_ATTRS: CMQCFC.MQIACF_ALL})
    assert len(found) == 1
    assert found[0][CMQCFC.MQIACF_PS_STATUS_TYPE] == CMQCFC.MQPSST_LOCAL and found[0][CMQC.MQIA_SUB_COUNT] >= 1
