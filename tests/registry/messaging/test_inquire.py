"""MQINQ and MQSET (registry/messaging/inquire.py) against the PCF Inquire commands, network-free.

The central property: for every selector MQINQ recognises, on every object type, MQINQ answers
exactly what PCF Inquire reports for the same attribute (same integer; same characters, padding
included), or, for a queue attribute another queue type has, IBM's "not for this type" warning while
PCF leaves the attribute out.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.messaging import inquire as I
from qmlite.registry.admin.commands import namelists
from qmlite.registry.admin.commands import processes
from qmlite.registry.admin.commands import qmgr
from qmlite.registry.admin.commands import queues
from qmlite.registry.admin.commands import topics
from qmlite.registry.errors import MQIError
from qmlite.registry.messaging.queues import Message
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.storage.catalog import Registry
from tests.support.pcfkit import T0, Harness, command, i, il, st

BIG = 200_000  # a CharAttrLength that fits any single attribute

# (object type, PCF command, name parameter, attribute-list parameter, table)
KINDS = {
    C.MQOT_Q_MGR: (C.MQCMD_INQUIRE_Q_MGR, None, C.MQIACF_Q_MGR_ATTRS, qmgr.TABLE),
    C.MQOT_Q: (C.MQCMD_INQUIRE_Q, C.MQCA_Q_NAME, C.MQIACF_Q_ATTRS, queues.TABLE),
    C.MQOT_NAMELIST: (C.MQCMD_INQUIRE_NAMELIST, C.MQCA_NAMELIST_NAME, C.MQIACF_NAMELIST_ATTRS, namelists.TABLE),
    C.MQOT_PROCESS: (C.MQCMD_INQUIRE_PROCESS, C.MQCA_PROCESS_NAME, C.MQIACF_PROCESS_ATTRS, processes.TABLE),
    C.MQOT_TOPIC: (C.MQCMD_INQUIRE_TOPIC, C.MQCA_TOPIC_NAME, C.MQIACF_TOPIC_ATTRS, topics.TOPIC_TABLE),
}
MISSING = object()


def sl(pid, *values):
    return P.CFSL(pid, tuple(values), 0)


def strip(values):
    return tuple(v.rstrip(" ") for v in values)


def pcf_value(h, obj_type, name, selector):
    """What PCF Inquire reports for one attribute, padding kept; MISSING when it is left out."""
    cmd, name_pid, attrs_pid, _ = KINDS[obj_type]
    params = ([] if name_pid is None else [st(name_pid, name)]) + [il(attrs_pid, selector)]
    r = h.run(command(cmd, *params))
    assert r.ok and len(r.messages) == 1, r.reason
    return {p.parameter: p.value for p in r.messages[0].parameters}.get(selector, MISSING)


def inq_value(reg, obj_type, name, selector):
    """MQINQ of one selector with exactly enough room: (value, comp, reason)."""
    table = KINDS[obj_type][3]
    attr = table.by_id[selector]
    if I.is_int_selector(selector):
        ints, chars, comp, reason = I.mqinq(reg, obj_type, name, [selector], 1, 0)
        assert chars == ""
        return ints[0], comp, reason
    probe = I.mqinq(reg, obj_type, name, [selector], 0, BIG)[1]  # a list's length depends on its value
    length = len(probe.rstrip(" ")) if attr.kind == "str_list" else I.attr_length(attr)
    if attr.kind == "str_list":
        length = -(-length // attr.pad) * attr.pad if length else 0
    ints, chars, comp, reason = I.mqinq(reg, obj_type, name, [selector], 0, length)
    assert ints == []
    return chars, comp, reason


def rich(h):
    """Objects whose attributes differ from the defaults, so a swapped field would show."""
    q = dataclasses.replace(h.registry.queues["DEV.QUEUE.1"], description="rich local", backout_threshold=3,
                            backout_requeue_q="DEV.DEAD.LETTER.QUEUE", trigger_control=C.MQTC_ON,
                            trigger_type=C.MQTT_DEPTH, trigger_depth=7, trigger_msg_priority=4,
                            trigger_data="data for the monitor", initiation_q="SYSTEM.DEFAULT.INITIATION.QUEUE",
                            process_name="SYSTEM.DEFAULT.PROCESS", property_control=C.MQPROP_ALL,
                            dist_lists=C.MQDL_SUPPORTED, msg_delivery_sequence=C.MQMDS_FIFO, retention_interval=12,
                            q_depth_high_limit=90, q_depth_low_limit=10, q_depth_high_event=C.MQEVR_ENABLED,
                            q_service_interval=5000, q_service_interval_event=C.MQQSIE_HIGH,
                            npm_class=C.MQNPM_CLASS_HIGH, def_bind=C.MQBND_BIND_NOT_FIXED, cluster_name="CL1",
                            cluster_namelist="CLNL", clwl_q_priority=2, clwl_q_rank=5,
                            clwl_use_q=C.MQCLWL_USEQ_ANY, custom="CAPEXPRY(600)")
    h.registry.put_queue(q)
    for k in range(3):
        h.registry.messages.put(q.name, Message(None, b"x", 0, bytes([k + 1]) * 24, bytes(24), T0))
    contents = h.registry.messages.contents(q.name)
    contents.open_input, contents.open_output = 2, 1
    h.registry.put_queue(dataclasses.replace(h.registry.queues["SYSTEM.DEFAULT.ALIAS.QUEUE"], name="RICH.ALIAS",
                                             target="DEV.QUEUE.1", description="an alias", cluster_name="CL1",
                                             def_persistence=C.MQPER_PERSISTENT))
    h.registry.put_namelist(dataclasses.replace(h.registry.namelists["SYSTEM.DEFAULT.NAMELIST"], name="RICH.NL",
                                                description="three names", names=("A.B", "C", "D.E.F")))
    h.registry.put_process(dataclasses.replace(h.registry.processes["SYSTEM.DEFAULT.PROCESS"], name="RICH.PROC",
                                               appl_id="/usr/bin/true", appl_type=C.MQAT_USER_FIRST,
                                               env_data="ENV=1", user_data="user", description="proc"))
    h.registry.qmgr.description = "a described queue manager"
    h.registry.qmgr.authority_event = C.MQEVR_ENABLED


OBJECTS = [
    (C.MQOT_Q_MGR, "QM1"),
    (C.MQOT_Q, "DEV.QUEUE.1"),
    (C.MQOT_Q, "RICH.ALIAS"),
    (C.MQOT_Q, "SYSTEM.DEFAULT.MODEL.QUEUE"),
    (C.MQOT_Q, "SYSTEM.ADMIN.COMMAND.QUEUE"),
    (C.MQOT_NAMELIST, "RICH.NL"),
    (C.MQOT_NAMELIST, "SYSTEM.DEFAULT.NAMELIST"),
    (C.MQOT_PROCESS, "RICH.PROC"),
    (C.MQOT_TOPIC, "SYSTEM.BASE.TOPIC"),
    (C.MQOT_TOPIC, "DEV.BASE.TOPIC"),
]


@pytest.mark.parametrize("obj_type, name", OBJECTS, ids=[f"{t}-{n}" for t, n in OBJECTS])
def test_every_selector_agrees_with_pcf_inquire(h, obj_type, name):
    rich(h)
    reg = h.registry
    checked = 0
    for selector in sorted(I.SELECTORS[obj_type]):
        value, comp, reason = inq_value(reg, obj_type, name, selector)
        reported = pcf_value(h, obj_type, name, selector)
        if reported is MISSING:  # only a queue attribute of another queue type
            assert obj_type == C.MQOT_Q, C.describe("MQIA" if selector < 2001 else "MQCA", selector)
            assert (comp, reason) == (C.MQCC_WARNING, C.MQRC_SELECTOR_NOT_FOR_TYPE)
            assert value == C.MQIAV_NOT_APPLICABLE or (isinstance(value, str) and set(value) == {"*"})
            continue
        assert (comp, reason) == (C.MQCC_OK, C.MQRC_NONE), selector
        if isinstance(reported, tuple):  # Names: one string of NameCount fixed-length names
            reported = "".join(reported)
        elif isinstance(reported, str) and KINDS[obj_type][3].by_id[selector].pad is None:
            reported = reported.ljust(len(value))  # a topic string travels unpadded in PCF
        assert value == reported, (C.describe("MQIA" if selector < 2001 else "MQCA", selector), value, reported)
        checked += 1
    assert checked >= 6


def test_tables_cover_what_the_issue_names(h):
    wanted_q = {C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME, C.MQIA_HARDEN_GET_BACKOUT,
                C.MQIA_TRIGGER_CONTROL, C.MQIA_TRIGGER_TYPE, C.MQIA_TRIGGER_DEPTH, C.MQIA_TRIGGER_MSG_PRIORITY,
                C.MQCA_TRIGGER_DATA, C.MQCA_INITIATION_Q_NAME, C.MQCA_PROCESS_NAME, C.MQIA_PROPERTY_CONTROL,
                C.MQIA_DIST_LISTS, C.MQIA_MSG_DELIVERY_SEQUENCE, C.MQIA_RETENTION_INTERVAL,
                C.MQIA_Q_DEPTH_HIGH_LIMIT, C.MQIA_Q_DEPTH_LOW_LIMIT, C.MQIA_Q_DEPTH_MAX_EVENT,
                C.MQIA_Q_DEPTH_HIGH_EVENT, C.MQIA_Q_DEPTH_LOW_EVENT, C.MQIA_Q_SERVICE_INTERVAL,
                C.MQIA_Q_SERVICE_INTERVAL_EVENT, C.MQIA_NPM_CLASS, C.MQIA_DEF_BIND, C.MQCA_CLUSTER_NAME,
                C.MQCA_CLUSTER_NAMELIST, C.MQIA_CLWL_Q_PRIORITY, C.MQIA_CLWL_Q_RANK, C.MQIA_CLWL_USEQ,
                C.MQIA_SCOPE, C.MQCA_CUSTOM, C.MQCA_CREATION_DATE, C.MQIA_OPEN_INPUT_COUNT}
    assert wanted_q <= I.QUEUE_SELECTORS
    assert {C.MQIA_DEF_PUT_RESPONSE_TYPE, C.MQIA_DEF_READ_AHEAD, C.MQIA_ACCOUNTING_Q, C.MQIA_MONITORING_Q,
            C.MQIA_STATISTICS_Q} <= set(queues.TABLE.by_id)  # PCF Inquire Queue reports them too
    wanted_qm = {C.MQCA_ALTERATION_DATE, C.MQCA_CHANNEL_AUTO_DEF_EXIT, C.MQCA_CLUSTER_WORKLOAD_EXIT,
                 C.MQCA_COMMAND_INPUT_Q_NAME, C.MQIA_COMMAND_LEVEL, C.MQCA_CONN_AUTH, C.MQCA_CREATION_DATE,
                 C.MQCA_DEAD_LETTER_Q_NAME, C.MQCA_DEF_XMIT_Q_NAME, C.MQIA_DIST_LISTS, C.MQIA_MAX_HANDLES,
                 C.MQIA_MAX_MSG_LENGTH, C.MQIA_MAX_PRIORITY, C.MQIA_MAX_UNCOMMITTED_MSGS, C.MQIA_PLATFORM,
                 C.MQCA_Q_MGR_DESC, C.MQCA_Q_MGR_IDENTIFIER, C.MQCA_Q_MGR_NAME, C.MQIA_SYNCPOINT,
                 C.MQIA_TRIGGER_INTERVAL, C.MQIA_PERFORMANCE_EVENT, C.MQIA_INHIBIT_EVENT, C.MQIA_LOCAL_EVENT,
                 C.MQIA_REMOTE_EVENT, C.MQIA_START_STOP_EVENT, C.MQIA_AUTHORITY_EVENT, C.MQIA_CHANNEL_EVENT,
                 C.MQIA_CONFIGURATION_EVENT, C.MQIA_COMMAND_EVENT, C.MQIA_LOGGER_EVENT, C.MQIA_SSL_EVENT,
                 C.MQIA_ACTIVITY_RECORDING, C.MQIA_TRACE_ROUTE_RECORDING, C.MQIA_PUBSUB_MODE,
                 C.MQIA_PUBSUB_MAXMSG_RETRY_COUNT, C.MQIA_PUBSUB_NP_MSG, C.MQIA_PUBSUB_NP_RESP,
                 C.MQIA_PUBSUB_SYNC_PT, C.MQIA_TREE_LIFE_TIME, C.MQIA_MSG_MARK_BROWSE_INTERVAL,
                 C.MQIA_CODED_CHAR_SET_ID, C.MQIA_CPI_LEVEL, C.MQCA_VERSION, C.MQCA_INSTALLATION_NAME,
                 C.MQCA_SSL_KEY_REPOSITORY, C.MQIA_STATISTICS_Q, C.MQIA_ACCOUNTING_Q, C.MQIA_MONITORING_Q}
    assert wanted_qm <= I.QMGR_SELECTORS
    # Every character attribute has a fixed MQ length, in PCF and MQINQ alike.
    for table in (qmgr.TABLE, queues.TABLE, namelists.TABLE, processes.TABLE):
        assert all(a.pad for a in table.attrs if a.kind not in ("int", "int_list")), table


def test_values_a_new_queue_manager_reports(h):
    reg = h.registry
    sels = [C.MQIA_DIST_LISTS, C.MQIA_MAX_HANDLES, C.MQIA_START_STOP_EVENT, C.MQIA_PUBSUB_NP_MSG,
            C.MQCA_VERSION, C.MQCA_CONN_AUTH, C.MQCA_INSTALLATION_NAME]
    ints, chars, comp, reason = I.mqinq(reg, C.MQOT_Q_MGR, "QM1", sels, 4, 8 + 48 + 16)
    assert (comp, reason) == (C.MQCC_OK, 0)
    assert ints == [C.MQDL_NOT_SUPPORTED, 256, C.MQEVR_ENABLED, C.MQUNDELIVERED_DISCARD]
    assert chars == "09010200" + "DEV.AUTHINFO".ljust(48) + "Installation1".ljust(16)
    reg.qmgr.max_handles = 99  # the server sets it from its configuration: one source for both
    assert I.mqinq(reg, C.MQOT_Q_MGR, "QM1", [C.MQIA_MAX_HANDLES], 1, 0)[0] == [99]
    assert pcf_value(h, C.MQOT_Q_MGR, "QM1", C.MQIA_MAX_HANDLES) == 99


def test_a_queue_manager_without_dev_objects_names_the_system_authinfo(tmp_path):
    h = Harness(tmp_path / "qm", dev_objects=False)
    try:
        assert pcf_value(h, C.MQOT_Q_MGR, "QM1", C.MQCA_CONN_AUTH).rstrip() == "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
    finally:
        h.close()


def test_queue_defaults_are_those_of_system_default_local_queue(h):
    sels = [C.MQIA_BACKOUT_THRESHOLD, C.MQIA_HARDEN_GET_BACKOUT, C.MQIA_TRIGGER_CONTROL, C.MQIA_TRIGGER_TYPE,
            C.MQIA_TRIGGER_DEPTH, C.MQIA_PROPERTY_CONTROL, C.MQIA_DIST_LISTS, C.MQIA_RETENTION_INTERVAL,
            C.MQIA_Q_DEPTH_HIGH_LIMIT, C.MQIA_Q_DEPTH_LOW_LIMIT, C.MQIA_Q_DEPTH_MAX_EVENT, C.MQIA_DEF_BIND,
            C.MQIA_CLWL_USEQ, C.MQIA_SCOPE, C.MQIA_NPM_CLASS]
    ints, _, comp, _ = I.mqinq(h.registry, C.MQOT_Q, "DEV.QUEUE.2", sels, len(sels), 0)
    assert comp == C.MQCC_OK
    assert ints == [0, C.MQQA_BACKOUT_NOT_HARDENED, C.MQTC_OFF, C.MQTT_FIRST, 1, C.MQPROP_COMPATIBILITY,
                    C.MQDL_NOT_SUPPORTED, 999_999_999, 80, 20, C.MQEVR_ENABLED, C.MQBND_BIND_ON_OPEN,
                    C.MQCLWL_USEQ_AS_Q_MGR, C.MQSCO_Q_MGR, C.MQNPM_CLASS_NORMAL]


def test_live_counts_in_mqinq_and_pcf(h):
    rich(h)
    sels = [C.MQIA_CURRENT_Q_DEPTH, C.MQIA_OPEN_INPUT_COUNT, C.MQIA_OPEN_OUTPUT_COUNT]
    assert I.mqinq(h.registry, C.MQOT_Q, "DEV.QUEUE.1", sels, 3, 0)[0] == [3, 2, 1]
    assert [pcf_value(h, C.MQOT_Q, "DEV.QUEUE.1", s) for s in sels] == [3, 2, 1]


def test_an_alias_answers_with_its_own_attributes(h):
    rich(h)
    ints, chars, comp, reason = I.mqinq(h.registry, C.MQOT_Q, "RICH.ALIAS",
                                        [C.MQIA_Q_TYPE, C.MQIA_DEF_PERSISTENCE, C.MQCA_Q_DESC, C.MQCA_BASE_Q_NAME],
                                        2, 112)
    assert (comp, ints) == (C.MQCC_OK, [C.MQQT_ALIAS, C.MQPER_PERSISTENT])
    assert chars == "an alias".ljust(64) + "DEV.QUEUE.1".ljust(48)


# ---- reason codes --------------------------------------------------------------------------------
def reason_of(fn, *args):
    with pytest.raises(MQIError) as info:
        fn(*args)
    return info.value.reason, info.value.comp


def test_count_errors(h):
    reg = h.registry
    assert reason_of(I.mqinq, reg, C.MQOT_Q_MGR, "QM1", [C.MQIA_PLATFORM] * 257, 257, 0) == (
        C.MQRC_SELECTOR_LIMIT_EXCEEDED, C.MQCC_FAILED)
    assert I.mqinq(reg, C.MQOT_Q_MGR, "QM1", [C.MQIA_PLATFORM] * 256, 256, 0)[2] == C.MQCC_OK
    assert reason_of(I.mqinq, reg, C.MQOT_Q_MGR, "QM1", [], -1, 0)[0] == C.MQRC_INT_ATTR_COUNT_ERROR
    assert reason_of(I.mqinq, reg, C.MQOT_Q_MGR, "QM1", [], 0, -1)[0] == C.MQRC_CHAR_ATTR_LENGTH_ERROR
    assert I.mqinq(reg, C.MQOT_Q_MGR, "QM1", [], 0, 0) == ([], "", C.MQCC_OK, 0)  # zero selectors is valid


@pytest.mark.parametrize("obj_type, name, selector", [
    (C.MQOT_Q_MGR, "QM1", C.MQIA_CURRENT_Q_DEPTH),  # a queue attribute on the queue manager
    (C.MQOT_Q_MGR, "QM1", 1999),  # an integer selector nothing has
    (C.MQOT_Q_MGR, "QM1", 0),  # outside both ranges
    (C.MQOT_Q_MGR, "QM1", 5000),
    (C.MQOT_Q, "DEV.QUEUE.1", C.MQIA_PLATFORM),  # a queue-manager attribute on a queue
    (C.MQOT_Q, "DEV.QUEUE.1", C.MQIA_DEF_PUT_RESPONSE_TYPE),  # PCF-only for queues
    (C.MQOT_Q, "DEV.QUEUE.1", C.MQCA_NAMES),
    (C.MQOT_NAMELIST, "SYSTEM.DEFAULT.NAMELIST", C.MQCA_Q_NAME),
    (C.MQOT_NAMELIST, "SYSTEM.DEFAULT.NAMELIST", C.MQIA_NAMELIST_TYPE),  # z/OS only
    (C.MQOT_PROCESS, "SYSTEM.DEFAULT.PROCESS", C.MQCA_NAMES),
])
def test_a_selector_the_object_type_lacks_fails_the_call(h, obj_type, name, selector):
    ok = next(iter(I.SELECTORS[obj_type]))
    assert reason_of(I.mqinq, h.registry, obj_type, name, [ok, selector], 5, BIG) == (
        C.MQRC_SELECTOR_ERROR, C.MQCC_FAILED)


def test_selector_not_for_type_is_a_warning_with_placeholders(h):
    ints, chars, comp, reason = I.mqinq(h.registry, C.MQOT_Q, "SYSTEM.DEFAULT.ALIAS.QUEUE",
                                        [C.MQIA_CURRENT_Q_DEPTH, C.MQIA_DEF_PRIORITY, C.MQCA_TRIGGER_DATA,
                                         C.MQCA_XMIT_Q_NAME, C.MQCA_Q_NAME], 2, 64 + 48 + 48)
    assert (comp, reason) == (C.MQCC_WARNING, C.MQRC_SELECTOR_NOT_FOR_TYPE)
    assert ints == [C.MQIAV_NOT_APPLICABLE, 0]
    assert chars == "*" * 64 + "*" * 48 + "SYSTEM.DEFAULT.ALIAS.QUEUE".ljust(48)


def test_int_attr_count_too_small_returns_what_fits(h):
    ints, chars, comp, reason = I.mqinq(h.registry, C.MQOT_Q_MGR, "QM1",
                                        [C.MQIA_PLATFORM, C.MQCA_VERSION, C.MQIA_COMMAND_LEVEL], 1, 8)
    assert (ints, chars, comp, reason) == ([C.MQPL_UNIX], "09010200", C.MQCC_WARNING,
                                           C.MQRC_INT_ATTR_COUNT_TOO_SMALL)
    assert I.mqinq(h.registry, C.MQOT_Q_MGR, "QM1", [C.MQIA_PLATFORM], 0, 0)[:2] == ([], "")


def test_char_attrs_too_short_returns_whole_values_only(h):
    sels = [C.MQCA_VERSION, C.MQCA_Q_MGR_NAME, C.MQCA_INSTALLATION_NAME]
    ints, chars, comp, reason = I.mqinq(h.registry, C.MQOT_Q_MGR, "QM1", sels, 0, 8 + 47)
    assert (comp, reason) == (C.MQCC_WARNING, C.MQRC_CHAR_ATTRS_TOO_SHORT)
    assert chars == "09010200" + " " * 47  # the name does not fit whole: it and what follows are left out
    # Room to spare: the values, then blanks up to CharAttrLength.
    chars = I.mqinq(h.registry, C.MQOT_Q_MGR, "QM1", [C.MQCA_VERSION], 0, 20)[1]
    assert chars == "09010200" + " " * 12


def test_warnings_come_in_ibms_order(h):
    sels = [C.MQIA_CURRENT_Q_DEPTH, C.MQIA_DEF_PRIORITY, C.MQCA_Q_NAME]  # depth: not for an alias
    assert I.mqinq(h.registry, C.MQOT_Q, "SYSTEM.DEFAULT.ALIAS.QUEUE", sels, 1, 0)[3] == C.MQRC_SELECTOR_NOT_FOR_TYPE
    local = [C.MQIA_CURRENT_Q_DEPTH, C.MQIA_DEF_PRIORITY, C.MQCA_Q_NAME]
    assert I.mqinq(h.registry, C.MQOT_Q, "DEV.QUEUE.1", local, 1, 0)[3] == C.MQRC_INT_ATTR_COUNT_TOO_SMALL
    assert I.mqinq(h.registry, C.MQOT_Q, "DEV.QUEUE.1", local, 2, 0)[3] == C.MQRC_CHAR_ATTRS_TOO_SHORT


def test_a_huge_char_attr_length_is_not_allocated(h):
    chars = I.mqinq(h.registry, C.MQOT_Q_MGR, "QM1", [C.MQCA_VERSION], 0, 2**31 - 1)[1]
    assert chars.startswith("09010200") and len(chars) == I.MAX_CHAR_ATTRS


def test_gone_objects(h):
    assert reason_of(I.mqinq, h.registry, C.MQOT_Q, "NO.SUCH.QUEUE", [C.MQIA_Q_TYPE], 1, 0)[0] == C.MQRC_Q_DELETED
    assert reason_of(I.mqinq, h.registry, C.MQOT_NAMELIST, "GONE", [C.MQIA_NAME_COUNT], 1, 0)[0] == \
        C.MQRC_OBJECT_CHANGED
    assert reason_of(I.mqinq, h.registry, C.MQOT_CHANNEL, "X", [], 0, 0)[0] == C.MQRC_OBJECT_TYPE_ERROR


def test_a_topic_opened_by_string_answers_from_the_object_that_governs_it(h):
    by_object = I.mqinq(h.registry, C.MQOT_TOPIC, "DEV.BASE.TOPIC", [C.MQCA_TOPIC_NAME], 0, 48)
    by_string = I.mqinq(h.registry, C.MQOT_TOPIC, "dev/", [C.MQCA_TOPIC_NAME], 0, 48)
    assert by_object == by_string and by_object[1].rstrip() == "DEV.BASE.TOPIC"
    elsewhere = I.mqinq(h.registry, C.MQOT_TOPIC, "price/fruit", [C.MQCA_TOPIC_NAME], 0, 48)
    assert elsewhere[1].rstrip() == "SYSTEM.BASE.TOPIC"  # no object on the way: the root's
    ints, _, comp, _ = I.mqinq(h.registry, C.MQOT_TOPIC, "DEV.BASE.TOPIC", [C.MQIA_DEF_PRIORITY], 1, 0)
    assert (ints, comp) == ([C.MQPRI_PRIORITY_AS_PARENT], C.MQCC_OK)  # as defined, as Inquire Topic shows it


def test_namelist_names_in_mqinq(h):
    rich(h)
    ints, chars, comp, _ = I.mqinq(h.registry, C.MQOT_NAMELIST, "RICH.NL",
                                   [C.MQIA_NAME_COUNT, C.MQCA_NAMES, C.MQCA_NAMELIST_DESC], 1, 3 * 48 + 64)
    assert (ints, comp) == ([3], C.MQCC_OK)
    assert chars == "A.B".ljust(48) + "C".ljust(48) + "D.E.F".ljust(48) + "three names".ljust(64)


# ---- MQSET ---------------------------------------------------------------------------------------
SET_INTS = [C.MQIA_INHIBIT_GET, C.MQIA_INHIBIT_PUT, C.MQIA_DIST_LISTS, C.MQIA_TRIGGER_CONTROL,
            C.MQIA_TRIGGER_TYPE, C.MQIA_TRIGGER_DEPTH, C.MQIA_TRIGGER_MSG_PRIORITY]


def test_mqset_then_mqinq_and_pcf_agree(h, clock):
    reg = h.registry
    values = [C.MQQA_GET_INHIBITED, C.MQQA_PUT_INHIBITED, C.MQDL_SUPPORTED, C.MQTC_ON, C.MQTT_EVERY, 42, 7]
    clock.t += 3600
    I.mqset(reg, C.MQOT_Q, "DEV.QUEUE.1", SET_INTS + [C.MQCA_TRIGGER_DATA], values, "start me".ljust(64, "\0"))
    assert I.mqinq(reg, C.MQOT_Q, "DEV.QUEUE.1", SET_INTS, 7, 0)[0] == values
    assert [pcf_value(h, C.MQOT_Q, "DEV.QUEUE.1", s) for s in SET_INTS] == values
    chars = I.mqinq(reg, C.MQOT_Q, "DEV.QUEUE.1", [C.MQCA_TRIGGER_DATA], 0, 64)[1]
    assert chars == pcf_value(h, C.MQOT_Q, "DEV.QUEUE.1", C.MQCA_TRIGGER_DATA) == "start me".ljust(64)
    assert reg.queues["DEV.QUEUE.1"].altered == T0 + 3600
    h.close()  # journaled: a restart keeps it
    reg = Registry.open(h.registry.store.path.parent, "QM1", synchronous="NORMAL")
    try:
        assert I.mqinq(reg, C.MQOT_Q, "DEV.QUEUE.1", SET_INTS, 7, 0)[0] == values
    finally:
        reg.close()


def test_mqset_on_an_alias_sets_only_what_an_alias_has(h):
    reg = h.registry
    I.mqset(reg, C.MQOT_Q, "SYSTEM.DEFAULT.ALIAS.QUEUE", [C.MQIA_INHIBIT_PUT], [C.MQQA_PUT_INHIBITED], "")
    assert reg.queues["SYSTEM.DEFAULT.ALIAS.QUEUE"].inhibit_put == C.MQQA_PUT_INHIBITED
    for selector in (C.MQIA_TRIGGER_CONTROL, C.MQIA_DIST_LISTS):
        assert reason_of(I.mqset, reg, C.MQOT_Q, "SYSTEM.DEFAULT.ALIAS.QUEUE", [selector], [0], "")[0] == \
            C.MQRC_SELECTOR_ERROR


@pytest.mark.parametrize("selector, value, reason", [
    (C.MQIA_INHIBIT_GET, 7, C.MQRC_INHIBIT_VALUE_ERROR),
    (C.MQIA_INHIBIT_PUT, -1, C.MQRC_INHIBIT_VALUE_ERROR),
    (C.MQIA_TRIGGER_CONTROL, 2, C.MQRC_TRIGGER_CONTROL_ERROR),
    (C.MQIA_TRIGGER_TYPE, 4, C.MQRC_TRIGGER_TYPE_ERROR),
    (C.MQIA_TRIGGER_DEPTH, 0, C.MQRC_TRIGGER_DEPTH_ERROR),
    (C.MQIA_TRIGGER_DEPTH, 1_000_000_000, C.MQRC_TRIGGER_DEPTH_ERROR),
    (C.MQIA_TRIGGER_MSG_PRIORITY, 10, C.MQRC_TRIGGER_MSG_PRIORITY_ERR),
    (C.MQIA_TRIGGER_MSG_PRIORITY, -1, C.MQRC_TRIGGER_MSG_PRIORITY_ERR),
    (C.MQIA_DIST_LISTS, 5, C.MQRC_INT_ATTRS_ARRAY_ERROR),
])
def test_mqset_bad_values_change_nothing(h, selector, value, reason):
    reg = h.registry
    before = reg.queues["DEV.QUEUE.1"]
    # A good change first in the same call: it must not happen either.
    assert reason_of(I.mqset, reg, C.MQOT_Q, "DEV.QUEUE.1", [C.MQIA_INHIBIT_PUT, selector],
                     [C.MQQA_PUT_INHIBITED, value], "") == (reason, C.MQCC_FAILED)
    assert reg.queues["DEV.QUEUE.1"] == before and not reg.store.dirty


def test_mqset_selector_and_count_errors(h):
    reg = h.registry
    q = "DEV.QUEUE.1"
    assert reason_of(I.mqset, reg, C.MQOT_Q, q, [C.MQIA_MAX_Q_DEPTH], [1], "")[0] == C.MQRC_SELECTOR_ERROR
    assert reason_of(I.mqset, reg, C.MQOT_Q, q, [C.MQCA_Q_DESC], [], "x" * 64)[0] == C.MQRC_SELECTOR_ERROR
    assert reason_of(I.mqset, reg, C.MQOT_Q_MGR, "QM1", [C.MQIA_INHIBIT_PUT], [1], "")[0] == C.MQRC_SELECTOR_ERROR
    assert reason_of(I.mqset, reg, C.MQOT_Q, q, [C.MQIA_INHIBIT_PUT] * 257, [1] * 257, "")[0] == \
        C.MQRC_SELECTOR_LIMIT_EXCEEDED
    assert reason_of(I.mqset, reg, C.MQOT_Q, q, [C.MQIA_INHIBIT_PUT, C.MQIA_INHIBIT_GET], [1], "")[0] == \
        C.MQRC_INT_ATTR_COUNT_ERROR
    assert reason_of(I.mqset, reg, C.MQOT_Q, q, [C.MQCA_TRIGGER_DATA], [], "x" * 63)[0] == \
        C.MQRC_CHAR_ATTR_LENGTH_ERROR
    assert reason_of(I.mqset, reg, C.MQOT_Q, "GONE", [C.MQIA_INHIBIT_PUT], [1], "")[0] == C.MQRC_Q_DELETED
    assert not reg.store.dirty


def test_mqset_last_value_of_a_repeated_selector_wins(h):
    reg = h.registry
    I.mqset(reg, C.MQOT_Q, "DEV.QUEUE.1", [C.MQIA_TRIGGER_DEPTH, C.MQIA_TRIGGER_DEPTH], [5, 9], "")
    assert reg.queues["DEV.QUEUE.1"].trigger_depth == 9


def test_mqset_on_a_temporary_dynamic_queue_stays_in_memory(h):
    reg = h.registry
    temp = dataclasses.replace(reg.queues["DEV.QUEUE.1"], name="AMQ.TEMP", definition_type=C.MQQDT_TEMPORARY_DYNAMIC)
    reg.queues[temp.name] = temp  # as the MQI layer keeps one
    reg.commit()
    I.mqset(reg, C.MQOT_Q, "AMQ.TEMP", [C.MQIA_TRIGGER_CONTROL], [C.MQTC_ON], "")
    assert reg.queues["AMQ.TEMP"].trigger_control == C.MQTC_ON and not reg.store.dirty


# ---- a property over random selector lists -------------------------------------------------------
_EVERY_SELECTOR = sorted(set().union(*I.SELECTORS.values()) | {0, 1999, 2999, 4001, 9999, -5})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=strategies.sampled_from(OBJECTS),
       picks=strategies.lists(strategies.sampled_from(_EVERY_SELECTOR), max_size=12),
       int_room=strategies.integers(-1, 14), char_room=strategies.integers(-1, 1200))
def test_random_selector_lists_either_fail_as_documented_or_agree_with_pcf(h, target, picks, int_room, char_room):
    obj_type, name = target
    reg = h.registry
    if not reg.namelists.get("RICH.NL"):
        rich(h)
    try:
        ints, chars, comp, reason = I.mqinq(reg, obj_type, name, picks, int_room, char_room)
    except MQIError as err:
        expected = (C.MQRC_INT_ATTR_COUNT_ERROR if int_room < 0 else C.MQRC_CHAR_ATTR_LENGTH_ERROR
                    if char_room < 0 else C.MQRC_SELECTOR_ERROR)
        assert err.reason == expected
        assert expected != C.MQRC_SELECTOR_ERROR or any(p not in I.SELECTORS[obj_type] for p in picks)
        return
    assert all(p in I.SELECTORS[obj_type] for p in picks)
    expect_ints, expect_chars, not_for_type = [], [], False
    for selector in picks:
        value, sub_comp, _ = inq_value(reg, obj_type, name, selector)
        not_for_type |= sub_comp == C.MQCC_WARNING
        if sub_comp == C.MQCC_OK:
            reported = pcf_value(h, obj_type, name, selector)
            reported = "".join(reported) if isinstance(reported, tuple) else reported
            assert value == (reported.ljust(len(value)) if isinstance(reported, str) else reported)
        (expect_ints if I.is_int_selector(selector) else expect_chars).append(value)
    assert ints == expect_ints[:int_room]
    whole, room = [], char_room
    for text in expect_chars:
        if len(text) > room:
            break
        whole.append(text)
        room -= len(text)
    assert chars == "".join(whole).ljust(char_room)
    expected_reason = (C.MQRC_SELECTOR_NOT_FOR_TYPE if not_for_type else C.MQRC_INT_ATTR_COUNT_TOO_SMALL
                       if len(expect_ints) > int_room else C.MQRC_CHAR_ATTRS_TOO_SHORT
                       if len(whole) < len(expect_chars) else C.MQRC_NONE)
    assert reason == expected_reason
    assert comp == (C.MQCC_WARNING if expected_reason else C.MQCC_OK)


# ---- PCF: the new queue attributes, persistence --------------------------------------------------
NEW_SETTINGS = [
    i(C.MQIA_BACKOUT_THRESHOLD, 5), st(C.MQCA_BACKOUT_REQ_Q_NAME, "BO.Q"),
    i(C.MQIA_HARDEN_GET_BACKOUT, C.MQQA_BACKOUT_HARDENED), i(C.MQIA_TRIGGER_CONTROL, C.MQTC_ON),
    i(C.MQIA_TRIGGER_TYPE, C.MQTT_DEPTH), i(C.MQIA_TRIGGER_DEPTH, 10), i(C.MQIA_TRIGGER_MSG_PRIORITY, 3),
    st(C.MQCA_TRIGGER_DATA, "td"), st(C.MQCA_INITIATION_Q_NAME, "INIT.Q"), st(C.MQCA_PROCESS_NAME, "PROC"),
    i(C.MQIA_PROPERTY_CONTROL, C.MQPROP_NONE), i(C.MQIA_DIST_LISTS, C.MQDL_SUPPORTED),
    i(C.MQIA_MSG_DELIVERY_SEQUENCE, C.MQMDS_FIFO), i(C.MQIA_RETENTION_INTERVAL, 24),
    i(C.MQIA_Q_DEPTH_HIGH_LIMIT, 70), i(C.MQIA_Q_DEPTH_LOW_LIMIT, 30), i(C.MQIA_Q_DEPTH_MAX_EVENT, C.MQEVR_DISABLED),
    i(C.MQIA_Q_DEPTH_HIGH_EVENT, C.MQEVR_ENABLED), i(C.MQIA_Q_DEPTH_LOW_EVENT, C.MQEVR_ENABLED),
    i(C.MQIA_Q_SERVICE_INTERVAL, 100), i(C.MQIA_Q_SERVICE_INTERVAL_EVENT, C.MQQSIE_OK),
    i(C.MQIA_NPM_CLASS, C.MQNPM_CLASS_HIGH), i(C.MQIA_DEF_PUT_RESPONSE_TYPE, C.MQPRT_ASYNC_RESPONSE),
    i(C.MQIA_DEF_READ_AHEAD, C.MQREADA_YES), i(C.MQIA_DEF_BIND, C.MQBND_BIND_ON_GROUP),
    # CLUSTER alone: with CLUSNL too IBM refuses the queue (MQRCCF_CLUSTER_NAME_CONFLICT, docs/compat.md Part 6)
    st(C.MQCA_CLUSTER_NAME, "CLUS"), st(C.MQCA_CLUSTER_NAMELIST, ""), i(C.MQIA_CLWL_Q_PRIORITY, 9),
    i(C.MQIA_CLWL_Q_RANK, 8), i(C.MQIA_CLWL_USEQ, C.MQCLWL_USEQ_LOCAL), i(C.MQIA_SCOPE, C.MQSCO_Q_MGR),
    i(C.MQIA_ACCOUNTING_Q, C.MQMON_ON), i(C.MQIA_MONITORING_Q, C.MQMON_HIGH), i(C.MQIA_STATISTICS_Q, C.MQMON_OFF),
    st(C.MQCA_CUSTOM, "CAPEXPRY(10)"),
]


def test_new_queue_attributes_through_pcf_survive_a_restart(tmp_path, clock):
    h = Harness(tmp_path / "qm", clock=clock)
    try:
        r = h.run(command(C.MQCMD_CREATE_Q, st(C.MQCA_Q_NAME, "NEW.Q"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
                          *NEW_SETTINGS))
        assert r.ok, r.reason
    finally:
        h.close()
    h = Harness(tmp_path / "qm", clock=clock)
    try:
        obj = h.run(command(C.MQCMD_INQUIRE_Q, st(C.MQCA_Q_NAME, "NEW.Q"))).objects[0]
        for p in NEW_SETTINGS:
            assert obj[p.parameter] == p.value, C.describe("MQIA" if p.parameter < 2001 else "MQCA", p.parameter)
        # and MQINQ reads the same restored queue
        assert I.mqinq(h.registry, C.MQOT_Q, "NEW.Q", [C.MQIA_TRIGGER_DEPTH], 1, 0)[0] == [10]
        r = h.run(command(C.MQCMD_CHANGE_Q, st(C.MQCA_Q_NAME, "NEW.Q"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
                          i(C.MQIA_TRIGGER_DEPTH, 11)))
        assert r.ok
        r = h.run(command(C.MQCMD_COPY_Q, st(C.MQCACF_FROM_Q_NAME, "NEW.Q"), st(C.MQCACF_TO_Q_NAME, "COPY.Q"),
                          i(C.MQIA_Q_TYPE, C.MQQT_LOCAL), i(C.MQIA_CLWL_Q_RANK, 1)))
        assert r.ok
        copy = h.registry.queues["COPY.Q"]
        assert (copy.trigger_depth, copy.clwl_q_rank, copy.custom) == (11, 1, "CAPEXPRY(10)")
    finally:
        h.close()


@pytest.mark.parametrize("param, reason", [
    (i(C.MQIA_TRIGGER_DEPTH, 0), C.MQRCCF_PARM_VALUE_ERROR),
    (i(C.MQIA_TRIGGER_MSG_PRIORITY, 10), C.MQRCCF_PARM_VALUE_ERROR),
    (i(C.MQIA_Q_DEPTH_HIGH_LIMIT, 101), C.MQRCCF_PARM_VALUE_ERROR),
    (i(C.MQIA_SCOPE, C.MQSCO_CELL), C.MQRCCF_PARM_VALUE_ERROR),
    (i(C.MQIA_TRIGGER_TYPE, 9), C.MQRCCF_PARM_VALUE_ERROR),
    (st(C.MQCA_TRIGGER_DATA, "x" * 65), C.MQRCCF_CFST_STRING_LENGTH_ERR),
    (st(C.MQCA_INITIATION_Q_NAME, "bad name!"), C.MQRCCF_OBJECT_NAME_ERROR),
])
def test_new_queue_attributes_are_checked(h, param, reason):
    r = h.run(command(C.MQCMD_CHANGE_Q, st(C.MQCA_Q_NAME, "DEV.QUEUE.1"), i(C.MQIA_Q_TYPE, C.MQQT_LOCAL), param))
    assert r.reason == reason and r.error_parameter() == param.parameter


@pytest.mark.parametrize("param", [i(C.MQIA_TRIGGER_CONTROL, C.MQTC_ON), st(C.MQCA_PROCESS_NAME, "P"),
                                   i(C.MQIA_CLWL_USEQ, C.MQCLWL_USEQ_ANY)])
def test_an_alias_refuses_what_it_does_not_have(h, param):
    r = h.run(command(C.MQCMD_CHANGE_Q, st(C.MQCA_Q_NAME, "SYSTEM.DEFAULT.ALIAS.QUEUE"),
                      i(C.MQIA_Q_TYPE, C.MQQT_ALIAS), param))
    wrong = C.MQRCCF_CFIN_PARM_ID_ERROR if isinstance(param, P.CFIN) else C.MQRCCF_CFST_PARM_ID_ERROR
    assert r.reason == wrong and r.error_parameter() == param.parameter


def test_a_changed_queue_manager_attribute_survives_a_restart_in_both(tmp_path, clock):
    h = Harness(tmp_path / "qm", clock=clock)
    h.registry.qmgr.authority_event = C.MQEVR_ENABLED
    h.registry.store.set_meta("authority_event", C.MQEVR_ENABLED)  # as a Change Q Mgr would keep it
    h.registry.commit()
    h.close()
    h = Harness(tmp_path / "qm", clock=clock)
    try:
        assert I.mqinq(h.registry, C.MQOT_Q_MGR, "QM1", [C.MQIA_AUTHORITY_EVENT], 1, 0)[0] == [C.MQEVR_ENABLED]
        assert pcf_value(h, C.MQOT_Q_MGR, "QM1", C.MQIA_AUTHORITY_EVENT) == C.MQEVR_ENABLED
        assert h.registry.qmgr.conn_auth == "DEV.AUTHINFO"
    finally:
        h.close()


# ---- namelists and processes through PCF ---------------------------------------------------------
def test_default_namelist_and_process_exist(h):
    r = h.run(command(C.MQCMD_INQUIRE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "*")))
    assert [o[C.MQCA_NAMELIST_NAME] for o in r.objects] == ["SYSTEM.DEFAULT.NAMELIST"]
    assert r.objects[0][C.MQIA_NAME_COUNT] == 0 and r.objects[0][C.MQCA_NAMES] == ()
    r = h.run(command(C.MQCMD_INQUIRE_PROCESS, st(C.MQCA_PROCESS_NAME, "SYSTEM.*")))
    obj = r.objects[0]
    assert obj[C.MQCA_PROCESS_NAME] == "SYSTEM.DEFAULT.PROCESS" and obj[C.MQIA_APPL_TYPE] == C.MQAT_UNIX
    assert obj[C.MQCA_ALTERATION_DATE] == mq_date(T0) and obj[C.MQCA_ALTERATION_TIME] == mq_time(T0)


def test_namelist_lifecycle(h, clock):
    r = h.run(command(C.MQCMD_CREATE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "MY.NL"), st(C.MQCA_NAMELIST_DESC, "mine"),
                      sl(C.MQCA_NAMES, "Q.ONE", "Q.TWO")))
    assert r.ok
    assert h.run(command(C.MQCMD_CREATE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "MY.NL"))).reason == \
        C.MQRCCF_OBJECT_ALREADY_EXISTS
    clock.t += 60
    assert h.run(command(C.MQCMD_CHANGE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "MY.NL"),
                         sl(C.MQCA_NAMES, "Q.ONE", "Q.TWO", "Q.THREE"))).ok
    assert h.run(command(C.MQCMD_COPY_NAMELIST, st(C.MQCACF_FROM_NAMELIST_NAME, "MY.NL"),
                         st(C.MQCACF_TO_NAMELIST_NAME, "MY.NL.COPY"))).ok
    r = h.run(command(C.MQCMD_INQUIRE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "MY.*"),
                      il(C.MQIACF_NAMELIST_ATTRS, C.MQIA_NAME_COUNT, C.MQCA_NAMES)))
    assert [(o[C.MQCA_NAMELIST_NAME], o[C.MQIA_NAME_COUNT]) for o in r.objects] == [("MY.NL", 3), ("MY.NL.COPY", 3)]
    assert strip(r.objects[0][C.MQCA_NAMES]) == ("Q.ONE", "Q.TWO", "Q.THREE")
    assert set(r.objects[0]) == {C.MQCA_NAMELIST_NAME, C.MQIA_NAME_COUNT, C.MQCA_NAMES}
    # a filter on the list, and one on the count
    r = h.run(command(C.MQCMD_INQUIRE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "*"),
                      P.CFSF(C.MQCA_NAMES, C.MQCFOP_CONTAINS, "Q.THREE", 0)))
    assert [o[C.MQCA_NAMELIST_NAME] for o in r.objects] == ["MY.NL", "MY.NL.COPY"]
    r = h.run(command(C.MQCMD_INQUIRE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "*"),
                      P.CFIF(C.MQIA_NAME_COUNT, C.MQCFOP_EQUAL, 0)))
    assert [o[C.MQCA_NAMELIST_NAME] for o in r.objects] == ["SYSTEM.DEFAULT.NAMELIST"]
    r = h.run(command(C.MQCMD_INQUIRE_NAMELIST_NAMES, st(C.MQCA_NAMELIST_NAME, "*")))
    assert strip(r.objects[0][C.MQCACF_NAMELIST_NAMES]) == ("MY.NL", "MY.NL.COPY", "SYSTEM.DEFAULT.NAMELIST")
    assert I.mqinq(h.registry, C.MQOT_NAMELIST, "MY.NL", [C.MQIA_NAME_COUNT], 1, 0)[0] == [3]
    assert h.run(command(C.MQCMD_DELETE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "MY.NL"))).ok
    assert h.run(command(C.MQCMD_INQUIRE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "MY.NL"))).reason == \
        C.MQRC_UNKNOWN_OBJECT_NAME
    too_many = sl(C.MQCA_NAMES, *(f"N{k}" for k in range(257)))
    r = h.run(command(C.MQCMD_CREATE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "BIG.NL"), too_many))
    assert r.reason == C.MQRCCF_CFSL_COUNT_ERROR and "BIG.NL" not in h.registry.namelists


def test_process_lifecycle(h):
    assert h.run(command(C.MQCMD_CREATE_PROCESS, st(C.MQCA_PROCESS_NAME, "MY.PROC"), st(C.MQCA_APPL_ID, "/bin/app"),
                         i(C.MQIA_APPL_TYPE, C.MQAT_USER_FIRST), st(C.MQCA_ENV_DATA, "E"),
                         st(C.MQCA_USER_DATA, "U"))).ok
    assert h.run(command(C.MQCMD_CHANGE_PROCESS, st(C.MQCA_PROCESS_NAME, "MY.PROC"),
                         st(C.MQCA_PROCESS_DESC, "described"))).ok
    assert h.run(command(C.MQCMD_COPY_PROCESS, st(C.MQCACF_FROM_PROCESS_NAME, "MY.PROC"),
                         st(C.MQCACF_TO_PROCESS_NAME, "MY.PROC2"), st(C.MQCA_USER_DATA, "U2"))).ok
    r = h.run(command(C.MQCMD_INQUIRE_PROCESS, st(C.MQCA_PROCESS_NAME, "MY.*"),
                      P.CFSF(C.MQCA_USER_DATA, C.MQCFOP_EQUAL, "U2", 0)))
    obj = r.objects
    assert len(obj) == 1 and obj[0][C.MQCA_PROCESS_NAME] == "MY.PROC2"
    assert (obj[0][C.MQCA_APPL_ID], obj[0][C.MQIA_APPL_TYPE], obj[0][C.MQCA_PROCESS_DESC]) == (
        "/bin/app", C.MQAT_USER_FIRST, "described")
    r = h.run(command(C.MQCMD_INQUIRE_PROCESS_NAMES, st(C.MQCA_PROCESS_NAME, "MY*")))
    assert strip(r.objects[0][C.MQCACF_PROCESS_NAMES]) == ("MY.PROC", "MY.PROC2")
    r = h.run(command(C.MQCMD_CREATE_PROCESS, st(C.MQCA_PROCESS_NAME, "BAD"), i(C.MQIA_APPL_TYPE, -7)))
    assert r.reason == C.MQRCCF_PARM_VALUE_ERROR
    assert h.run(command(C.MQCMD_DELETE_PROCESS, st(C.MQCA_PROCESS_NAME, "MY.PROC"))).ok
    assert h.run(command(C.MQCMD_DELETE_PROCESS, st(C.MQCA_PROCESS_NAME, "MY.PROC"))).reason == \
        C.MQRC_UNKNOWN_OBJECT_NAME


def test_namelists_and_processes_survive_a_restart(tmp_path, clock):
    h = Harness(tmp_path / "qm", clock=clock)
    assert h.run(command(C.MQCMD_CREATE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "KEPT.NL"),
                         sl(C.MQCA_NAMES, "A", "B.C"))).ok
    assert h.run(command(C.MQCMD_CREATE_PROCESS, st(C.MQCA_PROCESS_NAME, "KEPT.PROC"),
                         st(C.MQCA_APPL_ID, "x"))).ok
    assert h.run(command(C.MQCMD_DELETE_NAMELIST, st(C.MQCA_NAMELIST_NAME, "SYSTEM.DEFAULT.NAMELIST"))).ok
    before = (dict(h.registry.namelists), dict(h.registry.processes))
    h.close()
    h = Harness(tmp_path / "qm", clock=clock)
    try:
        assert (h.registry.namelists, h.registry.processes) == before
        assert h.registry.namelists["KEPT.NL"].names == ("A", "B.C")
    finally:
        h.close()


def test_the_mqinq_items_ibms_monitoring_library_asks(h):
    """mq-golang mqmetric (mqif.go) asks the queue manager for QMgrName, CommandLevel, PerformanceEvent,
    MaxHandles and Platform, and each reply queue for DefReadAhead; its queue code DefinitionType and
    MaxQDepth.  All answer with MQRC_NONE."""
    sel = [C.MQCA_Q_MGR_NAME, C.MQIA_COMMAND_LEVEL, C.MQIA_PERFORMANCE_EVENT, C.MQIA_MAX_HANDLES, C.MQIA_PLATFORM]
    ints, chars, comp, reason = I.mqinq(h.registry, C.MQOT_Q_MGR, "QM1", sel, 4, 48)
    assert (comp, reason) == (C.MQCC_OK, C.MQRC_NONE) and chars.rstrip() == "QM1"
    assert ints[0] == h.registry.qmgr.command_level and ints[3] == h.registry.qmgr.platform
    sel = [C.MQIA_DEF_READ_AHEAD, C.MQIA_MAX_Q_DEPTH, C.MQIA_DEFINITION_TYPE]
    ints, _, comp, reason = I.mqinq(h.registry, C.MQOT_Q, "DEV.QUEUE.1", sel, 3, 0)
    assert (comp, reason) == (C.MQCC_OK, C.MQRC_NONE)
    q = h.registry.queues["DEV.QUEUE.1"]
    assert ints == [q.def_read_ahead, q.max_depth, C.MQQDT_PREDEFINED]
