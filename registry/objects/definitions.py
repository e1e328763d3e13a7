"""The objects a queue manager administers: subscriptions, queues, topics, namelists, processes.

Field defaults are those of the SYSTEM.DEFAULT.* objects (docs/reference/pcf.md section 10.1 for subscriptions).
Times are epoch seconds; they are formatted the MQ way (``yyyy-mm-dd`` / ``hh.mm.ss``) only when a
response is built.  Classes use slots because a registry may hold a million subscriptions.
"""

from __future__ import annotations

import dataclasses
import time

from qmlite.pcf import constants as C

NO_BYTES_24 = bytes(24)
NO_BYTES_32 = bytes(32)


def mq_date(epoch: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(epoch))


def mq_time(epoch: float) -> str:
    return time.strftime("%H.%M.%S", time.localtime(epoch))


_STAMP = [-1, "", ""]  # the second last formatted, its PutDate and its PutTime without hundredths


def put_stamp(now: float) -> tuple[str, str]:
    """PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` in GMT; formatting once a second is enough."""
    second = int(now)
    if second != _STAMP[0]:
        t = time.gmtime(second)
        _STAMP[:] = [second, time.strftime("%Y%m%d", t), time.strftime("%H%M%S", t)]
    return _STAMP[1], f"{_STAMP[2]}{int(now * 100) % 100:02d}"


def stamp_definition(obj, replaced, now: float):
    """A new or replacing definition: Replace keeps the creation time, and either way it is altered now."""
    obj.created = replaced.created if replaced is not None else now
    obj.altered = now
    return obj


@dataclasses.dataclass(slots=True)
class Subscription:
    name: str
    sub_id: bytes
    topic_object: str = ""
    topic_string: str = ""  # as defined; the full string is resolved_topic
    resolved_topic: str = ""
    destination: str = ""
    destination_qmgr: str = ""
    destination_class: int = C.MQDC_PROVIDED
    destination_correl_id: bytes = NO_BYTES_24
    expiry: int = C.MQEI_UNLIMITED  # tenths of a second from creation
    pub_accounting_token: bytes = NO_BYTES_32
    pub_appl_identity_data: str = ""
    pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED
    psprop: int = C.MQPSPROP_MSGPROP
    selector: str = ""
    selector_type: int = C.MQSELTYPE_NONE
    sub_level: int = 1
    sub_scope: int = C.MQTSCOPE_ALL
    sub_type: int = C.MQSUBTYPE_ADMIN
    sub_user: str = ""
    user_data: str = ""
    variable_user: int = C.MQVU_ANY_USER
    wildcard_schema: int = C.MQWS_TOPIC
    request_only: int = C.MQRU_PUBLISH_ALL
    durable: int = C.MQSUB_DURABLE_YES
    created: float = 0.0
    altered: float = 0.0
    # Status (Inquire Sub Status); not part of the definition, kept current by routing.
    resumed: float = 0.0
    last_message: float = 0.0
    message_count: int = 0
    active_connection: bytes = NO_BYTES_24
    # The MQSO options an API subscription was made or last altered with (GROUP_SUB,
    # SET_IDENTITY_CONTEXT, NEW_PUBLICATIONS_ONLY, ...): routing reads them.  0 for admin subscriptions.
    sub_options: int = 0
    # Topic strings of the WILDCARD(BLOCK) topic objects that stood below this subscription's first
    # wildcard when it was made: IBM reads WILDCARD when a subscription is defined, so later changes
    # of the attribute do not change what an existing subscription receives.
    blocked_under: tuple[str, ...] = ()

    def expires_at(self) -> float | None:
        if self.expiry < 0:
            return None
        return self.created + self.expiry / 10.0


