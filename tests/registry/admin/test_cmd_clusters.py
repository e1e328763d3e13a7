"""A one-queue-manager cluster through the command engine: cluster channels (every attribute IBM
documents for CLUSSDR and CLUSRCVR), the cluster attributes of queues and topics, Inquire Cluster
Queue Manager and cluster queues, the cluster commands, and what survives a restart."""

from __future__ import annotations

import dataclasses

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.admin.commands import channels as channelcmds
from qmlite.registry.admin.params import INT, INT_LIST, STR, STR_LIST
from qmlite.registry.mqsc import keywords as K
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import clusters as CL
from qmlite.registry.objects import values as V
from tests.support.pcfkit import Harness, command, failed, i, il, st

NAME, TYPE = C.MQCACH_CHANNEL_NAME, C.MQIACH_CHANNEL_TYPE
CLUSQMGR, CLUSTER, CLUSNL = C.MQCA_CLUSTER_Q_MGR_NAME, C.MQCA_CLUSTER_NAME, C.MQCA_CLUSTER_NAMELIST
TEMP = "SYSTEM.TEMPQMGR.127.0.0.1(1415)"


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path)
    yield harness
    harness.close()


def run(h, cmd, *params):
    return h.run(command(cmd, *params))


def repos(h, cluster="", namelist=""):
    """REPOS/REPOSNL (made writable by ALTER QMGR on another branch): set on the model directly."""
    h.registry.qmgr.repository_name = cluster
    h.registry.qmgr.repository_namelist = namelist


def setup_cluster(h):
    assert run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "TO.QM1"), i(TYPE, M.CLUSRCVR),
               st(C.MQCACH_CONNECTION_NAME, "127.0.0.1(1414)"), st(CLUSTER, "CL1")).ok
    assert run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "TO.QM2"), i(TYPE, M.CLUSSDR),
               st(C.MQCACH_CONNECTION_NAME, "127.0.0.1(1415)"), st(CLUSTER, "CL1")).ok
    assert run(h, C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "APP.Q"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
               st(CLUSTER, "CL1"), i(C.MQIA_DEF_BIND, C.MQBND_BIND_NOT_FIXED), i(C.MQIA_CLWL_Q_PRIORITY, 4)).ok


def clusqmgrs(h, name="*", *params):
    return run(h, C.MQCMD_INQUIRE_CLUSTER_Q_MGR, st(CLUSQMGR, name), *params)


# ---- cluster channels: every attribute --------------------------------------------------------------
def _valid(spec, default):
    """A valid value for ``spec`` that differs from ``default`` (data-driven from the channel specs)."""
    p = spec.param
    if spec.field in ("cluster_name", "cluster_namelist"):
        return "CL.SWEEP"
    if spec.field == "ssl_cipher_spec":
        return "ANY_TLS12_OR_HIGHER"  # SSLCIPH takes IBM's CipherSpec names only (docs/tls.md)
    if spec.field == "ssl_peer_name":
        return "CN=SWEEP"  # SSLPEER takes a DN pattern only
    if spec.field == "header_compression":
        return (V.MQCOMPRESS_SYSTEM,)
    if spec.field == "message_compression":
        return (V.MQCOMPRESS_RLE, V.MQCOMPRESS_ZLIBFAST)
    # SSLCIPH and SSLPEER are checked at define (the tls branch): a CipherSpec IBM lists, a DN pattern
    if spec.field == "ssl_cipher_spec":
        return "ANY_TLS12_OR_HIGHER"
    if spec.field == "ssl_peer_name":
        return "CN=SWEEP"
    if p.kind == INT:
        if p.values is not None:
            return min(v for v in p.values if v != default)
        return p.low if p.low != default else p.low + 1
    if p.kind == STR:
        return "X" * min(p.max_length or 8, 8) if spec.field != "conn_name" else "host.example(1416)"
    if p.kind == STR_LIST:
        return ("EXIT1",)
    raise AssertionError(spec)


def _param(spec, value):
    pid = spec.param.id
    if spec.param.kind == INT:
        return i(pid, value)
    if spec.param.kind == INT_LIST:
        return il(pid, *value)
    if spec.param.kind == STR_LIST:
        return P.CFSL(pid, value)
    return st(pid, value)


