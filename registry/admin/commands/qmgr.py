"""Queue-manager commands: Inquire Q Mgr (the first command admin tools send), Ping Q Mgr, and
Change Q Mgr with every parameter IBM documents for it on Multiplatforms (ATTRIBUTES).

TABLE is the one description of the queue manager's attributes: Inquire Q Mgr renders it and MQINQ
on the queue-manager object answers from it (registry/messaging/inquire.py), so both always agree.  Values are
those of a new MQ 9.1.2 Linux queue manager, consistent with the FAP level we claim: Platform UNIX,
CommandLevel 912, Version 09010200.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf import product

from qmlite.registry.objects import defaults
from qmlite.registry.objects import values as V
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, attr, fixed
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.pcf.encoding import codec_for_ccsid
from qmlite.registry.admin.params import (INT, INT_LIST, STR, CommandError, Param, p_int, p_int_list, p_str,
                                          parse)
from qmlite.registry.admin.commands.queues import check_name

NAME_LENGTH = C.MQ_Q_MGR_NAME_LENGTH  # 48
DESC_LENGTH = C.MQ_Q_MGR_DESC_LENGTH  # 64
_Q = C.MQ_Q_NAME_LENGTH
_KEY_PASSPHRASE_LENGTH = 1024  # MQ_SSL_KEY_PASSPHRASE_LENGTH (cmqc.h): KEYRPWD's maximum

# The fixed attributes: what this queue manager is, not what an administrator sets.  One place, read
# by Inquire Q Mgr and by MQINQ (registry/messaging/inquire.py) through TABLE below.
VERSION = product.VERSION  # MQ 9.1.2.0, matching CommandLevel 912 (pcf/product.py)
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


# Attributes IBM's Inquire Queue Manager reports (Multiplatforms) that no administrator can change
# there: each with the value a new MQ 9.4 Linux queue manager reports (IBM's documented defaults), so a
# tool that asks for one gets it rather than nothing (docs/compat.md Part 5).  ADOPTCHK/ADOPTMCA are
# z/OS-only parameters of Change Queue Manager (ALTER QMGR note "Valid only on z/OS"); the capabilities
# are what this software has.  Numbers are IBM's constant values (cmqc.h) the constants module lacks.
_MQADOPT_CHECK_ALL, _MQADOPT_TYPE_ALL = 1, 1
UNMODELLED = (
    fixed(C.MQIA_ADOPTNEWMCA_CHECK, INT, _MQADOPT_CHECK_ALL),
    fixed(C.MQIA_ADOPTNEWMCA_TYPE, INT, _MQADOPT_TYPE_ALL),
    fixed(C.MQIA_ADVANCED_CAPABILITY, INT, C.MQCAP_NOT_SUPPORTED),
    fixed(C.MQIA_AMQP_CAPABILITY, INT, C.MQCAP_NOT_SUPPORTED),  # no AMQP service here
    fixed(C.MQIA_XR_CAPABILITY, INT, C.MQCAP_NOT_SUPPORTED),  # no MQ Telemetry here
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
    attr(C.MQIA_AUTHOREV_SCOPE, INT, _q("authority_event_scope")),
    attr(C.MQIA_CERT_VAL_POLICY, INT, _q("cert_val_policy")),
    attr(C.MQIA_CHINIT_CONTROL, INT, _q("chinit_control")),
    attr(C.MQIA_CMD_SERVER_CONTROL, INT, _q("cmd_server_control")),
    attr(C.MQIA_IP_ADDRESS_VERSION, INT, _q("ip_address_version")),
    attr(C.MQIA_REVERSE_DNS_LOOKUP, INT, _q("reverse_dns_lookup")),
    attr(C.MQIA_SUITE_B_STRENGTH, INT_LIST, _q("suite_b_strength")),
    attr(C.MQIA_MEDIA_IMAGE_INTERVAL, INT, _q("media_image_interval")),
    attr(C.MQIA_MEDIA_IMAGE_LOG_LENGTH, INT, _q("media_image_log_length")),
    attr(C.MQIA_MEDIA_IMAGE_RECOVER_OBJ, INT, _q("media_image_recover_obj")),
    attr(C.MQIA_MEDIA_IMAGE_RECOVER_Q, INT, _q("media_image_recover_q")),
    attr(C.MQIA_MEDIA_IMAGE_SCHEDULING, INT, _q("media_image_scheduling")),
    attr(C.MQIA_PUBSUB_CLUSTER, INT, _q("pubsub_cluster")),
    *UNMODELLED,
    # KEYRPWD and INITKEY are write-only: Change Q Mgr stores them, no Inquire gives them back (decision G5).
])


_INQUIRE = (p_int_list(C.MQIACF_Q_MGR_ATTRS),)

# Every parameter of IBM's Change Queue Manager on Multiplatforms (MQCMD_CHANGE_Q_MGR, IBM MQ 9.4), with
# the QueueManager field it sets (registry/storage/catalog.py) and its values and ranges from that page.
# An integer outside them is MQRCCF_PARM_VALUE_ERROR, a string too long MQRCCF_CFST_STRING_LENGTH_ERR,
# anything else (z/OS-only ADOPTCHK, CHIADAPS ...; read-only PLATFORM, CMDLEVEL ...) 3014/3015, all
# through registry/admin/params.py.  What each one does here: docs/compat.md, "Change Queue Manager".
_MANY = 999_999_999
_EVENT = (C.MQEVR_DISABLED, C.MQEVR_ENABLED)
_ON_OFF = (C.MQMON_OFF, C.MQMON_ON)
_ENABLED = (C.MQMON_DISABLED, C.MQMON_ENABLED)
_LEVELS = (C.MQMON_OFF, C.MQMON_LOW, C.MQMON_MEDIUM, C.MQMON_HIGH)
_RECORDING = (C.MQRECORDING_DISABLED, C.MQRECORDING_MSG, C.MQRECORDING_Q)
_CONTROL = (C.MQSVC_CONTROL_MANUAL, C.MQSVC_CONTROL_Q_MGR)
_IMGRCOV = (V.MQIMGRCOV_NO, V.MQIMGRCOV_YES)
MAX_MSG_LENGTH_RANGE = (32_768, 104_857_600)  # MaxMsgLength on Multiplatforms

ATTRIBUTES: tuple[tuple[Param, str], ...] = (
    (p_int(C.MQIA_ACCOUNTING_CONN_OVERRIDE, *_ENABLED), "accounting_conn_override"),
    (p_int(C.MQIA_ACCOUNTING_INTERVAL, low=1, high=604_000), "accounting_interval"),
    (p_int(C.MQIA_ACCOUNTING_MQI, *_ON_OFF), "accounting_mqi"),
    (p_int(C.MQIA_ACCOUNTING_Q, *_ON_OFF, C.MQMON_NONE), "accounting_q"),
    (p_int(C.MQIA_ACTIVITY_CONN_OVERRIDE, *_ENABLED), "activity_conn_override"),
    (p_int(C.MQIA_ACTIVITY_RECORDING, *_RECORDING), "activity_recording"),
    (p_int(C.MQIA_ACTIVITY_TRACE, *_ON_OFF), "activity_trace"),
    (p_int(C.MQIA_AUTHORITY_EVENT, *_EVENT), "authority_event"),
    (p_int(C.MQIA_AUTHOREV_SCOPE, V.MQAUSC_FAILURES, V.MQAUSC_ALLCONNS, V.MQAUSC_ALLCHECKS), "authority_event_scope"),
    (p_int(C.MQIA_CODED_CHAR_SET_ID), "ccsid"),  # one qmlite can convert, else MQRCCF_Q_MGR_CCSID_ERROR
    (p_str(C.MQCA_CERT_LABEL, C.MQ_CERT_LABEL_LENGTH), "cert_label"),
    (p_int(C.MQIA_CERT_VAL_POLICY, C.MQ_CERT_VAL_POLICY_ANY, C.MQ_CERT_VAL_POLICY_RFC5280), "cert_val_policy"),
    (p_int(C.MQIA_CHANNEL_AUTO_DEF, C.MQCHAD_DISABLED, C.MQCHAD_ENABLED), "channel_auto_def"),
    (p_int(C.MQIA_CHANNEL_AUTO_DEF_EVENT, *_EVENT), "channel_auto_def_event"),
    (p_str(C.MQCA_CHANNEL_AUTO_DEF_EXIT, C.MQ_EXIT_NAME_LENGTH), "channel_auto_def_exit"),
    # Security switches (registry/security/chlauth.py, server/connection.py): CHLAUTH(ENABLED|DISABLED),
    # CONNAUTH(name), blank for no connection authentication.
    (p_int(C.MQIA_CHLAUTH_RECORDS, 0, 1), "chlauth_records"),
    (p_int(C.MQIA_CHANNEL_EVENT, *_EVENT, C.MQEVR_EXCEPTION), "channel_event"),
    (p_int(C.MQIA_CHINIT_CONTROL, *_CONTROL), "chinit_control"),
    (p_int(C.MQIA_MONITORING_CHANNEL, C.MQMON_NONE, *_LEVELS), "monitoring_channel"),
    (p_int(C.MQIA_STATISTICS_CHANNEL, C.MQMON_NONE, *_LEVELS), "statistics_channel"),
    (p_int(C.MQIA_MONITORING_AUTO_CLUSSDR, C.MQMON_Q_MGR, *_LEVELS), "monitoring_auto_clussdr"),
    (p_int(C.MQIA_STATISTICS_AUTO_CLUSSDR, C.MQMON_Q_MGR, *_LEVELS), "statistics_auto_clussdr"),
    (p_str(C.MQCA_CLUSTER_WORKLOAD_DATA, C.MQ_EXIT_DATA_LENGTH), "cluster_workload_data"),
    (p_str(C.MQCA_CLUSTER_WORKLOAD_EXIT, C.MQ_EXIT_NAME_LENGTH), "cluster_workload_exit"),
    (p_int(C.MQIA_CLUSTER_WORKLOAD_LENGTH, low=0, high=_MANY), "cluster_workload_length"),
    (p_int(C.MQIA_CLWL_MRU_CHANNELS, low=1, high=_MANY), "clwl_mru_channels"),
    (p_int(C.MQIA_CLWL_USEQ, C.MQCLWL_USEQ_LOCAL, C.MQCLWL_USEQ_ANY), "clwl_use_q"),
    (p_int(C.MQIA_COMMAND_EVENT, *_EVENT, C.MQEVR_NO_DISPLAY), "command_event"),
    (p_int(C.MQIA_CMD_SERVER_CONTROL, *_CONTROL), "cmd_server_control"),
    (p_int(C.MQIA_CONFIGURATION_EVENT, *_EVENT), "configuration_event"),
    (p_str(C.MQCA_CONN_AUTH, C.MQ_AUTH_INFO_NAME_LENGTH), "conn_auth"),
    (p_str(C.MQCA_CUSTOM, C.MQ_CUSTOM_LENGTH), "custom"),
    (p_str(C.MQCA_DEAD_LETTER_Q_NAME, _Q), "dead_letter_queue"),
    (p_int(C.MQIA_DEF_CLUSTER_XMIT_Q_TYPE, C.MQCLXQ_SCTQ, C.MQCLXQ_CHANNEL), "def_cluster_xmit_q_type"),
    (p_str(C.MQCA_DEF_XMIT_Q_NAME, _Q), "def_xmit_q"),
    (p_int(C.MQIA_MEDIA_IMAGE_INTERVAL, low=0, high=999_999), "media_image_interval"),  # 0: OFF
    (p_int(C.MQIA_MEDIA_IMAGE_LOG_LENGTH, low=0, high=_MANY), "media_image_log_length"),  # 0: OFF
    (p_int(C.MQIA_MEDIA_IMAGE_RECOVER_OBJ, *_IMGRCOV), "media_image_recover_obj"),
    (p_int(C.MQIA_MEDIA_IMAGE_RECOVER_Q, *_IMGRCOV), "media_image_recover_q"),
    (p_int(C.MQIA_MEDIA_IMAGE_SCHEDULING, V.MQMEDIMGSCHED_MANUAL, V.MQMEDIMGSCHED_AUTO), "media_image_scheduling"),
    (p_int(C.MQIA_INHIBIT_EVENT, *_EVENT), "inhibit_event"),
    (p_str(C.MQCA_INITIAL_KEY, C.MQ_INITIAL_KEY_LENGTH), "initial_key"),
    (p_int(C.MQIA_IP_ADDRESS_VERSION, V.MQIPADDR_IPV4, V.MQIPADDR_IPV6), "ip_address_version"),
    (p_str(C.MQCA_SSL_KEY_REPO_PASSWORD, _KEY_PASSPHRASE_LENGTH), "ssl_key_repo_password"),
    (p_int(C.MQIA_LOCAL_EVENT, *_EVENT), "local_event"),
    (p_int(C.MQIA_LOGGER_EVENT, *_EVENT), "logger_event"),
    (p_int(C.MQIA_MSG_MARK_BROWSE_INTERVAL, low=-1, high=_MANY), "msg_mark_browse_interval"),  # -1: NOLIMIT
    (p_int(C.MQIA_MAX_HANDLES, low=0, high=_MANY), "max_handles"),
    (p_int(C.MQIA_MAX_MSG_LENGTH, low=MAX_MSG_LENGTH_RANGE[0], high=MAX_MSG_LENGTH_RANGE[1]), "max_msg_length"),
    (p_int(C.MQIA_MAX_PROPERTIES_LENGTH, low=-1, high=104_857_600), "max_properties_length"),  # -1: NOLIMIT
    (p_int(C.MQIA_MAX_UNCOMMITTED_MSGS, low=1, high=_MANY), "max_uncommitted_msgs"),
    (p_int(C.MQIA_STATISTICS_MQI, *_ON_OFF), "statistics_mqi"),
    (p_str(C.MQCA_PARENT, NAME_LENGTH), "parent"),
    (p_int(C.MQIA_PERFORMANCE_EVENT, *_EVENT), "performance_event"),
    (p_int(C.MQIA_PUBSUB_CLUSTER, C.MQPSCLUS_DISABLED, C.MQPSCLUS_ENABLED), "pubsub_cluster"),
    (p_int(C.MQIA_PUBSUB_MAXMSG_RETRY_COUNT, low=0, high=_MANY), "pubsub_max_msg_retry_count"),
    (p_int(C.MQIA_PUBSUB_MODE, C.MQPSM_COMPAT, C.MQPSM_DISABLED, C.MQPSM_ENABLED), "pubsub_mode"),
    (p_int(C.MQIA_PUBSUB_NP_MSG, C.MQUNDELIVERED_DISCARD, C.MQUNDELIVERED_KEEP), "pubsub_np_msg"),
    (p_int(C.MQIA_PUBSUB_NP_RESP, C.MQUNDELIVERED_NORMAL, C.MQUNDELIVERED_SAFE, C.MQUNDELIVERED_DISCARD,
           C.MQUNDELIVERED_KEEP), "pubsub_np_resp"),
    (p_int(C.MQIA_PUBSUB_SYNC_PT, C.MQSYNCPOINT_IFPER, C.MQSYNCPOINT_YES), "pubsub_sync_pt"),
    (p_str(C.MQCA_Q_MGR_DESC, DESC_LENGTH), "description"),
    (p_int(C.MQIA_MONITORING_Q, C.MQMON_NONE, *_LEVELS), "monitoring_q"),
    (p_int(C.MQIA_STATISTICS_Q, C.MQMON_NONE, *_ON_OFF), "statistics_q"),
    (p_int(C.MQIA_REMOTE_EVENT, *_EVENT), "remote_event"),
    (p_str(C.MQCA_REPOSITORY_NAME, C.MQ_CLUSTER_NAME_LENGTH), "repository_name"),
    (p_str(C.MQCA_REPOSITORY_NAMELIST, C.MQ_NAMELIST_NAME_LENGTH), "repository_namelist"),
    (p_int(C.MQIA_REVERSE_DNS_LOOKUP, V.MQRDNS_ENABLED, V.MQRDNS_DISABLED), "reverse_dns_lookup"),
    (p_str(C.MQCA_SSL_CRL_NAMELIST, C.MQ_NAMELIST_NAME_LENGTH), "ssl_crl_namelist"),
    (p_str(C.MQCA_SSL_CRYPTO_HARDWARE, C.MQ_SSL_CRYPTO_HARDWARE_LENGTH), "ssl_crypto_hardware"),
    (p_int(C.MQIA_SSL_EVENT, *_EVENT), "ssl_event"),
    (p_int(C.MQIA_SSL_FIPS_REQUIRED, C.MQSSL_FIPS_NO, C.MQSSL_FIPS_YES), "ssl_fips_required"),
    (p_str(C.MQCA_SSL_KEY_REPOSITORY, C.MQ_SSL_KEY_REPOSITORY_LENGTH), "ssl_key_repository"),
    (p_int(C.MQIA_SSL_RESET_COUNT, low=0, high=_MANY), "ssl_reset_count"),
    (p_int(C.MQIA_START_STOP_EVENT, *_EVENT), "start_stop_event"),
    (p_int(C.MQIA_STATISTICS_INTERVAL, low=1, high=604_000), "statistics_interval"),
    (p_int_list(C.MQIA_SUITE_B_STRENGTH), "suite_b_strength"),
    (p_int(C.MQIA_TRACE_ROUTE_RECORDING, *_RECORDING), "trace_route_recording"),
    (p_int(C.MQIA_TREE_LIFE_TIME, low=0, high=604_000), "tree_life_time"),  # 0, or 60-604000
    (p_int(C.MQIA_TRIGGER_INTERVAL, low=0, high=_MANY), "trigger_interval"),
)
_FIELD = {param.id: field for param, field in ATTRIBUTES}
_CHANGE = tuple(param for param, _ in ATTRIBUTES) + (p_int(C.MQIACF_FORCE, V.MQFC_NO, V.MQFC_YES),)
_SUITE_B = frozenset({C.MQ_SUITE_B_NONE, C.MQ_SUITE_B_128_BIT, C.MQ_SUITE_B_192_BIT})
_QUEUE_NAMES = (C.MQCA_DEAD_LETTER_Q_NAME, C.MQCA_DEF_XMIT_Q_NAME)  # blank, or a queue name: need not exist


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
    values.pop(C.MQIACF_FORCE, None)  # FORCE matters only with DEFXMITQ and open remote queues: none here
    _check(values, ctx.registry.qmgr)
    reg = ctx.registry
    qmgr, store = reg.qmgr, reg.store
    for pid, value in values.items():  # every check passed: the command changes all or nothing
        field = _FIELD[pid]
        setattr(qmgr, field, value)
        store.set_meta(field, qmgr.meta_value(field))
    qmgr.altered = reg.now()
    store.set_meta("altered", qmgr.altered)
    return R.ok(ctx.command)


def _check(values: dict[int, object], qmgr) -> None:
    """The rules beyond one value's type and range, with IBM's reasons; raises before any change."""
    for pid in _QUEUE_NAMES:
        name = values.get(pid)
        if name:  # blank means none; the queue need not exist (as ALTER QMGR DEADQ/DEFXMITQ)
            check_name(name, pid)  # type: ignore[arg-type]
    if C.MQIA_CODED_CHAR_SET_ID in values \
            and codec_for_ccsid(values[C.MQIA_CODED_CHAR_SET_ID]) is None:  # type: ignore[arg-type]
        # a CCSID qmlite cannot convert strings in would make its own commands unreadable
        raise CommandError(C.MQRCCF_Q_MGR_CCSID_ERROR, parameter=C.MQIA_CODED_CHAR_SET_ID)
    tree_life = values.get(C.MQIA_TREE_LIFE_TIME)
    if tree_life is not None and 0 < tree_life < 60:  # type: ignore[operator]
        raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=C.MQIA_TREE_LIFE_TIME)
    suite_b = values.get(C.MQIA_SUITE_B_STRENGTH)
    if suite_b is not None:
        chosen = set(suite_b)  # type: ignore[arg-type]
        if not chosen or not chosen <= _SUITE_B or (C.MQ_SUITE_B_NONE in chosen and len(chosen) > 1):
            raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=C.MQIA_SUITE_B_STRENGTH)
        values[C.MQIA_SUITE_B_STRENGTH] = tuple(sorted(chosen))
    # A queue manager is a full repository for one cluster or for a namelist of clusters, not both.
    repos = values.get(C.MQCA_REPOSITORY_NAME, qmgr.repository_name)
    reposnl = values.get(C.MQCA_REPOSITORY_NAMELIST, qmgr.repository_namelist)
    if repos and reposnl:
        raise CommandError(C.MQRCCF_REPOS_NAME_CONFLICT,
                           parameter=C.MQCA_REPOSITORY_NAMELIST if C.MQCA_REPOSITORY_NAMELIST in values
                           else C.MQCA_REPOSITORY_NAME)


def register(engine) -> None:
    engine.register(C.MQCMD_INQUIRE_Q_MGR, inquire_q_mgr)
    engine.register(C.MQCMD_PING_Q_MGR, ping_q_mgr)
    engine.register(C.MQCMD_CHANGE_Q_MGR, change_q_mgr)
