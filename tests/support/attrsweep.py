"""The attribute sweep: for every object type but the queue manager, every attribute IBM's Change,
Copy and Create command takes on Multiplatforms, with a valid value other than the default, a value
IBM refuses and the reason it answers.  One table, read by the ibmmq, pymqi and MQSC sweeps
(tests/client/test_ibmmq_attr_sweep.py, tests/client/test_pymqi.py, tests/registry/mqsc/test_mqsc_attr_sweep.py),
so an attribute missing from qmlite is one ``Row`` to add here.

A ``Row`` is client-neutral: strings are ``str``, byte strings ``bytes`` (sent as MQCFBS), lists of
strings or integers ``list``; each client sweep turns them into what its PCFExecute takes.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.registry.objects import values as V

PARM_VALUE = C.MQRCCF_PARM_VALUE_ERROR
STR_LENGTH = C.MQRCCF_CFST_STRING_LENGTH_ERR
STRLIST_LENGTH = C.MQRCCF_CFSL_STRING_LENGTH_ERR
BYTES_LENGTH = C.MQRCCF_CFBS_STRING_LENGTH_ERR
NAME_ERROR = C.MQRCCF_OBJECT_NAME_ERROR
_NO = object()


@dataclasses.dataclass(frozen=True)
class Row:
    """``pid`` set to ``valid`` must read back as ``shown`` (``valid`` unless given); ``invalid`` (when
    given) is refused with ``reason``.  ``create_only``: an attribute Change may not alter (a
    subscription's topic, selector ...): the sweep sets it on Create."""

    pid: int
    valid: object
    invalid: object = _NO
    reason: int = PARM_VALUE
    shown: object = _NO
    create_only: bool = False
    reset: object = _NO  # set back to this after its read-back: a value other attributes cannot coexist with

    @property
    def final(self) -> object:
        """What the attribute reads back as once the whole sweep has run."""
        return self.expected if self.reset is _NO else self.reset

    @property
    def expected(self) -> object:
        return self.valid if self.shown is _NO else self.shown

    @property
    def has_invalid(self) -> bool:
        return self.invalid is not _NO


def text(pid: int, valid: str, length: int, *, reason: int = STR_LENGTH, **kw) -> Row:
    """A string attribute; one character more than ``length`` is refused."""
    return Row(pid, valid, "X" * (length + 1), reason, **kw)


def name(pid: int, valid: str, length: int = 48, **kw) -> Row:
    return text(pid, valid, length, **kw)


def number(pid: int, valid: int, invalid: int, **kw) -> Row:
    return Row(pid, valid, invalid, PARM_VALUE, **kw)


@dataclasses.dataclass(frozen=True)
class Sweep:
    """One object type (and subtype): how to create, copy, change, inquire and delete it, and its rows."""

    id: str
    create: int
    copy: int
    change: int
    inquire: int
    delete: int
    name_pid: int
    from_pid: int
    to_pid: int
    rows: tuple[Row, ...]
    fixed: dict = dataclasses.field(default_factory=dict)  # sent with every command (the subtype)
    on_create: dict = dataclasses.field(default_factory=dict)  # sent with Create (and Copy) only
    wrong_type: int = 0  # the reason for an attribute of another subtype (0: no subtypes)
    mqsc: str = ""  # DEFINE/ALTER <mqsc>(name); the keyword table's object type is keywords_type
    keywords_type: str = ""
    name_length: int = 48

    def row(self, pid: int) -> Row:
        return next(r for r in self.rows if r.pid == pid)


# ---- queues (IBM, "Change, Copy, and Create Queue"; types from ALTER queues' parameter table) ------
_L, _M, _A, _R = "L", "M", "A", "R"
_QUEUE_ROWS: tuple[tuple[Row, str], ...] = (
    (text(C.MQCA_Q_DESC, "swept description", 64), "LMAR"),
    (number(C.MQIA_DEF_PERSISTENCE, C.MQPER_PERSISTENT, 2), "LMAR"),
    (number(C.MQIA_DEF_PRIORITY, 7, 10), "LMAR"),
    (number(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED, 2), "LMAR"),
    (number(C.MQIA_INHIBIT_GET, C.MQQA_GET_INHIBITED, 2), "LMA"),
    (number(C.MQIA_MAX_Q_DEPTH, 1234, -1), "LM"),
    (number(C.MQIA_MAX_MSG_LENGTH, 65536, 104_857_601), "LM"),
    (number(C.MQIA_SHAREABILITY, C.MQQA_NOT_SHAREABLE, 2), "LM"),
    (number(C.MQIA_DEF_INPUT_OPEN_OPTION, C.MQOO_INPUT_EXCLUSIVE, C.MQOO_INPUT_AS_Q_DEF), "LM"),
    # USAGE(XMITQ) and CLUSTER exclude each other (MQRCCF_CLUSTER_Q_USAGE_ERROR): XMITQ is swept, then undone
    (number(C.MQIA_USAGE, C.MQUS_TRANSMISSION, 2, reset=C.MQUS_NORMAL), "LM"),
    (number(C.MQIA_BACKOUT_THRESHOLD, 5, -1), "LM"),
    (name(C.MQCA_BACKOUT_REQ_Q_NAME, "SWEEP.BACKOUT"), "LM"),
    (number(C.MQIA_HARDEN_GET_BACKOUT, C.MQQA_BACKOUT_HARDENED, 2), "LM"),
    (number(C.MQIA_TRIGGER_CONTROL, C.MQTC_ON, 2), "LM"),
    (number(C.MQIA_TRIGGER_TYPE, C.MQTT_EVERY, 4), "LM"),
    (number(C.MQIA_TRIGGER_DEPTH, 5, 0), "LM"),
    (number(C.MQIA_TRIGGER_MSG_PRIORITY, 3, 10), "LM"),
    (text(C.MQCA_TRIGGER_DATA, "trigger data", 64), "LM"),
    (name(C.MQCA_INITIATION_Q_NAME, "SYSTEM.DEFAULT.INITIATION.QUEUE"), "LM"),
    (name(C.MQCA_PROCESS_NAME, "SWEEP.PROCESS"), "LM"),
    (number(C.MQIA_PROPERTY_CONTROL, C.MQPROP_ALL, 99), "LMA"),
    (number(C.MQIA_DIST_LISTS, C.MQDL_SUPPORTED, 2), "LM"),
    (number(C.MQIA_MSG_DELIVERY_SEQUENCE, C.MQMDS_FIFO, 2), "LM"),
    (number(C.MQIA_RETENTION_INTERVAL, 100, -1), "LM"),
    (number(C.MQIA_Q_DEPTH_HIGH_LIMIT, 90, 101), "LM"),
    (number(C.MQIA_Q_DEPTH_LOW_LIMIT, 10, 101), "LM"),
    (number(C.MQIA_Q_DEPTH_MAX_EVENT, C.MQEVR_DISABLED, 2), "LM"),
    (number(C.MQIA_Q_DEPTH_HIGH_EVENT, C.MQEVR_ENABLED, 2), "LM"),
    (number(C.MQIA_Q_DEPTH_LOW_EVENT, C.MQEVR_ENABLED, 2), "LM"),
    (number(C.MQIA_Q_SERVICE_INTERVAL, 5000, -1), "LM"),
    (number(C.MQIA_Q_SERVICE_INTERVAL_EVENT, C.MQQSIE_HIGH, 3), "LM"),
    (number(C.MQIA_NPM_CLASS, C.MQNPM_CLASS_HIGH, 5), "LM"),
    (number(C.MQIA_DEF_PUT_RESPONSE_TYPE, C.MQPRT_ASYNC_RESPONSE, 0), "LMAR"),
    (number(C.MQIA_DEF_READ_AHEAD, C.MQREADA_YES, 3), "LMA"),
    (number(C.MQIA_ACCOUNTING_Q, C.MQMON_ON, 5), "LM"),
    (number(C.MQIA_MONITORING_Q, C.MQMON_HIGH, 5), "LM"),
    (number(C.MQIA_STATISTICS_Q, C.MQMON_ON, 5), "LM"),
    (text(C.MQCA_CUSTOM, "TAG(swept)", C.MQ_CUSTOM_LENGTH), "LMAR"),
    (number(C.MQIA_SCOPE, C.MQSCO_Q_MGR, 3), "LAR"),  # SCOPE(CELL) needs a cell directory: the default only
    (number(C.MQIA_CAP_EXPIRY, 600, 0), "LMAR"),
    (number(C.MQIA_MAX_Q_FILE_SIZE, 100, 19), "LM"),
    (number(C.MQIA_MEDIA_IMAGE_RECOVER_Q, V.MQIMGRCOV_YES, 3), "LM"),
    (name(C.MQCA_STREAM_QUEUE_NAME, "SWEEP.STREAM"), "LM"),
    (number(C.MQIA_STREAM_QUEUE_QOS, V.MQST_MUST_DUP, 2), "LM"),
    (name(C.MQCA_CLUS_CHL_NAME, "SWEEP.CL*", 20), "L"),
    (number(C.MQIA_DEFINITION_TYPE, C.MQQDT_PERMANENT_DYNAMIC, C.MQQDT_PREDEFINED), "M"),
    (name(C.MQCA_BASE_Q_NAME, "SWEEP.BASE"), "A"),
    (number(C.MQIA_BASE_TYPE, C.MQOT_TOPIC, C.MQOT_Q_MGR), "A"),
    (name(C.MQCA_REMOTE_Q_NAME, "SWEEP.REMOTE.Q"), "R"),
    (name(C.MQCA_REMOTE_Q_MGR_NAME, "QM2"), "R"),
    (name(C.MQCA_XMIT_Q_NAME, "SWEEP.XMITQ"), "R"),
    # Cluster attributes (what they do: tests/server/mca/test_cluster*.py; here they are swept as stored).
    # DEFBIND, CLUSTER, CLUSNL, CLWLPRTY, CLWLRANK: IBM's table has them for L, A, R (a clustered QREMOTE is a
    # gateway's route, decision CLV8); qmlite takes DEFBIND on model queues too.
    (number(C.MQIA_DEF_BIND, C.MQBND_BIND_NOT_FIXED, 9), "LMAR"),
    # CLUSTER and CLUSNL exclude each other (MQRCCF_CLUSTER_NAME_CONFLICT): CLUSNL is swept, then undone
    (name(C.MQCA_CLUSTER_NAMELIST, "SWEEP.CLNL", reset=""), "LAR"),
    (name(C.MQCA_CLUSTER_NAME, "SWEEPCL"), "LAR"),
    (number(C.MQIA_CLWL_Q_PRIORITY, 4, 10), "LAR"),
    (number(C.MQIA_CLWL_Q_RANK, 4, 10), "LAR"),
    (number(C.MQIA_CLWL_USEQ, C.MQCLWL_USEQ_ANY, 7), "L"),
)
_QTYPES = {"L": (C.MQQT_LOCAL, "QLOCAL"), "M": (C.MQQT_MODEL, "QMODEL"), "A": (C.MQQT_ALIAS, "QALIAS"),
           "R": (C.MQQT_REMOTE, "QREMOTE")}


def _queue(letter: str) -> Sweep:
    qtype, mqsc = _QTYPES[letter]
    return Sweep(f"queue-{mqsc}", C.MQCMD_CREATE_Q, C.MQCMD_COPY_Q, C.MQCMD_CHANGE_Q, C.MQCMD_INQUIRE_Q,
                 C.MQCMD_DELETE_Q, C.MQCA_Q_NAME, C.MQCACF_FROM_Q_NAME, C.MQCACF_TO_Q_NAME,
                 tuple(row for row, types in _QUEUE_ROWS if letter in types), fixed={C.MQIA_Q_TYPE: qtype},
                 wrong_type=-1, mqsc=mqsc, keywords_type="QUEUE")


QUEUES = tuple(_queue(letter) for letter in "LMAR")


def queue_rows_not_for(sweep: Sweep) -> tuple[Row, ...]:
    """The rows of other queue types that this queue type does not have (refused: parameter-id error)."""
    letter = next(k for k, (t, _) in _QTYPES.items() if t == sweep.fixed[C.MQIA_Q_TYPE])
    return tuple(row for row, types in _QUEUE_ROWS if letter not in types)


# ---- topics (IBM, "Change, Copy, and Create Topic") ----------------------------------------------
TOPIC = Sweep("topic", C.MQCMD_CREATE_TOPIC, C.MQCMD_COPY_TOPIC, C.MQCMD_CHANGE_TOPIC, C.MQCMD_INQUIRE_TOPIC,
              C.MQCMD_DELETE_TOPIC, C.MQCA_TOPIC_NAME, C.MQCACF_FROM_TOPIC_NAME, C.MQCACF_TO_TOPIC_NAME, (
                  text(C.MQCA_TOPIC_DESC, "swept topic", 64),
                  number(C.MQIA_DURABLE_SUB, C.MQSUB_DURABLE_INHIBITED, 9),
                  number(C.MQIA_DEF_PRIORITY, 6, 10),
                  number(C.MQIA_TOPIC_DEF_PERSISTENCE, C.MQPER_PERSISTENT, 9),
                  number(C.MQIA_DEF_PUT_RESPONSE_TYPE, C.MQPRT_ASYNC_RESPONSE, 9),
                  name(C.MQCA_MODEL_DURABLE_Q, "SWEEP.DURABLE.MODEL"),
                  name(C.MQCA_MODEL_NON_DURABLE_Q, "SWEEP.NDURABLE.MODEL"),
                  number(C.MQIA_INHIBIT_PUB, C.MQTA_PUB_INHIBITED, 9),
                  number(C.MQIA_INHIBIT_SUB, C.MQTA_SUB_INHIBITED, 9),
                  number(C.MQIA_PM_DELIVERY, C.MQDLV_ALL, 9),
                  number(C.MQIA_NPM_DELIVERY, C.MQDLV_ALL_DUR, 9),
                  number(C.MQIA_PUB_SCOPE, C.MQSCOPE_QMGR, 9),
                  number(C.MQIA_SUB_SCOPE, C.MQSCOPE_QMGR, 9),
                  number(C.MQIA_PROXY_SUB, C.MQTA_PROXY_SUB_FORCE, 9),
                  number(C.MQIA_WILDCARD_OPERATION, C.MQTA_BLOCK, 9),
                  number(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO, 9),
                  number(C.MQIA_MULTICAST, C.MQMC_ENABLED, 9),
                  text(C.MQCA_CUSTOM, "TAG(topic)", C.MQ_CUSTOM_LENGTH),
                  name(C.MQCA_COMM_INFO_NAME, "SYSTEM.DEFAULT.COMMINFO"),
                  number(C.MQIA_CAP_EXPIRY, 300, 0),
                  # Cluster attributes (their behaviour is the cluster work's; here they are swept as stored)
                  # CLROUTE first: IBM refuses to alter it on a clustered topic (MQRCCF_CLROUTE_NOT_ALTERABLE)
                  number(C.MQIA_CLUSTER_PUB_ROUTE, C.MQCLROUTE_TOPIC_HOST, 9),
                  name(C.MQCA_CLUSTER_NAME, "SWEEPCL"),
              ), on_create={C.MQCA_TOPIC_STRING: "sweep/{name}"}, mqsc="TOPIC", keywords_type="TOPIC")

# ---- subscriptions (IBM, "Change, Copy, and Create Subscription") --------------------------------
SUBSCRIPTION = Sweep(
    "subscription", C.MQCMD_CREATE_SUBSCRIPTION, C.MQCMD_COPY_SUBSCRIPTION, C.MQCMD_CHANGE_SUBSCRIPTION,
    C.MQCMD_INQUIRE_SUBSCRIPTION, C.MQCMD_DELETE_SUBSCRIPTION, C.MQCACF_SUB_NAME, C.MQCACF_FROM_SUB_NAME,
    C.MQCACF_TO_SUB_NAME, (
        name(C.MQCACF_DESTINATION, "SWEEP.SUB.DEST"),
        name(C.MQCACF_DESTINATION_Q_MGR, "QM1"),
        Row(C.MQBACF_DESTINATION_CORREL_ID, b"\x01" * 24, b"\x01" * 25, BYTES_LENGTH),
        number(C.MQIACF_EXPIRY, 36000, 0),
        Row(C.MQBACF_ACCOUNTING_TOKEN, b"\x02" * 32, b"\x02" * 33, BYTES_LENGTH),
        text(C.MQCACF_APPL_IDENTITY_DATA, "sweep identity", 32),
        number(C.MQIACF_PUB_PRIORITY, 4, 10),
        number(C.MQIACF_PUBSUB_PROPERTIES, C.MQPSPROP_RFH2, 9),
        text(C.MQCACF_SUB_USER_DATA, "swept user data", C.MQ_USER_DATA_LENGTH),
        number(C.MQIACF_VARIABLE_USER_ID, C.MQVU_FIXED_USER, 9),
        number(C.MQIACF_REQUEST_ONLY, C.MQRU_PUBLISH_ON_REQUEST, 9),
        text(C.MQCACF_SUB_USER_ID, "sweeper", 12),
        # Not alterable once made (IBM's MQRC_*_NOT_ALTERABLE): set on Create
        Row(C.MQCA_TOPIC_NAME, "SWEEP.SUB.TOPIC", create_only=True),  # prerequisite: the topic object
        Row(C.MQCA_TOPIC_STRING, "sub", create_only=True, shown="sweep/sub"),  # under TOPICOBJ's string
        Row(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_CHAR, 9, create_only=True),
        Row(C.MQCACF_SUB_SELECTOR, "Priority > 3", create_only=True),
        Row(C.MQIACF_DESTINATION_CLASS, C.MQDC_PROVIDED, 9, create_only=True),
        Row(C.MQIACF_SUB_LEVEL, 2, 10, create_only=True),
        Row(C.MQIACF_SUBSCRIPTION_SCOPE, C.MQTSCOPE_QMGR, 9, create_only=True),
    ), on_create={C.MQCACF_DESTINATION: "SWEEP.SUB.DEST"}, mqsc="SUB", keywords_type="SUB",
    name_length=10240)

# ---- channels (IBM, "Change, Copy, and Create Channel": each parameter's channel types) ----------
_CHANNEL_ROWS = (
    text(C.MQCACH_DESC, "swept channel", C.MQ_CHANNEL_DESC_LENGTH),
    number(C.MQIACH_XMIT_PROTOCOL_TYPE, C.MQXPT_LU62, 99),
    text(C.MQCACH_MODE_NAME, "MODE1", C.MQ_MODE_NAME_LENGTH),
    text(C.MQCACH_TP_NAME, "sweeptp", C.MQ_TP_NAME_LENGTH),
    text(C.MQCA_Q_MGR_NAME, "QM2", C.MQ_Q_MGR_NAME_LENGTH),
    text(C.MQCACH_XMIT_Q_NAME, "SWEEP.XMITQ", 48),
    text(C.MQCACH_CONNECTION_NAME, "sweep.example(1415)", C.MQ_CONN_NAME_LENGTH),
    text(C.MQCACH_MCA_NAME, "MCA", C.MQ_MCA_NAME_LENGTH),
    number(C.MQIACH_BATCH_SIZE, 20, 0),
    number(C.MQIACH_DISC_INTERVAL, 1200, -1),
    number(C.MQIACH_SHORT_RETRY, 3, -1),
    number(C.MQIACH_SHORT_TIMER, 30, -1),
    number(C.MQIACH_LONG_RETRY, 300, -1),
    number(C.MQIACH_LONG_TIMER, 600, -1),
    text(C.MQCACH_SEC_EXIT_NAME, "sweep(sec)", C.MQ_EXIT_NAME_LENGTH),
    text(C.MQCACH_SEC_EXIT_USER_DATA, "secdata", C.MQ_EXIT_DATA_LENGTH),
    Row(C.MQCACH_MSG_EXIT_NAME, ["sweep(msg)"], ["X" * 129], STRLIST_LENGTH),
    Row(C.MQCACH_MSG_EXIT_USER_DATA, ["msgdata"], ["X" * 33], STRLIST_LENGTH),
    Row(C.MQCACH_SEND_EXIT_NAME, ["sweep(send)"], ["X" * 129], STRLIST_LENGTH),
    Row(C.MQCACH_SEND_EXIT_USER_DATA, ["senddata"], ["X" * 33], STRLIST_LENGTH),
    Row(C.MQCACH_RCV_EXIT_NAME, ["sweep(rcv)"], ["X" * 129], STRLIST_LENGTH),
    Row(C.MQCACH_RCV_EXIT_USER_DATA, ["rcvdata"], ["X" * 33], STRLIST_LENGTH),
    number(C.MQIACH_PUT_AUTHORITY, V.MQPA_CONTEXT, 9),
    number(C.MQIACH_SEQUENCE_NUMBER_WRAP, 5000, 99),
    number(C.MQIACH_MAX_MSG_LENGTH, 65536, 104_857_601),
    number(C.MQIACH_MCA_TYPE, V.MQMCAT_PROCESS, 9),
    text(C.MQCACH_MCA_USER_ID, "sweeper", 64),
    text(C.MQCACH_USER_ID, "sweeper", C.MQ_USER_ID_LENGTH),
    Row(C.MQCACH_PASSWORD, "secret", "X" * (C.MQ_PASSWORD_LENGTH + 1), STR_LENGTH, shown="********"),
    text(C.MQCACH_MR_EXIT_NAME, "sweep(mr)", C.MQ_EXIT_NAME_LENGTH),
    text(C.MQCACH_MR_EXIT_USER_DATA, "mrdata", C.MQ_EXIT_DATA_LENGTH),
    number(C.MQIACH_MR_COUNT, 3, -1),
    number(C.MQIACH_MR_INTERVAL, 500, -1),
    number(C.MQIACH_HB_INTERVAL, 120, 1_000_000),
    number(C.MQIACH_BATCH_INTERVAL, 50, -1),
    number(C.MQIACH_NPM_SPEED, C.MQNPMS_NORMAL, 9),
    number(C.MQIACH_KEEP_ALIVE_INTERVAL, 60, 100_000),
    text(C.MQCACH_LOCAL_ADDRESS, "127.0.0.1", C.MQ_LOCAL_ADDRESS_LENGTH),
    number(C.MQIACH_BATCH_HB, 500, -1),
    text(C.MQCACH_SSL_CIPHER_SPEC, "TLS_AES_128_GCM_SHA256", C.MQ_SSL_CIPHER_SPEC_LENGTH),
    text(C.MQCACH_SSL_PEER_NAME, "CN=sweep", C.MQ_SSL_PEER_NAME_LENGTH),
    number(C.MQIACH_SSL_CLIENT_AUTH, V.MQSCA_OPTIONAL, 9),
    number(C.MQIACH_DATA_CONVERSION, V.MQCDC_SENDER_CONVERSION, 9),
    Row(C.MQIACH_HDR_COMPRESSION, [V.MQCOMPRESS_SYSTEM], [99]),
    Row(C.MQIACH_MSG_COMPRESSION, [V.MQCOMPRESS_ZLIBFAST, V.MQCOMPRESS_RLE], [3]),
    number(C.MQIACH_SHARING_CONVERSATIONS, 5, -1),
    number(C.MQIACH_MAX_INSTANCES, 50, -1),
    number(C.MQIACH_MAX_INSTS_PER_CLIENT, 5, -1),
    number(C.MQIACH_CLIENT_CHANNEL_WEIGHT, 40, 100),
    number(C.MQIACH_CONNECTION_AFFINITY, C.MQCAFTY_NONE, 9),
    number(C.MQIA_PROPERTY_CONTROL, C.MQPROP_ALL, 99),
    number(C.MQIA_MONITORING_CHANNEL, C.MQMON_HIGH, 5),
    number(C.MQIA_STATISTICS_CHANNEL, C.MQMON_HIGH, 5),
    number(C.MQIACH_DEF_RECONNECT, V.MQRCN_YES, 9),
    number(C.MQIACH_BATCH_DATA_LIMIT, 1000, -1),
    number(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO, 9),
    text(C.MQCA_CERT_LABEL, "sweeplabel", C.MQ_CERT_LABEL_LENGTH),
)
_CHANNEL_TYPES = {C.MQCHT_SENDER: "SDR", C.MQCHT_SERVER: "SVR", C.MQCHT_RECEIVER: "RCVR",
                  C.MQCHT_REQUESTER: "RQSTR", C.MQCHT_CLNTCONN: "CLNTCONN", C.MQCHT_SVRCONN: "SVRCONN"}
_CHANNEL_CREATE = {  # what a channel of the type cannot be created without
    C.MQCHT_SENDER: {C.MQCACH_XMIT_Q_NAME: "SWEEP.XMITQ", C.MQCACH_CONNECTION_NAME: "sweep.example(1414)"},
    C.MQCHT_SERVER: {C.MQCACH_XMIT_Q_NAME: "SWEEP.XMITQ"},
    C.MQCHT_REQUESTER: {C.MQCACH_CONNECTION_NAME: "sweep.example(1414)"},
    C.MQCHT_CLNTCONN: {C.MQCACH_CONNECTION_NAME: "sweep.example(1414)"},
}


def _channel(chltype: int, applies) -> Sweep:
    word = _CHANNEL_TYPES[chltype]
    return Sweep(f"channel-{word}", C.MQCMD_CREATE_CHANNEL, C.MQCMD_COPY_CHANNEL, C.MQCMD_CHANGE_CHANNEL,
                 C.MQCMD_INQUIRE_CHANNEL, C.MQCMD_DELETE_CHANNEL, C.MQCACH_CHANNEL_NAME,
                 C.MQCACF_FROM_CHANNEL_NAME, C.MQCACF_TO_CHANNEL_NAME,
                 tuple(r for r in _CHANNEL_ROWS if applies(chltype, r.pid)), fixed={C.MQIACH_CHANNEL_TYPE: chltype},
                 on_create=_CHANNEL_CREATE.get(chltype, {}), wrong_type=C.MQRCCF_WRONG_CHANNEL_TYPE,
                 mqsc="CHANNEL", keywords_type="CHANNEL", name_length=20)


def channel_rows() -> tuple[Row, ...]:
    return _CHANNEL_ROWS


def channels(applies) -> tuple[Sweep, ...]:
    """``applies(channel_type, pid)``: whether IBM documents the attribute for the type."""
    return tuple(_channel(t, applies) for t in _CHANNEL_TYPES)


# ---- telemetry (MQTT) channels (IBM, "Change, Copy, and Create Channel (MQTT)"; docs/mqtt.md) -----
# Their own sweep rather than a type of CHANNELS: IBM's MQTT list shares a few attributes with MQ
# channels but not their values (SSLCAUTH(NEVER), TRPTYPE TCP only) nor their reasons (TC7).
MQTT_CHANNEL = Sweep("channel-MQTT", C.MQCMD_CREATE_CHANNEL, C.MQCMD_COPY_CHANNEL, C.MQCMD_CHANGE_CHANNEL,
                     C.MQCMD_INQUIRE_CHANNEL, C.MQCMD_DELETE_CHANNEL, C.MQCACH_CHANNEL_NAME,
                     C.MQCACF_FROM_CHANNEL_NAME, C.MQCACF_TO_CHANNEL_NAME, (
                         # PORT(0): a port the system chooses, so a server started on a swept data
                         # directory listens on no fixed port of the machine's
                         Row(C.MQIACH_PORT, 0, 65536, C.MQRCCF_PORT_NUMBER_ERROR),
                         Row(C.MQIACH_BACKLOG, 100, -1, C.MQRCCF_BACKLOG_OUT_OF_RANGE),
                         text(C.MQCACH_JAAS_CONFIG, "MQXRConfig", C.MQ_JAAS_CONFIG_LENGTH),
                         text(C.MQCACH_LOCAL_ADDRESS, "127.0.0.1", C.MQ_LOCAL_ADDRESS_LENGTH),
                         text(C.MQCACH_MCA_USER_ID, "sweeper", 64),
                         Row(C.MQIACH_PROTOCOL, [V.MQPROTO_MQTTV311], [V.MQPROTO_AMQP], C.MQRCCF_INVALID_PROTOCOL),
                         number(C.MQIACH_SSL_CLIENT_AUTH, V.MQSCA_NEVER_REQUIRED, 9),
                         text(C.MQCACH_SSL_CIPHER_SPEC, "SSL_RSA_WITH_AES_128_CBC_SHA256",
                              C.MQ_SSL_CIPHER_SPEC_LENGTH),
                         Row(C.MQCACH_SSL_KEY_PASSPHRASE, "secret", "X" * (C.MQ_SSL_KEY_PASSPHRASE_LENGTH + 1),
                             STR_LENGTH, shown="********"),  # shown only as set (TC4)
                         text(C.MQCA_SSL_KEY_REPOSITORY, "/var/mqm/keys/mqtt.jks", C.MQ_SSL_KEY_REPOSITORY_LENGTH),
                         Row(C.MQIACH_USE_CLIENT_ID, V.MQUCI_YES, 9, C.MQRCCF_USE_CLIENT_ID_ERROR),
                         # TCP is TRPTYPE's only value, and its default: swept for the refusal of another
                         Row(C.MQIACH_XMIT_PROTOCOL_TYPE, C.MQXPT_TCP, C.MQXPT_LU62, C.MQRCCF_XMIT_PROTOCOL_TYPE_ERR),
                     ), fixed={C.MQIACH_CHANNEL_TYPE: C.MQCHT_MQTT}, wrong_type=C.MQRCCF_WRONG_CHANNEL_TYPE,
                     mqsc="CHANNEL", keywords_type="CHANNEL", name_length=20)


# ---- authentication information (every AuthInfoType) ----------------------------------------------
_AUTHINFO_ROWS = (
    (text(C.MQCA_AUTH_INFO_DESC, "swept authinfo", C.MQ_AUTH_INFO_DESC_LENGTH), "OLCP"),
    (text(C.MQCA_AUTH_INFO_CONN_NAME, "ldap.example(389)", C.MQ_AUTH_INFO_CONN_NAME_LENGTH), "LC"),
    (text(C.MQCA_LDAP_USER_NAME, "cn=sweep", C.MQ_DISTINGUISHED_NAME_LENGTH), "LC"),
    (Row(C.MQCA_LDAP_PASSWORD, "secret", "X" * (C.MQ_LDAP_PASSWORD_LENGTH + 1), STR_LENGTH, shown="********"), "LC"),
    (text(C.MQCA_AUTH_INFO_OCSP_URL, "http://ocsp.example/", C.MQ_AUTH_INFO_OCSP_URL_LENGTH), "P"),
    (number(C.MQIA_CHECK_CLIENT_BINDING, C.MQCHK_REQUIRED, 9), "OL"),
    (number(C.MQIA_CHECK_LOCAL_BINDING, C.MQCHK_REQUIRED, 9), "OL"),
    (number(C.MQIA_ADOPT_CONTEXT, C.MQADPCTX_YES, 9), "OL"),
    (number(C.MQIA_AUTHENTICATION_FAIL_DELAY, 5, 61), "OL"),
    (number(C.MQIA_AUTHENTICATION_METHOD, V.MQAUTHENTICATE_PAM, 9), "O"),
    (number(C.MQIA_LDAP_SECURE_COMM, C.MQSECCOMM_YES, 9), "L"),
    (text(C.MQCA_LDAP_BASE_DN_USERS, "ou=users", C.MQ_LDAP_BASE_DN_LENGTH), "L"),
    (text(C.MQCA_LDAP_USER_OBJECT_CLASS, "person", C.MQ_LDAP_CLASS_LENGTH), "L"),
    (text(C.MQCA_LDAP_SHORT_USER_FIELD, "uid", C.MQ_LDAP_FIELD_LENGTH), "L"),
    (text(C.MQCA_LDAP_USER_ATTR_FIELD, "cn", C.MQ_LDAP_FIELD_LENGTH), "L"),
    (number(C.MQIA_LDAP_AUTHORMD, V.MQLDAP_AUTHORMD_SEARCHGRP, 9), "L"),
    (text(C.MQCA_LDAP_BASE_DN_GROUPS, "ou=groups", C.MQ_LDAP_BASE_DN_LENGTH), "L"),
    (text(C.MQCA_LDAP_GROUP_OBJECT_CLASS, "groupOfUniqueNames", C.MQ_LDAP_CLASS_LENGTH), "L"),
    (text(C.MQCA_LDAP_GROUP_ATTR_FIELD, "cn", C.MQ_LDAP_FIELD_LENGTH), "L"),
    (text(C.MQCA_LDAP_FIND_GROUP_FIELD, "member", C.MQ_LDAP_FIELD_LENGTH), "L"),
    (number(C.MQIA_LDAP_NESTGRP, V.MQLDAP_NESTGRP_YES, 9), "L"),
)
_AUTHTYPES = {"O": (V.MQAIT_IDPW_OS, "IDPWOS"), "L": (V.MQAIT_IDPW_LDAP, "IDPWLDAP"),
              "C": (V.MQAIT_CRL_LDAP, "CRLLDAP"), "P": (V.MQAIT_OCSP, "OCSP")}


def _authinfo(letter: str) -> Sweep:
    authtype, word = _AUTHTYPES[letter]
    on_create = {C.MQCA_AUTH_INFO_CONN_NAME: "ldap.example"} if letter in "LC" else {}
    if letter == "P":
        on_create = {C.MQCA_AUTH_INFO_OCSP_URL: "http://ocsp.example/first"}
    return Sweep(f"authinfo-{word}", C.MQCMD_CREATE_AUTH_INFO, C.MQCMD_COPY_AUTH_INFO, C.MQCMD_CHANGE_AUTH_INFO,
                 C.MQCMD_INQUIRE_AUTH_INFO, C.MQCMD_DELETE_AUTH_INFO, C.MQCA_AUTH_INFO_NAME,
                 C.MQCACF_FROM_AUTH_INFO_NAME, C.MQCACF_TO_AUTH_INFO_NAME,
                 tuple(row for row, types in _AUTHINFO_ROWS if letter in types),
                 fixed={C.MQIA_AUTH_INFO_TYPE: authtype},
                 on_create=on_create, wrong_type=C.MQRCCF_PARM_CONFLICT, mqsc="AUTHINFO", keywords_type="AUTHINFO")


AUTHINFOS = tuple(_authinfo(letter) for letter in "OLCP")


def authinfo_rows_not_for(sweep: Sweep) -> tuple[Row, ...]:
    letter = next(k for k, (t, _) in _AUTHTYPES.items() if t == sweep.fixed[C.MQIA_AUTH_INFO_TYPE])
    return tuple(row for row, types in _AUTHINFO_ROWS if letter not in types)


# ---- namelists, processes, listeners, services, communication information ------------------------
NAMELIST = Sweep("namelist", C.MQCMD_CREATE_NAMELIST, C.MQCMD_COPY_NAMELIST, C.MQCMD_CHANGE_NAMELIST,
                 C.MQCMD_INQUIRE_NAMELIST, C.MQCMD_DELETE_NAMELIST, C.MQCA_NAMELIST_NAME,
                 C.MQCACF_FROM_NAMELIST_NAME, C.MQCACF_TO_NAMELIST_NAME, (
                     text(C.MQCA_NAMELIST_DESC, "swept namelist", 64),
                     Row(C.MQCA_NAMES, ["SWEEP.A", "SWEEP.B"], ["X" * 49], STRLIST_LENGTH),
                 ), mqsc="NAMELIST", keywords_type="NAMELIST")

PROCESS = Sweep("process", C.MQCMD_CREATE_PROCESS, C.MQCMD_COPY_PROCESS, C.MQCMD_CHANGE_PROCESS,
                C.MQCMD_INQUIRE_PROCESS, C.MQCMD_DELETE_PROCESS, C.MQCA_PROCESS_NAME, C.MQCACF_FROM_PROCESS_NAME,
                C.MQCACF_TO_PROCESS_NAME, (
                    text(C.MQCA_PROCESS_DESC, "swept process", C.MQ_PROCESS_DESC_LENGTH),
                    text(C.MQCA_APPL_ID, "/opt/sweep/run", C.MQ_PROCESS_APPL_ID_LENGTH),
                    number(C.MQIA_APPL_TYPE, C.MQAT_CICS, -1),
                    text(C.MQCA_ENV_DATA, "ENV=1", C.MQ_PROCESS_ENV_DATA_LENGTH),
                    text(C.MQCA_USER_DATA, "user data", C.MQ_PROCESS_USER_DATA_LENGTH),
                ), mqsc="PROCESS", keywords_type="PROCESS")

LISTENER = Sweep("listener", C.MQCMD_CREATE_LISTENER, C.MQCMD_COPY_LISTENER, C.MQCMD_CHANGE_LISTENER,
                 C.MQCMD_INQUIRE_LISTENER, C.MQCMD_DELETE_LISTENER, C.MQCACH_LISTENER_NAME,
                 C.MQCACF_FROM_LISTENER_NAME, C.MQCACF_TO_LISTENER_NAME, (
                     text(C.MQCACH_LISTENER_DESC, "swept listener", C.MQ_LISTENER_DESC_LENGTH),
                     number(C.MQIACH_XMIT_PROTOCOL_TYPE, C.MQXPT_NETBIOS, 99),
                     number(C.MQIACH_PORT, 1416, 65536),
                     text(C.MQCACH_IP_ADDRESS, "127.0.0.1", C.MQ_IP_ADDRESS_LENGTH),
                     number(C.MQIACH_BACKLOG, 100, -1),
                     number(C.MQIACH_LISTENER_CONTROL, C.MQSVC_CONTROL_Q_MGR_START, 9),
                     text(C.MQCACH_TP_NAME, "sweeptp", C.MQ_TP_NAME_LENGTH),
                     number(C.MQIACH_ADAPTER, 1, -1),
                     number(C.MQIACH_COMMAND_COUNT, 10, -1),
                     text(C.MQCACH_LOCAL_NAME, "SWEEPNB", C.MQ_CONN_NAME_LENGTH),
                     number(C.MQIACH_NAME_COUNT, 2, -1),
                     number(C.MQIACH_SESSION_COUNT, 4, -1),
                     number(C.MQIACH_SOCKET, 5000, -1),
                 ), mqsc="LISTENER", keywords_type="LISTENER")

SERVICE = Sweep("service", C.MQCMD_CREATE_SERVICE, C.MQCMD_COPY_SERVICE, C.MQCMD_CHANGE_SERVICE,
                C.MQCMD_INQUIRE_SERVICE, C.MQCMD_DELETE_SERVICE, C.MQCA_SERVICE_NAME, C.MQCACF_FROM_SERVICE_NAME,
                C.MQCACF_TO_SERVICE_NAME, (
                    text(C.MQCA_SERVICE_DESC, "swept service", C.MQ_SERVICE_DESC_LENGTH),
                    number(C.MQIA_SERVICE_TYPE, C.MQSVC_TYPE_SERVER, 9),
                    text(C.MQCA_SERVICE_START_COMMAND, "/bin/true", C.MQ_SERVICE_COMMAND_LENGTH),
                    text(C.MQCA_SERVICE_START_ARGS, "-a", C.MQ_SERVICE_ARGS_LENGTH),
                    text(C.MQCA_SERVICE_STOP_COMMAND, "/bin/false", C.MQ_SERVICE_COMMAND_LENGTH),
                    text(C.MQCA_SERVICE_STOP_ARGS, "-b", C.MQ_SERVICE_ARGS_LENGTH),
                    text(C.MQCA_STDOUT_DESTINATION, "/tmp/sweep.out", C.MQ_SERVICE_PATH_LENGTH),
                    text(C.MQCA_STDERR_DESTINATION, "/tmp/sweep.err", C.MQ_SERVICE_PATH_LENGTH),
                    number(C.MQIA_SERVICE_CONTROL, C.MQSVC_CONTROL_Q_MGR, 9),
                ), mqsc="SERVICE", keywords_type="SERVICE")

COMMINFO = Sweep("comminfo", C.MQCMD_CREATE_COMM_INFO, C.MQCMD_COPY_COMM_INFO, C.MQCMD_CHANGE_COMM_INFO,
                 C.MQCMD_INQUIRE_COMM_INFO, C.MQCMD_DELETE_COMM_INFO, C.MQCA_COMM_INFO_NAME,
                 C.MQCACF_FROM_COMM_INFO_NAME, C.MQCACF_TO_COMM_INFO_NAME, (
                     text(C.MQCA_COMM_INFO_DESC, "swept comminfo", C.MQ_COMM_INFO_DESC_LENGTH),
                     number(C.MQIA_COMM_INFO_TYPE, V.MQCIT_MULTICAST, 9),
                     text(C.MQCACH_GROUP_ADDRESS, "239.1.2.3", C.MQ_IP_ADDRESS_LENGTH),
                     number(C.MQIACH_PORT, 1500, 0),
                     number(C.MQIA_MCAST_BRIDGE, V.MQMCB_DISABLED, 9),
                     number(C.MQIA_CODED_CHAR_SET_ID, 1208, -1),
                     number(C.MQIA_COMM_EVENT, C.MQEVR_EXCEPTION, 9),
                     number(C.MQIACF_ENCODING, C.MQENC_REVERSED, 9),
                     number(C.MQIACH_MC_HB_INTERVAL, 5000, -1),
                     number(C.MQIACH_MSG_HISTORY, 500, -1),
                     number(C.MQIA_MONITOR_INTERVAL, 30, -1),
                     number(C.MQIACH_MULTICAST_PROPERTIES, V.MQMCP_REPLY, 9),
                     number(C.MQIACH_NEW_SUBSCRIBER_HISTORY, V.MQNSH_ALL, 9),
                 ), mqsc="COMMINFO", keywords_type="COMMINFO")

SIMPLE = (NAMELIST, PROCESS, LISTENER, SERVICE, COMMINFO)


# ---- the steps every client sweep takes (``call(command, params)`` sends one PCF command) -------------
def seen(value):
    """An Inquire value as the table writes it: strings stripped of MQ's blank padding, bytes as hex."""
    if isinstance(value, bytes):
        return value.decode("latin-1").rstrip(" \x00")
    if isinstance(value, list):
        return [seen(v) for v in value]
    return value


def expected(row: Row, *, final: bool = True):
    value = row.final if final else row.expected
    return value.hex() if isinstance(value, bytes) else value


def actual(obj: dict, row: Row):
    value = obj[row.pid]
    if isinstance(row.expected, bytes):
        return bytes(value).hex()
    return seen(value)


def object_name(sweep: Sweep, suffix: str) -> str:
    name = f"SW.{sweep.id.split('-')[-1].upper()}.{suffix}"
    assert len(name) <= sweep.name_length
    return name


def prerequisites(call, sweep: Sweep) -> None:
    if sweep is SUBSCRIPTION:
        call(C.MQCMD_CREATE_Q, {C.MQCA_Q_NAME: "SWEEP.SUB.DEST", C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                                C.MQIACF_REPLACE: C.MQRP_YES})
        call(C.MQCMD_CREATE_TOPIC, {C.MQCA_TOPIC_NAME: "SWEEP.SUB.TOPIC", C.MQCA_TOPIC_STRING: "sweep",
                                    C.MQIACF_REPLACE: C.MQRP_YES})


def per_object(sweep: Sweep, name: str) -> dict:
    """The Create parameters that name the object (a topic object's string is unique per object)."""
    return {k: v.format(name=name.lower()) for k, v in sweep.on_create.items()
            if isinstance(v, str) and "{name}" in v}


def create(call, sweep: Sweep, name: str, **extra) -> None:
    params = {sweep.name_pid: name, **sweep.fixed, **sweep.on_create, **per_object(sweep, name)}
    params.update({r.pid: r.valid for r in sweep.rows if r.create_only})
    params.update(extra.get("params", {}))
    call(sweep.create, params)


def change(call, sweep: Sweep, name: str, pid: int, value) -> None:
    call(sweep.change, {sweep.name_pid: name, **sweep.fixed, pid: value})


def copy(call, sweep: Sweep, source: str, target: str) -> None:
    call(sweep.copy, {sweep.from_pid: source, sweep.to_pid: target, **sweep.fixed, **per_object(sweep, target)})


def inquire(call, sweep: Sweep, name: str) -> dict:
    params = {sweep.name_pid: name} if sweep is SUBSCRIPTION else {sweep.name_pid: name, **sweep.fixed}
    [obj] = call(sweep.inquire, params)
    return obj


def mismatches(obj: dict, sweep: Sweep, *, skip=()) -> dict:
    """{parameter: (read back, expected)} for every row that did not read back as set."""
    return {r.pid: (actual(obj, r), expected(r)) for r in sweep.rows
            if r.pid not in skip and actual(obj, r) != expected(r)}


def change_each(call, sweep: Sweep, name: str) -> None:
    for row in sweep.rows:
        if row.create_only:
            continue
        change(call, sweep, name, row.pid, row.valid)
        if row.reset is not _NO:  # read back now, then undone so that the attributes after it can be set
            got = actual(inquire(call, sweep, name), row)
            assert got == expected(row, final=False), (row.pid, got)
            change(call, sweep, name, row.pid, row.reset)


def _channel_applies(chltype: int, pid: int) -> bool:
    """Which channel types have an attribute: qmlite's specs (registry/admin/commands/channels.py), which
    copy IBM's "valid only for channels with a ChannelType of ..." per parameter."""
    from qmlite.registry.admin.commands import channels as channelcmds

    spec = next((s for s in channelcmds.SPECS if s.param.id == pid), None)
    return spec is not None and spec.applies(chltype)


CHANNELS = channels(_channel_applies)
ALL = (*QUEUES, TOPIC, SUBSCRIPTION, *CHANNELS, MQTT_CHANNEL, *AUTHINFOS, *SIMPLE)