def _shown(spec, value):
    if spec.field == "password":
        return "********"
    if spec.param.kind == STR_LIST:
        return tuple(value)
    return value


@pytest.mark.parametrize("chltype", [M.CLUSSDR, M.CLUSRCVR])
def test_every_cluster_channel_attribute_is_accepted_persisted_and_read_back(tmp_path, chltype):
    specs = [s for s in channelcmds.SPECS if s.applies(chltype)]
    assert {"cluster_name", "cluster_namelist", "clwl_rank", "clwl_priority", "clwl_weight", "conn_name"} <= {
        s.field for s in specs}
    assert ("network_priority" in {s.field for s in specs}) == (chltype == M.CLUSRCVR)
    h = Harness(tmp_path)
    expected = {}
    assert run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "SWEEP"), i(TYPE, chltype),
               st(C.MQCACH_CONNECTION_NAME, "h(1)")).ok
    base = M.new("SWEEP", chltype)
    for spec in specs:
        value = _valid(spec, getattr(base, spec.field))
        extra = [st(CLUSTER, "")] if spec.field == "cluster_namelist" else []
        reply = run(h, C.MQCMD_CHANGE_CHANNEL, st(NAME, "SWEEP"), i(TYPE, chltype), *extra, _param(spec, value))
        assert reply.ok, (spec.field, reply.reason)
        expected[spec.param.id] = _shown(spec, value)
    expected[CLUSTER] = ""  # the last CLUSNL change cleared it
    h.close()
    h = Harness(tmp_path)  # a restart
    try:
        [obj] = run(h, C.MQCMD_INQUIRE_CHANNEL, st(NAME, "SWEEP")).objects
        got = {pid: (tuple(v.rstrip() for v in obj[pid]) if isinstance(obj[pid], tuple) and obj[pid]
                     and isinstance(obj[pid][0], str) else obj[pid]) for pid in expected}
        assert got == expected
        # what the type does not have is neither accepted nor shown
        assert C.MQCACH_XMIT_Q_NAME not in obj and C.MQIACH_SHARING_CONVERSATIONS not in obj
    finally:
        h.close()


def test_every_cluster_channel_attribute_has_its_mqsc_keyword():
    pids = {s.param.id for s in channelcmds.SPECS if s.applies(M.CLUSSDR) or s.applies(M.CLUSRCVR)}
    missing = {pid for pid in pids if K.CHANNEL.for_id(pid) is None}
    assert not missing
    # DISPLAY CLUSQMGR shows the channel attributes under the same keywords
    assert all(K.CLUSQMGR.for_id(pid) is not None for pid in pids)


@pytest.mark.parametrize("chltype, param, reason", [
    (M.CLUSSDR, i(C.MQIACH_NETWORK_PRIORITY, 1), C.MQRCCF_WRONG_CHANNEL_TYPE),  # NETPRTY: CLUSRCVR only
    (M.CLUSRCVR, st(C.MQCACH_XMIT_Q_NAME, "XQ"), C.MQRCCF_WRONG_CHANNEL_TYPE),
    (M.CLUSRCVR, st(C.MQCACH_USER_ID, "u"), C.MQRCCF_WRONG_CHANNEL_TYPE),
    (M.CLUSSDR, i(C.MQIACH_PUT_AUTHORITY, V.MQPA_CONTEXT), C.MQRCCF_WRONG_CHANNEL_TYPE),
    (M.CLUSRCVR, i(C.MQIACH_CLWL_CHANNEL_WEIGHT, 0), C.MQRCCF_PARM_VALUE_ERROR),  # 1-99
    (M.CLUSRCVR, i(C.MQIACH_CLWL_CHANNEL_WEIGHT, 100), C.MQRCCF_PARM_VALUE_ERROR),
    (M.CLUSSDR, i(C.MQIACH_CLWL_CHANNEL_PRIORITY, 10), C.MQRCCF_PARM_VALUE_ERROR),  # 0-9
    (M.CLUSSDR, i(C.MQIACH_CLWL_CHANNEL_RANK, -1), C.MQRCCF_PARM_VALUE_ERROR),
    (M.CLUSRCVR, i(C.MQIACH_NETWORK_PRIORITY, 10), C.MQRCCF_PARM_VALUE_ERROR),
    (M.CLUSRCVR, st(CLUSTER, "X" * 49), C.MQRCCF_CFST_STRING_LENGTH_ERR),
])
def test_bad_cluster_channel_values_get_ibms_reasons(h, chltype, param, reason):
    reply = run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "BAD"), i(TYPE, chltype),
                st(C.MQCACH_CONNECTION_NAME, "h(1)"), param)
    assert failed(reply, reason, param.parameter)


