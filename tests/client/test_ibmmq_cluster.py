"""A one-queue-manager cluster through IBM's ``ibmmq``: IBM's full-repository set-up script as an MQSC
start-up file and the same through PCF, read back by DISPLAY CLUSQMGR / QCLUSTER and the PCF
inquiries; put and get on the clustered queue; persistence over a restart; every cluster attribute
(sweep) and bad values with IBM's reasons."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQC, CMQCFC, CMQXC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402

# IBM, "Setting up a new cluster": the full repository's definitions, a clustered queue and topic,
# and a second cluster the queue manager joins through a namelist (the CLUSNL variant).
SCRIPT = """\
ALTER QMGR REPOS(CL1)
DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('127.0.0.1(1414)') CLUSTER(CL1) +
       DESCR('Cluster-receiver channel for QM1')
DEFINE CHANNEL(TO.QM2) CHLTYPE(CLUSSDR) TRPTYPE(TCP) CONNAME('127.0.0.1(1415)') CLUSTER(CL1) +
       DESCR('Cluster-sender channel from QM1 to repository at QM2')
DEFINE QLOCAL(APP.Q) CLUSTER(CL1) DEFBIND(NOTFIXED) CLWLPRTY(5) DEFPSIST(YES)
DEFINE TOPIC(APP.TOPIC) TOPICSTR('app/prices') CLUSTER(CL1) CLROUTE(TOPICHOST)
DEFINE NAMELIST(APP.CLUSTERS) NAMES(CL2, CL3)
DEFINE CHANNEL(TO.QM1.NL) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) CONNAME('127.0.0.1(1414)') CLUSNL(APP.CLUSTERS)
DEFINE QALIAS(APP.ALIAS) TARGET(APP.Q) CLUSNL(APP.CLUSTERS) CLWLRANK(7)
"""
TEMP = "SYSTEM.TEMPQMGR.127.0.0.1(1415)"
CMQXC_CLUSRCVR, CMQXC_CLUSSDR = CMQXC.MQCHT_CLUSRCVR, CMQXC.MQCHT_CLUSSDR


def _s(value) -> str:
    return (value.decode() if isinstance(value, bytes) else value).rstrip()


def _escape(pcf, text: str) -> list[str]:
    out = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC, CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})
    return [line for r in out for line in _s(r[CMQCFC.MQCACF_ESCAPE_TEXT]).splitlines()]


def _connect(server):
    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", server.conn_name, "admin", "passw0rd")
    return qm, ibmmq.PCFExecute(qm)


def _clusqmgrs(pcf) -> list[tuple[str, str, str, int, int]]:
    rows = pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR({CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"*",
                                           CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS: [CMQCFC.MQIACF_ALL]})
    return [(_s(r[CMQC.MQCA_CLUSTER_Q_MGR_NAME]), _s(r[CMQCFC.MQCACH_CHANNEL_NAME]), _s(r[CMQC.MQCA_CLUSTER_NAME]),
             r[CMQCFC.MQIACF_Q_MGR_DEFINITION_TYPE], r[CMQCFC.MQIACF_Q_MGR_TYPE]) for r in rows]


EXPECTED_CLUSQMGRS = [
    ("QM1", "TO.QM1", "CL1", CMQCFC.MQQMDT_CLUSTER_RECEIVER, CMQCFC.MQQMT_REPOSITORY),
    (TEMP, "TO.QM2", "CL1", CMQCFC.MQQMDT_EXPLICIT_CLUSTER_SENDER, CMQCFC.MQQMT_REPOSITORY),
    ("QM1", "TO.QM1.NL", "CL2", CMQCFC.MQQMDT_CLUSTER_RECEIVER, CMQCFC.MQQMT_NORMAL),
    ("QM1", "TO.QM1.NL", "CL3", CMQCFC.MQQMDT_CLUSTER_RECEIVER, CMQCFC.MQQMT_NORMAL),
]


def _cluster_queues(pcf) -> list[tuple[str, str, str, int]]:
    rows = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_CLUSTER})
    return [(_s(r[CMQC.MQCA_Q_NAME]), _s(r[CMQC.MQCA_CLUSTER_NAME]), _s(r[CMQC.MQCA_CLUSTER_Q_MGR_NAME]),
             r[CMQC.MQIA_CLUSTER_Q_TYPE]) for r in rows]


EXPECTED_QUEUES = [("APP.ALIAS", "CL2", "QM1", CMQC.MQCQT_ALIAS_Q), ("APP.ALIAS", "CL3", "QM1", CMQC.MQCQT_ALIAS_Q),
                   ("APP.Q", "CL1", "QM1", CMQC.MQCQT_LOCAL_Q)]


def _check_cluster(pcf) -> None:
    assert _clusqmgrs(pcf) == EXPECTED_CLUSQMGRS
    assert _cluster_queues(pcf) == EXPECTED_QUEUES
    [topic] = pcf.MQCMD_INQUIRE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"APP.TOPIC"})
    assert (_s(topic[CMQC.MQCA_CLUSTER_NAME]), topic[CMQC.MQIA_CLUSTER_PUB_ROUTE]) == ("CL1",
                                                                                       CMQCFC.MQCLROUTE_TOPIC_HOST)


def _put_get(qm, text: bytes, *, qmgr_name: str = "") -> None:
    """Put and get on the clustered queue as on a local one (by name, or with this queue manager's name)."""
    od = ibmmq.OD(ObjectName=b"APP.Q", ObjectQMgrName=qmgr_name.encode())
    out = ibmmq.Queue(qm, od, CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_AS_Q_DEF)
    out.put(text)
    out.close()
    q = ibmmq.Queue(qm, b"APP.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert q.get() == text
    q.close()


def test_ibms_full_repository_script_as_a_startup_file_then_display_put_get_and_restart(tmp_path):
    script = tmp_path / "30-cluster.mqsc"
    script.write_text(SCRIPT)
    data = tmp_path / "data"
    with running_qmlite(data, mqsc_files=(script,), mqsc_strict=True) as server:
        qm, pcf = _connect(server)
        try:
            _check_cluster(pcf)
            shown = _escape(pcf, "DISPLAY CLUSQMGR(*) QMTYPE DEFTYPE")
            assert shown[:4] == ["AMQ8441I: Display Cluster Queue Manager details.",
                                 "   CLUSQMGR(QM1)                           CHANNEL(TO.QM1)",
                                 "   CLUSTER(CL1)                            DEFTYPE(CLUSRCVR)",
                                 "   QMTYPE(REPOS)"]
            assert shown[4:8] == ["AMQ8441I: Display Cluster Queue Manager details.",
                                  f"   CLUSQMGR({TEMP})",
                                  "   CHANNEL(TO.QM2)                         CLUSTER(CL1)",
                                  "   DEFTYPE(CLUSSDR)                        QMTYPE(REPOS)"]
            assert _escape(pcf, "DISPLAY QCLUSTER(APP.Q) CLUSTER DEFBIND CLWLPRTY") == [
                "AMQ8409I: Display Queue details.",
                "   QUEUE(APP.Q)                            TYPE(QCLUSTER)",
                "   CLUSQMGR(QM1)                           CLUSTER(CL1)",
                "   CLWLPRTY(5)                             DEFBIND(NOTFIXED)"]
            _put_get(qm, b"by name")
            _put_get(qm, b"with this queue manager's name", qmgr_name="QM1")
            out = ibmmq.Queue(qm, b"APP.Q", CMQC.MQOO_OUTPUT)
            out.put(b"kept over the restart")  # DEFPSIST(YES): persistent as the queue's default
            out.close()
            assert _escape(pcf, "SUSPEND QMGR CLUSTER(CL1)") == [
                "AMQ8559I: Suspend Queue Manager Cluster command accepted."]
        finally:
            pcf.disconnect()
            qm.disconnect()
    with running_qmlite(data) as server:  # a restart, without the script
        qm, pcf = _connect(server)
        try:
            _check_cluster(pcf)
            [local] = pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR({CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"QM1",
                                                      CMQC.MQCA_CLUSTER_NAME: b"CL1",
                                                      CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS: [CMQCFC.MQIACF_SUSPEND]})
            assert local[CMQCFC.MQIACF_SUSPEND] == CMQCFC.MQSUS_YES
            q = ibmmq.Queue(qm, b"APP.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
            assert q.get() == b"kept over the restart"
            q.close()
        finally:
            pcf.disconnect()
            qm.disconnect()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-cluster")) as srv:
        yield srv


def test_the_same_cluster_through_pcf(pcf, qmgr):
    pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_REPOSITORY_NAME: b"CL1"})
    pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"TO.QM1", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC_CLUSRCVR,
                              CMQCFC.MQCACH_CONNECTION_NAME: b"127.0.0.1(1414)", CMQC.MQCA_CLUSTER_NAME: b"CL1",
                              CMQCFC.MQCACH_DESC: b"Cluster-receiver channel for QM1"})
    pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"TO.QM2", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC_CLUSSDR,
                              CMQCFC.MQCACH_CONNECTION_NAME: b"127.0.0.1(1415)", CMQC.MQCA_CLUSTER_NAME: b"CL1"})
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"APP.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQCA_CLUSTER_NAME: b"CL1",
                        CMQC.MQIA_DEF_BIND: CMQC.MQBND_BIND_NOT_FIXED, CMQC.MQIA_CLWL_Q_PRIORITY: 5})
    pcf.MQCMD_CREATE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"APP.TOPIC", CMQC.MQCA_TOPIC_STRING: b"app/prices",
                            CMQC.MQCA_CLUSTER_NAME: b"CL1", CMQC.MQIA_CLUSTER_PUB_ROUTE: CMQCFC.MQCLROUTE_TOPIC_HOST})
    pcf.MQCMD_CREATE_NAMELIST({CMQC.MQCA_NAMELIST_NAME: b"APP.CLUSTERS", CMQC.MQCA_NAMES: [b"CL2", b"CL3"]})
    pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"TO.QM1.NL", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC_CLUSRCVR,
                              CMQCFC.MQCACH_CONNECTION_NAME: b"127.0.0.1(1414)",
                              CMQC.MQCA_CLUSTER_NAMELIST: b"APP.CLUSTERS"})
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"APP.ALIAS", CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS,
                        CMQC.MQCA_BASE_Q_NAME: b"APP.Q", CMQC.MQCA_CLUSTER_NAMELIST: b"APP.CLUSTERS",
                        CMQC.MQIA_CLWL_Q_RANK: 7})
    _check_cluster(pcf)
    [temp] = pcf.MQCMD_INQUIRE_CLUSTER_Q_MGR({CMQC.MQCA_CLUSTER_Q_MGR_NAME: b"SYSTEM.TEMPQMGR.*"})
    assert _s(temp[CMQCFC.MQCACH_CHANNEL_NAME]) == "TO.QM2"
    _put_get(qmgr, b"through pcf")
    # the cluster commands are accepted as IBM accepts them
    for command, params in ((pcf.MQCMD_SUSPEND_Q_MGR_CLUSTER, {CMQC.MQCA_CLUSTER_NAMELIST: b"APP.CLUSTERS"}),
                            (pcf.MQCMD_RESUME_Q_MGR_CLUSTER, {CMQC.MQCA_CLUSTER_NAMELIST: b"APP.CLUSTERS"}),
                            (pcf.MQCMD_REFRESH_CLUSTER, {CMQC.MQCA_CLUSTER_NAME: b"*"}),
                            (pcf.MQCMD_RESET_CLUSTER, {CMQC.MQCA_CLUSTER_NAME: b"CL1",
                                                       CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_FORCE_REMOVE,
                                                       CMQC.MQCA_Q_MGR_NAME: b"QM2"})):
        assert command(params) == []


