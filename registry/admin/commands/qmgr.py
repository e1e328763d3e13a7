"""Queue-manager commands: Inquire Q Mgr (the first command admin tools send), Ping Q Mgr, and
Change Q Mgr for Description and DeadLetterQName.

TABLE is the one description of the queue manager's attributes: Inquire Q Mgr renders it and MQINQ
on the queue-manager object answers from it (registry/messaging/inquire.py), so both always agree.  Values are
those of a new MQ 9.1.2 Linux queue manager, consistent with the FAP level we claim: Platform UNIX,
CommandLevel 912, Version 09010200.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import defaults
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, attr, fixed
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.admin.params import INT, INT_LIST, STR, p_int, p_int_list, p_str, parse
from qmlite.registry.admin.commands.queues import check_name

NAME_LENGTH = C.MQ_Q_MGR_NAME_LENGTH  # 48
DESC_LENGTH = C.MQ_Q_MGR_DESC_LENGTH  # 64
_Q = C.MQ_Q_NAME_LENGTH

# The fixed attributes: what this queue manager is, not what an administrator sets.  One place, read
# by Inquire Q Mgr and by MQINQ (registry/messaging/inquire.py) through TABLE below.
VERSION = "09010200"  # MQ 9.1.2.0, matching CommandLevel 912 (MQ_VERSION_LENGTH 8)
MAX_PRIORITY = 9
SYNCPOINT_AVAILABLE = C.MQSP_AVAILABLE
CPI_LEVEL = 100
INSTALLATION = "Installation1"  # a container's only installation
INSTALLATION_DESC = ""
INSTALLATION_PATH = "/opt/mqm"
# qmlite accepts no distribution lists (MQOD records are skipped, docs/decisions.md): the queue
# manager says so, to MQINQ and to Inquire Q Mgr alike.
DIST_LISTS = C.MQDL_NOT_SUPPORTED
PROT_POLICY_CAPABILITY = C.MQCAP_NOT_SUPPORTED  # no AMS policies (FCNO CapabilityFlags, decision S9)


# Attributes IBM's Inquire Queue Manager reports (Multiplatforms) that qmlite does not model: each
# with the value a new MQ 9.4 Linux queue manager reports (IBM's documented defaults), so a tool
# that asks for one gets it rather than nothing (docs/compat.md Part 5).  Numbers are IBM's
# constant values (cmqc.h / cmqcfc.h) where the generated constants module lacks the name.
_MQADOPT_CHECK_ALL, _MQADOPT_TYPE_ALL = 1, 1
_MQIPADDR_IPV4 = 0
_MQRDNS_ENABLED = 0
_MQIMGSCHED_MANUAL, _MQIMGRCOV_YES = 0, 1
UNMODELLED = (
    fixed(C.MQIA_ADOPTNEWMCA_CHECK, INT, _MQADOPT_CHECK_ALL),
    fixed(C.MQIA_ADOPTNEWMCA_TYPE, INT, _MQADOPT_TYPE_ALL),
    fixed(C.MQIA_ADVANCED_CAPABILITY, INT, C.MQCAP_NOT_SUPPORTED),
    fixed(C.MQIA_AMQP_CAPABILITY, INT, C.MQCAP_NOT_SUPPORTED),  # no AMQP service here
    fixed(C.MQIA_CERT_VAL_POLICY, INT, C.MQ_CERT_VAL_POLICY_ANY),
    fixed(C.MQIA_CHINIT_CONTROL, INT, C.MQSVC_CONTROL_Q_MGR),
    fixed(C.MQIA_CMD_SERVER_CONTROL, INT, C.MQSVC_CONTROL_Q_MGR),
    fixed(C.MQIA_IP_ADDRESS_VERSION, INT, _MQIPADDR_IPV4),
    fixed(C.MQIA_REVERSE_DNS_LOOKUP, INT, _MQRDNS_ENABLED),
    fixed(C.MQIA_SUITE_B_STRENGTH, INT_LIST, (C.MQ_SUITE_B_NONE,)),
    fixed(C.MQIA_XR_CAPABILITY, INT, C.MQCAP_NOT_SUPPORTED),  # no MQ Telemetry here
    fixed(C.MQIA_MEDIA_IMAGE_INTERVAL, INT, 0),  # IMGINTVL(60) only applies with linear logging
    fixed(C.MQIA_MEDIA_IMAGE_LOG_LENGTH, INT, 0),
    fixed(C.MQIA_MEDIA_IMAGE_RECOVER_OBJ, INT, _MQIMGRCOV_YES),
    fixed(C.MQIA_MEDIA_IMAGE_RECOVER_Q, INT, _MQIMGRCOV_YES),
    fixed(C.MQIA_MEDIA_IMAGE_SCHEDULING, INT, _MQIMGSCHED_MANUAL),
    fixed(C.MQIA_KEY_REUSE_COUNT, INT, 0),
)


class _View:
    """The queue manager as Inquire sees it."""

    __slots__ = ("qmgr", "altered")

    def __init__(self, registry) -> None:
        self.qmgr = registry.qmgr
        self.altered = self.qmgr.altered


def qmgr_view(registry) -> _View:
    return _View(registry)


def _q(field: str):
    def get(v: _View) -> object:
        return getattr(v.qmgr, field)
    get.__name__ = field
    return get


def _fixed(value: object):
    return lambda v: value


TABLE = AttrTable([
    attr(C.MQCA_Q_MGR_NAME, STR, _q("name"), pad=NAME_LENGTH, always=True),
    attr(C.MQCA_Q_MGR_DESC, STR, _q("description"), pad=DESC_LENGTH),
    attr(C.MQIA_PLATFORM, INT, _q("platform")),
    attr(C.MQIA_COMMAND_LEVEL, INT, _q("command_level")),
    attr(C.MQIA_CODED_CHAR_SET_ID, INT, _q("ccsid")),
    attr(C.MQCA_DEAD_LETTER_Q_NAME, STR, _q("dead_letter_queue"), pad=_Q),
    attr(C.MQCA_COMMAND_INPUT_Q_NAME, STR, _fixed(defaults.COMMAND_QUEUE), pad=_Q),
    attr(C.MQCA_Q_MGR_IDENTIFIER, STR, _q("identifier"), pad=C.MQ_Q_MGR_IDENTIFIER_LENGTH),
    attr(C.MQIA_MAX_HANDLES, INT, _q("max_handles")),
    attr(C.MQIA_MAX_MSG_LENGTH, INT, _q("max_msg_length")),
    attr(C.MQIA_MAX_PRIORITY, INT, _fixed(MAX_PRIORITY)),
    attr(C.MQIA_SYNCPOINT, INT, _fixed(SYNCPOINT_AVAILABLE)),
    attr(C.MQIA_PUBSUB_MODE, INT, _q("pubsub_mode")),
    attr(C.MQIA_DIST_LISTS, INT, _fixed(DIST_LISTS)),
    attr(C.MQIA_MAX_UNCOMMITTED_MSGS, INT, _q("max_uncommitted_msgs")),
    attr(C.MQIA_TRIGGER_INTERVAL, INT, _q("trigger_interval")),
    attr(C.MQIA_CPI_LEVEL, INT, _fixed(CPI_LEVEL)),
    attr(C.MQIA_MAX_PROPERTIES_LENGTH, INT, _q("max_properties_length")),
    attr(C.MQCA_DEF_XMIT_Q_NAME, STR, _q("def_xmit_q"), pad=_Q),
    attr(C.MQCA_INSTALLATION_NAME, STR, _fixed(INSTALLATION), pad=C.MQ_INSTALLATION_NAME_LENGTH),
    attr(C.MQCA_INSTALLATION_DESC, STR, _fixed(INSTALLATION_DESC), pad=C.MQ_INSTALLATION_DESC_LENGTH),
    attr(C.MQCA_INSTALLATION_PATH, STR, _fixed(INSTALLATION_PATH), pad=C.MQ_INSTALLATION_PATH_LENGTH),
    attr(C.MQCA_VERSION, STR, _fixed(VERSION), pad=C.MQ_VERSION_LENGTH),
    attr(C.MQCA_CREATION_DATE, STR, lambda v: mq_date(v.qmgr.created), pad=C.MQ_CREATION_DATE_LENGTH),
    attr(C.MQCA_CREATION_TIME, STR, lambda v: mq_time(v.qmgr.created), pad=C.MQ_CREATION_TIME_LENGTH),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda v: mq_date(v.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda v: mq_time(v.altered), pad=C.MQ_TIME_LENGTH),
    attr(C.MQCA_CONN_AUTH, STR, _q("conn_auth"), pad=C.MQ_AUTH_INFO_NAME_LENGTH),
    attr(C.MQIA_CHLAUTH_RECORDS, INT, _q("chlauth_records")),
    attr(C.MQCA_CUSTOM, STR, _q("custom"), pad=C.MQ_CUSTOM_LENGTH),
    attr(C.MQCA_PARENT, STR, _q("parent"), pad=NAME_LENGTH),
    attr(C.MQCA_CHANNEL_AUTO_DEF_EXIT, STR, _q("channel_auto_def_exit"), pad=C.MQ_EXIT_NAME_LENGTH),
    attr(C.MQCA_CLUSTER_WORKLOAD_DATA, STR, _q("cluster_workload_data"), pad=C.MQ_EXIT_DATA_LENGTH),
    attr(C.MQCA_CLUSTER_WORKLOAD_EXIT, STR, _q("cluster_workload_exit"), pad=C.MQ_EXIT_NAME_LENGTH),
    attr(C.MQCA_REPOSITORY_NAME, STR, _q("repository_name"), pad=C.MQ_CLUSTER_NAME_LENGTH),
    attr(C.MQCA_REPOSITORY_NAMELIST, STR, _q("repository_namelist"), pad=C.MQ_NAMELIST_NAME_LENGTH),
    attr(C.MQCA_SSL_CRL_NAMELIST, STR, _q("ssl_crl_namelist"), pad=C.MQ_NAMELIST_NAME_LENGTH),
    attr(C.MQCA_SSL_CRYPTO_HARDWARE, STR, _q("ssl_crypto_hardware"), pad=C.MQ_SSL_CRYPTO_HARDWARE_LENGTH),
    attr(C.MQCA_SSL_KEY_REPOSITORY, STR, _q("ssl_key_repository"), pad=C.MQ_SSL_KEY_REPOSITORY_LENGTH),
    attr(C.MQCA_CERT_LABEL, STR, _q("cert_label"), pad=C.MQ_CERT_LABEL_LENGTH),
    attr(C.MQIA_ACCOUNTING_CONN_OVERRIDE, INT, _q("accounting_conn_override")),
    attr(C.MQIA_ACCOUNTING_INTERVAL, INT, _q("accounting_interval")),
    attr(C.MQIA_ACCOUNTING_MQI, INT, _q("accounting_mqi")),
    attr(C.MQIA_ACCOUNTING_Q, INT, _q("accounting_q")),
    attr(C.MQIA_ACTIVITY_CONN_OVERRIDE, INT, _q("activity_conn_override")),
    attr(C.MQIA_ACTIVITY_RECORDING, INT, _q("activity_recording")),
    attr(C.MQIA_ACTIVITY_TRACE, INT, _q("activity_trace")),
    attr(C.MQIA_AUTHORITY_EVENT, INT, _q("authority_event")),
    attr(C.MQIA_CHANNEL_AUTO_DEF, INT, _q("channel_auto_def")),
    attr(C.MQIA_CHANNEL_AUTO_DEF_EVENT, INT, _q("channel_auto_def_event")),
    attr(C.MQIA_CHANNEL_EVENT, INT, _q("channel_event")),
    attr(C.MQIA_CLUSTER_WORKLOAD_LENGTH, INT, _q("cluster_workload_length")),
    attr(C.MQIA_CLWL_MRU_CHANNELS, INT, _q("clwl_mru_channels")),
    attr(C.MQIA_CLWL_USEQ, INT, _q("clwl_use_q")),
    attr(C.MQIA_COMMAND_EVENT, INT, _q("command_event")),
    attr(C.MQIA_CONFIGURATION_EVENT, INT, _q("configuration_event")),
    attr(C.MQIA_DEF_CLUSTER_XMIT_Q_TYPE, INT, _q("def_cluster_xmit_q_type")),
    attr(C.MQIA_INHIBIT_EVENT, INT, _q("inhibit_event")),
    attr(C.MQIA_LOCAL_EVENT, INT, _q("local_event")),
    attr(C.MQIA_LOGGER_EVENT, INT, _q("logger_event")),
    attr(C.MQIA_MONITORING_AUTO_CLUSSDR, INT, _q("monitoring_auto_clussdr")),
    attr(C.MQIA_MONITORING_CHANNEL, INT, _q("monitoring_channel")),
    attr(C.MQIA_MONITORING_Q, INT, _q("monitoring_q")),
    attr(C.MQIA_MSG_MARK_BROWSE_INTERVAL, INT, _q("msg_mark_browse_interval")),
    attr(C.MQIA_PERFORMANCE_EVENT, INT, _q("performance_event")),
    attr(C.MQIA_PROT_POLICY_CAPABILITY, INT, _fixed(PROT_POLICY_CAPABILITY)),
    attr(C.MQIA_PUBSUB_MAXMSG_RETRY_COUNT, INT, _q("pubsub_max_msg_retry_count")),
    attr(C.MQIA_PUBSUB_NP_MSG, INT, _q("pubsub_np_msg")),
    attr(C.MQIA_PUBSUB_NP_RESP, INT, _q("pubsub_np_resp")),
    attr(C.MQIA_PUBSUB_SYNC_PT, INT, _q("pubsub_sync_pt")),
    attr(C.MQIA_REMOTE_EVENT, INT, _q("remote_event")),
    attr(C.MQIA_SSL_EVENT, INT, _q("ssl_event")),
    attr(C.MQIA_SSL_FIPS_REQUIRED, INT, _q("ssl_fips_required")),
    attr(C.MQIA_SSL_RESET_COUNT, INT, _q("ssl_reset_count")),
    attr(C.MQIA_START_STOP_EVENT, INT, _q("start_stop_event")),
    attr(C.MQIA_STATISTICS_AUTO_CLUSSDR, INT, _q("statistics_auto_clussdr")),
    attr(C.MQIA_STATISTICS_CHANNEL, INT, _q("statistics_channel")),
    attr(C.MQIA_STATISTICS_INTERVAL, INT, _q("statistics_interval")),
    attr(C.MQIA_STATISTICS_MQI, INT, _q("statistics_mqi")),
    attr(C.MQIA_STATISTICS_Q, INT, _q("statistics_q")),
    attr(C.MQIA_TRACE_ROUTE_RECORDING, INT, _q("trace_route_recording")),
    attr(C.MQIA_TREE_LIFE_TIME, INT, _q("tree_life_time")),
    *UNMODELLED,
])

_INQUIRE = (p_int_list(C.MQIACF_Q_MGR_ATTRS),)
_CHANGE = (p_str(C.MQCA_Q_MGR_DESC, DESC_LENGTH), p_str(C.MQCA_DEAD_LETTER_Q_NAME, NAME_LENGTH),
           p_int(C.MQIACF_FORCE, 1, 0),
           # Security switches (registry/security/chlauth.py, server/connection.py): CHLAUTH(ENABLED|DISABLED),
           # CONNAUTH(name), blank for no connection authentication.
           p_int(C.MQIA_CHLAUTH_RECORDS, 0, 1), p_str(C.MQCA_CONN_AUTH, C.MQ_AUTH_INFO_NAME_LENGTH))


def inquire_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _INQUIRE).values
    selected = TABLE.select(values.get(C.MQIACF_Q_MGR_ATTRS))  # type: ignore[arg-type]
    return R.data(ctx.command, [TABLE.render(qmgr_view(ctx.registry), selected)],
                  none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def ping_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parse(request, ())
    return R.ok(ctx.command)


def change_q_mgr(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CHANGE).values
    dlq = values.get(C.MQCA_DEAD_LETTER_Q_NAME)
    if dlq:  # blank means "no dead-letter queue"; the queue need not exist (as ALTER QMGR DEADQ)
        check_name(dlq, C.MQCA_DEAD_LETTER_Q_NAME)  # type: ignore[arg-type]
    reg = ctx.registry
    qmgr, store = reg.qmgr, reg.store
    if C.MQCA_Q_MGR_DESC in values:
        qmgr.description = values[C.MQCA_Q_MGR_DESC]  # type: ignore[assignment]
        store.set_meta("description", qmgr.description)
    if dlq is not None:
        qmgr.dead_letter_queue = dlq  # type: ignore[assignment]
        store.set_meta("dead_letter_queue", dlq)
    for pid, field in ((C.MQIA_CHLAUTH_RECORDS, "chlauth_records"), (C.MQCA_CONN_AUTH, "conn_auth")):
        if pid in values:
            setattr(qmgr, field, values[pid])
            store.set_meta(field, values[pid])
    qmgr.altered = reg.now()
    store.set_meta("altered", qmgr.altered)
    return R.ok(ctx.command)


def register(engine) -> None:
    engine.register(C.MQCMD_INQUIRE_Q_MGR, inquire_q_mgr)
    engine.register(C.MQCMD_PING_Q_MGR, ping_q_mgr)
    engine.register(C.MQCMD_CHANGE_Q_MGR, change_q_mgr)