def test_cluster_and_clusnl_together_conflict_and_a_clussdr_needs_a_conname(h):
    assert failed(run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "BOTH"), i(TYPE, M.CLUSRCVR), st(CLUSTER, "A"),
                      st(CLUSNL, "NL")), C.MQRCCF_CLUSTER_NAME_CONFLICT, CLUSTER)
    assert failed(run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "NOCONN"), i(TYPE, M.CLUSSDR), st(CLUSTER, "A")),
                  C.MQRCCF_MISSING_CONN_NAME, C.MQCACH_CONNECTION_NAME)
    # a cluster-receiver may leave CONNAME blank (IBM fills in the host's address)
    assert run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "RCV"), i(TYPE, M.CLUSRCVR), st(CLUSTER, "A")).ok
    assert failed(run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "BADNAME"), i(TYPE, M.CLUSRCVR), st(CLUSTER, "A B")),
                  C.MQRCCF_OBJECT_NAME_ERROR, CLUSTER)


# ---- queues and topics -------------------------------------------------------------------------
def test_queue_cluster_attribute_rules(h):
    q = (st(C.MQCA_Q_NAME, "CQ"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL))
    assert failed(run(h, C.MQCMD_CREATE_Q, *q, st(CLUSTER, "A"), st(CLUSNL, "NL")),
                  C.MQRCCF_CLUSTER_NAME_CONFLICT, CLUSTER)
    assert failed(run(h, C.MQCMD_CREATE_Q, *q, st(CLUSTER, "A"), i(C.MQIA_USAGE, C.MQUS_TRANSMISSION)),
                  C.MQRCCF_CLUSTER_Q_USAGE_ERROR)
    assert failed(run(h, C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "SYSTEM.CLUSTER.COMMAND.QUEUE"),
                      i(C.MQIA_Q_TYPE, C.MQQT_LOCAL), st(CLUSTER, "A")), C.MQRCCF_CLUSTER_Q_USAGE_ERROR)
    assert failed(run(h, C.MQCMD_CREATE_Q, *q, i(C.MQIA_CLWL_Q_PRIORITY, 10)), C.MQRCCF_PARM_VALUE_ERROR,
                  C.MQIA_CLWL_Q_PRIORITY)
    assert failed(run(h, C.MQCMD_CREATE_Q, *q, i(C.MQIA_CLWL_USEQ, 7)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_CLWL_USEQ)
    assert failed(run(h, C.MQCMD_CREATE_Q, *q, i(C.MQIA_DEF_BIND, 3)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIA_DEF_BIND)
    # an alias queue has every cluster attribute but CLWLUSEQ
    alias = (st(C.MQCA_Q_NAME, "CA"), i(C.MQIA_Q_TYPE, C.MQQT_ALIAS), st(C.MQCA_BASE_Q_NAME, "CQ"))
    assert failed(run(h, C.MQCMD_CREATE_Q, *alias, i(C.MQIA_CLWL_USEQ, C.MQCLWL_USEQ_ANY)),
                  C.MQRCCF_CFIN_PARM_ID_ERROR, C.MQIA_CLWL_USEQ)
    sweep = (st(CLUSTER, "CL1"), i(C.MQIA_DEF_BIND, C.MQBND_BIND_ON_GROUP), i(C.MQIA_CLWL_Q_PRIORITY, 9),
             i(C.MQIA_CLWL_Q_RANK, 9))
    assert run(h, C.MQCMD_CREATE_Q, *alias, *sweep).ok
    assert run(h, C.MQCMD_CREATE_Q, *q, *sweep, i(C.MQIA_CLWL_USEQ, C.MQCLWL_USEQ_LOCAL)).ok
    for name, qtype in (("CQ", C.MQQT_LOCAL), ("CA", C.MQQT_ALIAS)):
        [obj] = run(h, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, name), i(C.MQIA_Q_TYPE, qtype)).objects
        assert [obj[p.parameter] for p in sweep] == ["CL1", C.MQBND_BIND_ON_GROUP, 9, 9]


def _topic(h, *params, name="CT", string="clus/t", cmd=C.MQCMD_CREATE_TOPIC):
    return run(h, cmd, st(C.MQCA_TOPIC_NAME, name), st(C.MQCA_TOPIC_STRING, string), *params)


def test_clustered_topics_are_defined_shown_resolved_and_kept(tmp_path):
    h = Harness(tmp_path)
    assert _topic(h, st(CLUSTER, "CL1"), i(C.MQIA_CLUSTER_PUB_ROUTE, C.MQCLROUTE_TOPIC_HOST),
                  i(C.MQIA_PUB_SCOPE, C.MQSCOPE_QMGR), i(C.MQIA_SUB_SCOPE, C.MQSCOPE_ALL)).ok
    assert failed(_topic(h, i(C.MQIA_CLUSTER_PUB_ROUTE, 7), name="BAD", string="bad"), C.MQRCCF_PARM_VALUE_ERROR,
                  C.MQIA_CLUSTER_PUB_ROUTE)
    # CLROUTE is fixed while the topic is in a cluster; taking it out and changing both is allowed
    assert failed(run(h, C.MQCMD_CHANGE_TOPIC, st(C.MQCA_TOPIC_NAME, "CT"),
                      i(C.MQIA_CLUSTER_PUB_ROUTE, C.MQCLROUTE_DIRECT)),
                  C.MQRCCF_CLROUTE_NOT_ALTERABLE, C.MQIA_CLUSTER_PUB_ROUTE)
    h.close()
    h = Harness(tmp_path)
    try:
        [obj] = run(h, C.MQCMD_INQUIRE_TOPIC, st(C.MQCA_TOPIC_NAME, "CT")).objects
        assert (obj[CLUSTER], obj[C.MQIA_CLUSTER_PUB_ROUTE], obj[C.MQIA_CLUSTER_OBJECT_STATE],
                obj[C.MQIA_PUB_SCOPE], obj[C.MQIA_TOPIC_TYPE]) == (
            "CL1", C.MQCLROUTE_TOPIC_HOST, C.MQCLST_ACTIVE, C.MQSCOPE_QMGR, C.MQTOPT_LOCAL)
        [as_cluster] = run(h, C.MQCMD_INQUIRE_TOPIC, st(C.MQCA_TOPIC_NAME, "*"),
                           i(C.MQIA_TOPIC_TYPE, C.MQTOPT_CLUSTER)).objects
        assert (as_cluster[C.MQCA_TOPIC_NAME], as_cluster[C.MQIA_TOPIC_TYPE]) == ("CT", C.MQTOPT_CLUSTER)
        # a node below the clustered topic object is in its cluster, with its route
        assert _topic(h, name="BELOW", string="clus/t/below").ok
        [status] = run(h, C.MQCMD_INQUIRE_TOPIC_STATUS, st(C.MQCA_TOPIC_STRING, "clus/t/below")).objects
        assert (status[CLUSTER], status[C.MQIA_CLUSTER_PUB_ROUTE]) == ("CL1", C.MQCLROUTE_TOPIC_HOST)
        assert run(h, C.MQCMD_CHANGE_TOPIC, st(C.MQCA_TOPIC_NAME, "CT"), st(CLUSTER, ""),
                   i(C.MQIA_CLUSTER_PUB_ROUTE, C.MQCLROUTE_DIRECT)).ok
        [status] = run(h, C.MQCMD_INQUIRE_TOPIC_STATUS, st(C.MQCA_TOPIC_STRING, "clus/t/below")).objects
        assert (status[CLUSTER], status[C.MQIA_CLUSTER_PUB_ROUTE]) == ("", C.MQCLROUTE_DIRECT)
    finally:
        h.close()


# ---- Inquire Cluster Queue Manager -------------------------------------------------------------------
def test_outside_every_cluster_nothing_is_found(h):
    assert failed(clusqmgrs(h), C.MQRC_UNKNOWN_OBJECT_NAME)
    assert failed(run(h, C.MQCMD_INQUIRE_CLUSTER_Q_MGR), C.MQRCCF_PARM_MISSING, CLUSQMGR)


def test_a_full_repository_alone_shows_itself_and_its_clussdr_targets(h):
    repos(h, "CL1")
    setup_cluster(h)
    local, temp = clusqmgrs(h, "*", il(C.MQIACF_CLUSTER_Q_MGR_ATTRS, C.MQIACF_ALL)).objects
    qm = h.registry.qmgr
    assert (local[CLUSQMGR], local[NAME], local[CLUSTER]) == ("QM1", "TO.QM1", "CL1")
    assert local[C.MQIACF_Q_MGR_DEFINITION_TYPE] == CL.MQQMDT_CLUSTER_RECEIVER
    assert local[C.MQIACF_Q_MGR_TYPE] == CL.MQQMT_REPOSITORY
    assert local[C.MQCA_Q_MGR_IDENTIFIER] == qm.identifier
    assert local[C.MQIACF_SUSPEND] == CL.MQSUS_NO
    assert local[C.MQCACH_CONNECTION_NAME] == "127.0.0.1(1414)"
    assert local[C.MQIACH_CLWL_CHANNEL_WEIGHT] == 50 and C.MQIACH_NETWORK_PRIORITY in local
    assert C.MQIACH_CHANNEL_STATUS not in local  # IBM returns no channel status for the CLUSRCVR entry
    assert len(local[C.MQCA_CLUSTER_DATE]) == 10 and len(local[C.MQCA_CLUSTER_TIME]) == 8
    assert (temp[CLUSQMGR], temp[NAME], temp[CLUSTER]) == (TEMP, "TO.QM2", "CL1")
    assert temp[C.MQIACF_Q_MGR_DEFINITION_TYPE] == CL.MQQMDT_EXPLICIT_CLUSTER_SENDER
    assert temp[C.MQCA_Q_MGR_IDENTIFIER] == "SYSTEM.TEMPUUID.127.0.0.1(1415)"
    assert temp[C.MQIACH_CHANNEL_STATUS] == C.MQCHS_INACTIVE
    assert temp[C.MQCACH_XMIT_Q_NAME] == "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
    assert C.MQIACH_NETWORK_PRIORITY not in temp  # a CLUSSDR has no NETPRTY
    # without REPOS the queue manager is an ordinary member of the cluster of its CLUSRCVR
    repos(h)
    [local] = clusqmgrs(h, "QM1").objects
    assert local[C.MQIACF_Q_MGR_TYPE] == CL.MQQMT_NORMAL


def test_selection_filters_and_attribute_lists_as_ibm_documents(h):
    repos(h, "CL1")
    setup_cluster(h)
    assert [o[CLUSQMGR] for o in clusqmgrs(h, "SYSTEM.*").objects] == [TEMP]
    assert [o[CLUSQMGR] for o in clusqmgrs(h, "*", st(NAME, "TO.QM1")).objects] == ["QM1"]
    assert [o[NAME] for o in clusqmgrs(h, "*", st(CLUSTER, "CL*")).objects] == ["TO.QM1", "TO.QM2"]
    assert failed(clusqmgrs(h, "*", st(CLUSTER, "OTHER")), C.MQRC_UNKNOWN_OBJECT_NAME)
    only = clusqmgrs(h, "*", P.CFIF(C.MQIACF_Q_MGR_DEFINITION_TYPE, C.MQCFOP_EQUAL,
                                    CL.MQQMDT_EXPLICIT_CLUSTER_SENDER)).objects
    assert [o[CLUSQMGR] for o in only] == [TEMP]
    # a filter on an attribute the row's channel type lacks never matches it
    netprty = clusqmgrs(h, "*", P.CFIF(C.MQIACH_NETWORK_PRIORITY, C.MQCFOP_EQUAL, 0)).objects
    assert [o[CLUSQMGR] for o in netprty] == ["QM1"]
    # the requested attributes, plus the always-returned ones
    [local, _] = clusqmgrs(h, "*", il(C.MQIACF_CLUSTER_Q_MGR_ATTRS, C.MQIACF_SUSPEND)).objects
    assert set(local) == {CLUSQMGR, NAME, CLUSTER, C.MQIACF_SUSPEND}
    assert failed(clusqmgrs(h, "*", il(C.MQIACF_CLUSTER_Q_MGR_ATTRS, 999_999)), C.MQRC_SELECTOR_ERROR)
    assert failed(clusqmgrs(h, "*", P.CFIF(C.MQIACF_SUSPEND, C.MQCFOP_EQUAL, 0),
                            P.CFIF(C.MQIACF_Q_MGR_TYPE, C.MQCFOP_EQUAL, 0)), C.MQRCCF_TOO_MANY_FILTERS,
                  C.MQIACF_Q_MGR_TYPE)
    assert failed(clusqmgrs(h, "A B"), C.MQRCCF_OBJECT_NAME_ERROR, CLUSQMGR)


def test_namelists_put_the_queue_manager_in_every_cluster_they_name(h):
    assert run(h, C.MQCMD_CREATE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "CLUSTERS"),
               P.CFSL(C.MQCA_NAMES, ("CLA", "CLB"))).ok
    repos(h, namelist="CLUSTERS")
    assert run(h, C.MQCMD_CREATE_CHANNEL, st(NAME, "TO.QM1"), i(TYPE, M.CLUSRCVR), st(CLUSNL, "CLUSTERS")).ok
    assert run(h, C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "NLQ"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
               st(CLUSNL, "CLUSTERS")).ok
    rows = clusqmgrs(h, "QM1", il(C.MQIACF_CLUSTER_Q_MGR_ATTRS, C.MQIACF_Q_MGR_TYPE)).objects
    assert [(o[CLUSTER], o[C.MQIACF_Q_MGR_TYPE]) for o in rows] == [("CLA", CL.MQQMT_REPOSITORY),
                                                                     ("CLB", CL.MQQMT_REPOSITORY)]
    cqs = run(h, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "NLQ"), i(C.MQIA_Q_TYPE, C.MQQT_CLUSTER)).objects
    assert [(o[CLUSTER], o[CLUSNL]) for o in cqs] == [("CLA", "CLUSTERS"), ("CLB", "CLUSTERS")]