@dataclasses.dataclass(slots=True)
class Queue:
    name: str
    qtype: int = C.MQQT_LOCAL
    description: str = ""
    max_depth: int = 5000
    max_msg_length: int = 4_194_304
    def_persistence: int = C.MQPER_NOT_PERSISTENT
    def_priority: int = 0
    inhibit_get: int = C.MQQA_GET_ALLOWED
    inhibit_put: int = C.MQQA_PUT_ALLOWED
    shareability: int = C.MQQA_SHAREABLE
    def_input_open_option: int = C.MQOO_INPUT_SHARED
    usage: int = C.MQUS_NORMAL
    definition_type: int = C.MQQDT_PREDEFINED
    def_type: int = C.MQQDT_PERMANENT_DYNAMIC  # model queues: what they create
    target: str = ""  # alias queues: TARGET (BaseQName)
    target_type: int = C.MQOT_Q
    created: float = 0.0
    altered: float = 0.0
    # Schema 4 (store.py): the remaining attributes IBM documents for MQINQ and Inquire Queue on
    # Multiplatforms, with SYSTEM.DEFAULT.LOCAL.QUEUE's values.  Plain stored values: qmlite does not
    # trigger, raise events, cluster or account, so they are reported and changed, never acted on.
    backout_threshold: int = 0  # BOTHRESH
    backout_requeue_q: str = ""  # BOQNAME
    harden_get_backout: int = C.MQQA_BACKOUT_NOT_HARDENED  # NOHARDENBO
    trigger_control: int = C.MQTC_OFF  # NOTRIGGER
    trigger_type: int = C.MQTT_FIRST
    trigger_depth: int = 1
    trigger_msg_priority: int = 0
    trigger_data: str = ""
    initiation_q: str = ""  # INITQ
    process_name: str = ""
    property_control: int = C.MQPROP_COMPATIBILITY
    dist_lists: int = C.MQDL_NOT_SUPPORTED  # DISTL(NO)
    msg_delivery_sequence: int = C.MQMDS_PRIORITY
    retention_interval: int = 999_999_999  # hours
    q_depth_high_limit: int = 80  # percent of MaxQDepth
    q_depth_low_limit: int = 20
    q_depth_max_event: int = C.MQEVR_ENABLED
    q_depth_high_event: int = C.MQEVR_DISABLED
    q_depth_low_event: int = C.MQEVR_DISABLED
    q_service_interval: int = 999_999_999  # milliseconds
    q_service_interval_event: int = C.MQQSIE_NONE
    npm_class: int = C.MQNPM_CLASS_NORMAL
    def_put_response: int = C.MQPRT_SYNC_RESPONSE
    def_read_ahead: int = C.MQREADA_NO
    def_bind: int = C.MQBND_BIND_ON_OPEN
    cluster_name: str = ""
    cluster_namelist: str = ""
    clwl_q_priority: int = 0
    clwl_q_rank: int = 0
    clwl_use_q: int = C.MQCLWL_USEQ_AS_Q_MGR
    scope: int = C.MQSCO_Q_MGR
    accounting_q: int = C.MQMON_Q_MGR  # ACCTQ(QMGR)
    monitoring_q: int = C.MQMON_Q_MGR
    statistics_q: int = C.MQMON_Q_MGR
    custom: str = ""
    # Schema 8: remote queue definitions, and the attributes of IBM's Change Queue that later
    # releases added (MQ 9.4 Multiplatforms), with SYSTEM.DEFAULT.*.QUEUE's values.
    remote_q_name: str = ""  # RNAME (remote queues)
    remote_qmgr_name: str = ""  # RQMNAME
    xmit_q_name: str = ""  # XMITQ
    cap_expiry: int = -1  # CAPEXPRY(NOLIMIT), tenths of a second: MQPUT caps a message's Expiry to it
    max_q_file_size: int = -1  # MAXFSIZE(DEFAULT), megabytes
    image_recover_q: int = 2  # IMGRCOVQ(QMGR), MQIMGRCOV_AS_Q_MGR
    stream_q: str = ""  # STREAMQ
    stream_qos: int = 0  # STRMQOS(BESTEF), MQST_BEST_EFFORT
    cluster_channel_name: str = ""  # CLCHNAME (transmission queues)