# (object, attribute, valid non-default value, invalid value, IBM's reason for it)
SWEEP = [
    ("channel", CMQC.MQCA_CLUSTER_NAME, b"CL.SWEEP", b"BAD NAME", CMQCFC.MQRCCF_OBJECT_NAME_ERROR),
    ("channel", CMQC.MQCA_CLUSTER_NAMELIST, b"NL.SWEEP", b"X" * 49, CMQCFC.MQRCCF_CFST_STRING_LENGTH_ERR),
    ("channel", CMQCFC.MQCACH_CONNECTION_NAME, b"host.example(1416)", b"X" * 265, CMQCFC.MQRCCF_CFST_STRING_LENGTH_ERR),
    ("channel", CMQCFC.MQIACH_NETWORK_PRIORITY, 9, 10, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("channel", CMQCFC.MQIACH_CLWL_CHANNEL_PRIORITY, 9, 10, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("channel", CMQCFC.MQIACH_CLWL_CHANNEL_RANK, 9, -1, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("channel", CMQCFC.MQIACH_CLWL_CHANNEL_WEIGHT, 99, 0, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("queue", CMQC.MQCA_CLUSTER_NAME, b"CL.SWEEP", b"BAD NAME", CMQCFC.MQRCCF_OBJECT_NAME_ERROR),
    ("queue", CMQC.MQCA_CLUSTER_NAMELIST, b"NL.SWEEP", b"X" * 49, CMQCFC.MQRCCF_CFST_STRING_LENGTH_ERR),
    ("queue", CMQC.MQIA_DEF_BIND, CMQC.MQBND_BIND_ON_GROUP, 3, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("queue", CMQC.MQIA_CLWL_Q_PRIORITY, 9, 10, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("queue", CMQC.MQIA_CLWL_Q_RANK, 9, 10, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("queue", CMQC.MQIA_CLWL_USEQ, CMQC.MQCLWL_USEQ_ANY, 5, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("topic", CMQC.MQCA_CLUSTER_NAME, b"CL.SWEEP", b"BAD NAME", CMQCFC.MQRCCF_OBJECT_NAME_ERROR),
    ("topic", CMQC.MQIA_CLUSTER_PUB_ROUTE, CMQCFC.MQCLROUTE_TOPIC_HOST, 5, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("topic", CMQC.MQIA_PUB_SCOPE, CMQC.MQSCOPE_QMGR, 3, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
    ("topic", CMQC.MQIA_SUB_SCOPE, CMQC.MQSCOPE_QMGR, 3, CMQCFC.MQRCCF_PARM_VALUE_ERROR),
]
_OBJECTS = {
    "channel": ("MQCMD_CHANGE_CHANNEL", "MQCMD_INQUIRE_CHANNEL",
                {CMQCFC.MQCACH_CHANNEL_NAME: b"SWEEP.RCVR", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC_CLUSRCVR}),
    "queue": ("MQCMD_CHANGE_Q", "MQCMD_INQUIRE_Q", {CMQC.MQCA_Q_NAME: b"SWEEP.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}),
    "topic": ("MQCMD_CHANGE_TOPIC", "MQCMD_INQUIRE_TOPIC", {CMQC.MQCA_TOPIC_NAME: b"SWEEP.T"}),
}


@pytest.fixture(scope="module")
def sweep_objects(pcf):
    pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"SWEEP.RCVR", CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC_CLUSRCVR})
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"SWEEP.Q", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    pcf.MQCMD_CREATE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"SWEEP.T", CMQC.MQCA_TOPIC_STRING: b"sweep/t"})


@pytest.mark.parametrize("kind, pid, good, bad, reason", SWEEP,
                         ids=[f"{k}-{pid}" for k, pid, *_ in SWEEP])
def test_every_cluster_attribute_is_accepted_read_back_and_checked(pcf, sweep_objects, kind, pid, good, bad, reason):
    change, inquire, key = _OBJECTS[kind]
    clear = {}
    if pid == CMQC.MQCA_CLUSTER_NAMELIST:
        clear = {CMQC.MQCA_CLUSTER_NAME: b""}  # CLUSTER and CLUSNL are never both set
    elif pid == CMQC.MQCA_CLUSTER_NAME:
        clear = {CMQC.MQCA_CLUSTER_NAMELIST: b""} if kind != "topic" else {}
    if kind == "topic" and pid == CMQC.MQIA_CLUSTER_PUB_ROUTE:
        clear = {CMQC.MQCA_CLUSTER_NAME: b""}  # CLROUTE changes only outside a cluster
    getattr(pcf, change)({**key, **clear, pid: good})
    name = {k: v for k, v in key.items() if isinstance(v, bytes)}
    [obj] = getattr(pcf, inquire)(name)
    got = obj[pid]
    assert (_s(got) if isinstance(got, bytes) else got) == (_s(good) if isinstance(good, bytes) else good)
    raises(reason, getattr(pcf, change), {**key, pid: bad})