# ---- cluster queues ------------------------------------------------------------------------------
def test_cluster_queues_as_inquire_queue_shows_them(h):
    setup_cluster(h)
    [cq] = run(h, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "*"), i(C.MQIA_Q_TYPE, C.MQQT_CLUSTER)).objects
    assert cq[C.MQCA_Q_NAME] == "APP.Q" and cq[C.MQIA_Q_TYPE] == C.MQQT_CLUSTER
    assert (cq[CLUSQMGR], cq[CLUSTER], cq[C.MQIA_CLUSTER_Q_TYPE], cq[C.MQIA_DEF_BIND], cq[C.MQIA_CLWL_Q_PRIORITY]) == (
        "QM1", "CL1", CL.MQCQT_LOCAL_Q, C.MQBND_BIND_NOT_FIXED, 4)
    assert cq[C.MQCA_Q_MGR_IDENTIFIER] == h.registry.qmgr.identifier
    assert C.MQIA_CURRENT_Q_DEPTH not in cq  # a cluster queue record is not the queue itself
    # ClusterInfo with QType ALL: the definition, then the cluster's record of it
    both = run(h, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "APP.Q"), i(C.MQIACF_CLUSTER_INFO, 1)).objects
    assert [o[C.MQIA_Q_TYPE] for o in both] == [C.MQQT_LOCAL, C.MQQT_CLUSTER]
    # selection and a filter
    [small] = run(h, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "APP*"), i(C.MQIA_Q_TYPE, C.MQQT_CLUSTER),
                  il(C.MQIACF_Q_ATTRS, C.MQIA_DEF_BIND)).objects
    assert set(small) == {C.MQCA_Q_NAME, C.MQIA_Q_TYPE, CLUSQMGR, C.MQIA_DEF_BIND}
    assert failed(run(h, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "*"), i(C.MQIA_Q_TYPE, C.MQQT_CLUSTER),
                      P.CFSF(CLUSTER, C.MQCFOP_EQUAL, "OTHER", 0)), C.MQRC_UNKNOWN_OBJECT_NAME)
    names = run(h, C.MQCMD_INQUIRE_Q_NAMES, st(C.MQCA_Q_NAME, "*"), i(C.MQIA_Q_TYPE, C.MQQT_CLUSTER)).objects
    assert [n.rstrip() for n in names[0][C.MQCACF_Q_NAMES]] == ["APP.Q"]
    # the local view is unchanged: QType LOCAL shows the queue, and no cluster record
    assert [o[C.MQIA_Q_TYPE] for o in run(h, C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "APP.Q"),
                                          i(C.MQIA_Q_TYPE, C.MQQT_LOCAL)).objects] == [C.MQQT_LOCAL]