@dataclasses.dataclass(slots=True)
class Namelist:
    """A namelist (SYSTEM.DEFAULT.NAMELIST's defaults).  ``namelist_type`` is z/OS's NLTYPE: kept so a
    definition round-trips, reported nowhere on Multiplatforms."""

    name: str
    description: str = ""
    names: tuple[str, ...] = ()
    namelist_type: int = C.MQNT_NONE
    created: float = 0.0
    altered: float = 0.0


@dataclasses.dataclass(slots=True)
class Process:
    """A process definition (SYSTEM.DEFAULT.PROCESS's defaults on UNIX: APPLTYPE(UNIX))."""

    name: str
    description: str = ""
    appl_id: str = ""
    appl_type: int = C.MQAT_UNIX
    env_data: str = ""
    user_data: str = ""
    created: float = 0.0
    altered: float = 0.0


@dataclasses.dataclass(slots=True)
class Topic:
    name: str
    topic_string: str
    description: str = ""
    durable_subscriptions: int = C.MQSUB_DURABLE_AS_PARENT
    def_priority: int = C.MQPRI_PRIORITY_AS_PARENT
    def_persistence: int = C.MQPER_PERSISTENCE_AS_PARENT
    def_put_response: int = C.MQPRT_RESPONSE_AS_PARENT
    durable_model_q: str = ""  # blank: as parent
    non_durable_model_q: str = ""
    inhibit_publications: int = C.MQTA_PUB_AS_PARENT
    inhibit_subscriptions: int = C.MQTA_SUB_AS_PARENT
    pm_delivery: int = C.MQDLV_AS_PARENT
    npm_delivery: int = C.MQDLV_AS_PARENT
    pub_scope: int = C.MQSCOPE_AS_PARENT
    sub_scope: int = C.MQSCOPE_AS_PARENT
    proxy_subscriptions: int = C.MQTA_PROXY_SUB_FIRSTUSE  # IBM's SYSTEM.BASE.TOPIC: PROXYSUB(FIRSTUSE)
    wildcard_operation: int = C.MQTA_PASSTHRU
    use_dlq: int = C.MQUSEDLQ_AS_PARENT
    multicast: int = C.MQMC_AS_PARENT
    topic_type: int = C.MQTOPT_LOCAL
    created: float = 0.0
    altered: float = 0.0
    # Schema 7: clustered topics (registry/objects/clusters.py).  A blank cluster is "as parent": the
    # nearest topic object above with a cluster makes the topic clustered.
    cluster_name: str = ""
    cluster_pub_route: int = C.MQCLROUTE_DIRECT
    # Schema 8: stored and shown (docs/compat.md): CUSTOM, COMMINFO (multicast, which qmlite does not
    # run) and CAPEXPRY(ASPARENT), MQCEX_AS_PARENT, which resolves up the tree (ASPARENT at the root: no cap).
    custom: str = ""
    comm_info: str = ""
    cap_expiry: int = -2


# SYSTEM.BASE.TOPIC holds concrete values; everything AS_PARENT resolves up to it.
BASE_TOPIC_VALUES = {
    "durable_subscriptions": C.MQSUB_DURABLE_ALLOWED,
    "def_priority": 0,
    "def_persistence": C.MQPER_NOT_PERSISTENT,
    "def_put_response": C.MQPRT_SYNC_RESPONSE,
    "durable_model_q": "SYSTEM.DURABLE.MODEL.QUEUE",
    "non_durable_model_q": "SYSTEM.NDURABLE.MODEL.QUEUE",
    "inhibit_publications": C.MQTA_PUB_ALLOWED,
    "inhibit_subscriptions": C.MQTA_SUB_ALLOWED,
    "pm_delivery": C.MQDLV_ALL_DUR,
    "npm_delivery": C.MQDLV_ALL_AVAIL,
    "pub_scope": C.MQSCOPE_ALL,
    "sub_scope": C.MQSCOPE_ALL,
    "use_dlq": C.MQUSEDLQ_YES,
    "multicast": C.MQMC_DISABLED,
    "comm_info": "SYSTEM.DEFAULT.COMMINFO.MULTICAST",
}