# ---- the cluster commands ----------------------------------------------------------------------
def test_suspend_and_resume_are_recorded_and_survive_a_restart(tmp_path):
    h = Harness(tmp_path)
    setup_cluster(h)
    assert run(h, C.MQCMD_SUSPEND_Q_MGR_CLUSTER, st(CLUSTER, "CL1"), i(C.MQIACF_MODE, CL.MQMODE_FORCE)).ok
    h.close()
    h = Harness(tmp_path)
    try:
        [local] = clusqmgrs(h, "QM1", il(C.MQIACF_CLUSTER_Q_MGR_ATTRS, C.MQIACF_SUSPEND)).objects
        assert local[C.MQIACF_SUSPEND] == CL.MQSUS_YES
        assert run(h, C.MQCMD_RESUME_Q_MGR_CLUSTER, st(CLUSTER, "CL1")).ok
        [local] = clusqmgrs(h, "QM1", il(C.MQIACF_CLUSTER_Q_MGR_ATTRS, C.MQIACF_SUSPEND)).objects
        assert local[C.MQIACF_SUSPEND] == CL.MQSUS_NO
    finally:
        h.close()


@pytest.mark.parametrize("cmd", [C.MQCMD_SUSPEND_Q_MGR_CLUSTER, C.MQCMD_RESUME_Q_MGR_CLUSTER])
def test_suspend_and_resume_need_one_of_cluster_and_clusnl(h, cmd):
    assert failed(run(h, cmd), C.MQRCCF_PARM_MISSING, CLUSTER)
    assert failed(run(h, cmd, st(CLUSTER, "A"), st(CLUSNL, "B")), C.MQRCCF_CLUSTER_NAME_CONFLICT, CLUSNL)
    assert run(h, cmd, st(CLUSNL, "NO.SUCH.NAMELIST")).ok  # resolved when used, as IBM does
    if cmd == C.MQCMD_SUSPEND_Q_MGR_CLUSTER:
        assert failed(run(h, cmd, st(CLUSTER, "A"), i(C.MQIACF_MODE, 2)), C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_MODE)


def test_refresh_and_reset_cluster_are_checked_and_accepted(h):
    assert run(h, C.MQCMD_REFRESH_CLUSTER, st(CLUSTER, "*"),
               i(C.MQIACF_REFRESH_REPOSITORY, C.MQCFO_REFRESH_REPOSITORY_YES)).ok
    assert failed(run(h, C.MQCMD_REFRESH_CLUSTER), C.MQRCCF_PARM_MISSING, CLUSTER)
    assert failed(run(h, C.MQCMD_REFRESH_CLUSTER, st(CLUSTER, "A"), i(C.MQIACF_REFRESH_REPOSITORY, 5)),
                  C.MQRCCF_PARM_VALUE_ERROR, C.MQIACF_REFRESH_REPOSITORY)
    reset = (st(CLUSTER, "CL1"), i(C.MQIACF_ACTION, C.MQACT_FORCE_REMOVE))
    assert run(h, C.MQCMD_RESET_CLUSTER, *reset, st(C.MQCA_Q_MGR_NAME, "QM2"),
               i(C.MQIACF_REMOVE_QUEUES, C.MQCFO_REMOVE_QUEUES_YES)).ok
    assert failed(run(h, C.MQCMD_RESET_CLUSTER, *reset), C.MQRCCF_PARM_MISSING, C.MQCA_Q_MGR_NAME)
    assert failed(run(h, C.MQCMD_RESET_CLUSTER, *reset, st(C.MQCA_Q_MGR_NAME, "QM2"),
                      st(C.MQCA_Q_MGR_IDENTIFIER, "QM2_x")), C.MQRCCF_PARM_CONFLICT, C.MQCA_Q_MGR_IDENTIFIER)
    assert failed(run(h, C.MQCMD_RESET_CLUSTER, st(CLUSTER, "CL1"), i(C.MQIACF_ACTION, C.MQACT_ADD),
                      st(C.MQCA_Q_MGR_NAME, "QM2")), C.MQRCCF_ACTION_VALUE_ERROR, C.MQIACF_ACTION)
    assert failed(run(h, C.MQCMD_RESET_CLUSTER, st(C.MQCA_Q_MGR_NAME, "QM2"), i(C.MQIACF_ACTION, 1)),
                  C.MQRCCF_PARM_MISSING, CLUSTER)


def test_cluster_commands_need_change_authority_on_the_queue_manager(tmp_path):
    h = Harness(tmp_path, user="app")
    h.requester = dataclasses.replace(h.requester, admin=False)  # app is outside mqm: its records decide
    try:
        for cmd, params in ((C.MQCMD_SUSPEND_Q_MGR_CLUSTER, (st(CLUSTER, "A"),)),
                            (C.MQCMD_REFRESH_CLUSTER, (st(CLUSTER, "A"),))):
            assert failed(run(h, cmd, *params), C.MQRC_NOT_AUTHORIZED)
    finally:
        h.close()


def test_the_cluster_agent_is_woken_only_by_commands_that_can_join_a_cluster_until_there_is_one(h):
    """In no cluster, a Create Subscription or a DEFINE QLOCAL leaves the agent asleep; a channel, a namelist, ALTER
    QMGR or Escape (MQSC) wakes it, as they can put the queue manager in a cluster.  Once it has a repository every
    command but an inquiry wakes it."""
    from qmlite.registry.cluster import snapshots as SN

    woken = []
    h.registry.cluster_nudge = lambda: woken.append(1)

    def wakes(*request) -> bool:
        del woken[:]
        out = h.engine.execute(command(*request), h.requester)
        assert out[0].header.CompCode == C.MQCC_OK, out
        return bool(woken)

    assert not wakes(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "NO.CLUSTER.Q"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL))
    assert not wakes(C.MQCMD_CREATE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, "NO.CLUSTER.SUB"),
                     st(C.MQCA_TOPIC_STRING, "a/b"), i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED))
    assert not wakes(C.MQCMD_PING_Q_MGR)
    assert not wakes(C.MQCMD_INQUIRE_CHANNEL, st(NAME, "*"))
    assert wakes(C.MQCMD_CREATE_CHANNEL, st(NAME, "TO.QM1"), i(TYPE, C.MQCHT_CLUSRCVR), st(CLUSTER, "DEMO"),
                 st(C.MQCACH_CONNECTION_NAME, "127.0.0.1(1414)"))
    assert wakes(C.MQCMD_CREATE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "CLUSTERS"))
    assert wakes(C.MQCMD_CHANGE_Q_MGR, st(C.MQCA_Q_MGR_DESC, "x"))
    assert wakes(C.MQCMD_ESCAPE, i(C.MQIACF_ESCAPE_TYPE, C.MQET_MQSC), st(C.MQCACF_ESCAPE_TEXT, "PING QMGR"))
    SN.repository_of(h.registry)  # in a cluster: the agent made the repository at its first step
    assert wakes(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "CLUSTER.Q"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL))
    assert not wakes(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "*"))
