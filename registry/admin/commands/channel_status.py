"""Channel status and control: Inquire Channel Status, Start, Stop, Ping, Reset and Resolve Channel.

Server-connection channels run one instance per client socket; message channels (SDR, SVR, RCVR,
RQSTR) run their agents (server/mca/run.py), whose status registry/channels/mcastatus.py keeps
(docs/compat.md Part 5 and docs/decisions.md MCA23- have the evidence):

* Inquire Channel Status: one response per running instance (a SVRCONN's conversations counted in
  CurrentSharingConversations; a message channel's batches, sequence numbers, LUWIDs and in-doubt
  state), plus one STOPPED entry for a stopped channel with no instance left; nothing matching is
  MQRCCF_CHL_STATUS_NOT_FOUND.  Saved status (MQOT_SAVED_CHANNEL) is a message channel's
  synchronisation records: what it committed at its last batch's end.
* Stop Channel ends the instances (the server closes their sockets: the applications' next call
  fails MQRC_CONNECTION_BROKEN) and, with ChannelStatus STOPPED (the default), refuses new ones
  (MQRC_CHANNEL_NOT_AVAILABLE at the client) until Start Channel.
* Start Channel lifts the STOPPED state and runs a sending channel's agent.
* Ping Channel is for sending channels only; the server makes the round trip (server/mca/ping.py)
  and the command server answers once it is over (registry/admin/deferred.py).  Reset and Resolve Channel act on a
  message channel's synchronisation records (registry/channels/chlcommands.py).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import values as V
from qmlite.registry.objects import channels as M
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.deferred import Deferred
from qmlite.registry.admin.attributes import AttrTable, attr
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.admin.params import (INT, INT_LIST, STR, CommandError, filter_matches, p_int, p_int_list, p_str,
                                          parse)
from qmlite.registry.objects.instances import ChannelInstance
from qmlite.registry.channels.syncrecords import correl_id
from qmlite.registry.cluster.snapshots import repository_of
from qmlite.registry.admin.commands.channels import NAME_LENGTH
from qmlite.registry.admin.commands.definitions import matching, object_name
from qmlite.registry.admin.commands import telemetry

_CONN = C.MQ_CONN_NAME_LENGTH
MQMON_NOT_AVAILABLE = -1  # cmqc.h
MQCOMPRESS_NOT_AVAILABLE = -1  # cmqxc.h: no message sent yet, so no compression used for one
_INSTANCE_TYPES = (C.MQOT_CURRENT_CHANNEL, C.MQOT_SAVED_CHANNEL, C.MQOT_SHORT_CHANNEL)


@dataclasses.dataclass(slots=True)
class Row:
    """One status entry: a running instance, or a stopped channel's entry (instance None)."""

    channel: M.Channel
    instance: ChannelInstance | None
    instance_type: int

    @property
    def status(self) -> int:
        if self.instance is not None and self.instance.stop_requested:
            return C.MQCHS_STOPPING
        if self.mca is not None:  # a message channel's agent says where it is (STARTING ... RETRYING)
            return self.mca.status
        return C.MQCHS_STOPPED if self.instance is None else C.MQCHS_RUNNING

    monitoring: int = C.MQMON_OFF  # the channel's effective MONCHL
    mca: object = None  # a message channel's status (registry/channels/mcastatus.py MessageChannelStatus)
    xmitq_depth: int = 0  # a sending channel's transmission queue depth (XQMSGSA)

    def of(self, field: str, default: object) -> object:
        return default if self.instance is None else getattr(self.instance, field)


def _date(row: Row) -> str:
    return mq_date(row.instance.started) if row.instance else ""


def _time(row: Row) -> str:
    return mq_time(row.instance.started) if row.instance else ""


def _last(fmt):
    return lambda row: fmt(row.instance.last_msg) if row.instance and row.instance.last_msg else ""


def _monitoring(reg, channel: M.Channel) -> int:
    """The instance's effective MONCHL: the channel's level, the queue manager's for MONCHL(QMGR);
    the queue manager's MONCHL(NONE) turns every channel off (IBM's MONCHL rule)."""
    qmgr_level = reg.qmgr.monitoring_channel
    level = getattr(channel, "monitoring", C.MQMON_Q_MGR)
    if qmgr_level == C.MQMON_NONE:
        return C.MQMON_OFF
    if level == C.MQMON_Q_MGR:
        level = qmgr_level
    return C.MQMON_OFF if level in (C.MQMON_NONE, C.MQMON_Q_MGR) else level


def _indicator(row: Row) -> tuple[int, int]:
    """ExitTime, CompressionRate, CompressionTime: no exit runs and nothing is compressed here, so 0 for
    both periods while MONCHL collects, MQMON_NOT_AVAILABLE when it is OFF (or no instance runs)."""
    if row.instance is None or row.monitoring == C.MQMON_OFF:
        return (MQMON_NOT_AVAILABLE, MQMON_NOT_AVAILABLE)
    return (0, 0)


def _compression(row: Row) -> tuple[int, int]:
    # (the value negotiated, the value used for the last message): nothing is ever compressed here.
    return (V.MQCOMPRESS_NONE, V.MQCOMPRESS_NONE if row.of("msgs", 0) else MQCOMPRESS_NOT_AVAILABLE)


# IBM's "always returned" set, then what a running SVRCONN instance answers when asked (IBM's
# Inquire Channel Status (Response), the fields that apply to a server-connection channel; the
# message-channel ones -- Batches, BatchSize, sequence numbers, LUWIDs, in-doubt state, XQTime,
# NetTime, retries, MsgsAvailable -- are not returned for it, docs/decisions.md N5).
# SECPROT: the protocol a TLS client negotiated (Python's names), else NONE.
_SECPROT = {"TLSv1.2": C.MQSECPROT_TLSV12, "TLSv1.3": C.MQSECPROT_TLSV13}

_COMMON = [
    attr(C.MQCACH_CHANNEL_NAME, STR, lambda r: r.channel.name, pad=NAME_LENGTH, always=True),
    attr(C.MQIACH_CHANNEL_TYPE, INT, lambda r: r.channel.channel_type, always=True),
    attr(C.MQCACH_CONNECTION_NAME, STR, lambda r: _conn_name(r), pad=_CONN, always=True),
    attr(C.MQCACH_XMIT_Q_NAME, STR, lambda r: r.channel.xmit_q_name, pad=C.MQ_Q_NAME_LENGTH, always=True),
    attr(C.MQIACH_CHANNEL_INSTANCE_TYPE, INT, lambda r: r.instance_type, always=True),
    attr(C.MQIACH_CHANNEL_STATUS, INT, lambda r: r.status, always=True),
    attr(C.MQCACH_REMOTE_APPL_TAG, STR, lambda r: r.of("remote_appl", ""), pad=C.MQ_APPL_TAG_LENGTH, always=True),
    # A client connection has no remote queue manager: blank, as IBM reports it for a SVRCONN; a message
    # channel's partner, from its ID exchange (server/mca/run.py).
    attr(C.MQCA_REMOTE_Q_MGR_NAME, STR, lambda r: r.of("remote_qmgr", "") or _m("remote_qmgr", "")(r),
         pad=C.MQ_Q_MGR_NAME_LENGTH, always=True),
    attr(C.MQIACH_STOP_REQUESTED, INT, lambda r: V.MQCHSR_STOP_REQUESTED if r.of("stop_requested", False)
         else V.MQCHSR_STOP_NOT_REQUESTED, always=True),
    attr(C.MQIACH_CHANNEL_SUBSTATE, INT, lambda r: _substate(r), always=True),
    attr(C.MQIACH_BUFFERS_RECEIVED, INT, lambda r: _wrapped(r.of("buffers_received", 0))),
    attr(C.MQIACH_BUFFERS_SENT, INT, lambda r: _wrapped(r.of("buffers_sent", 0))),
    attr(C.MQIACH_BYTES_RECEIVED, INT, lambda r: _wrapped(r.of("bytes_received", 0))),
    attr(C.MQIACH_BYTES_SENT, INT, lambda r: _wrapped(r.of("bytes_sent", 0))),
    attr(C.MQIA_MONITORING_CHANNEL, INT, lambda r: r.monitoring),
    attr(C.MQCACH_CHANNEL_START_DATE, STR, _date, pad=C.MQ_CHANNEL_DATE_LENGTH),
    attr(C.MQCACH_CHANNEL_START_TIME, STR, _time, pad=C.MQ_CHANNEL_TIME_LENGTH),
    attr(C.MQIACH_COMPRESSION_RATE, INT_LIST, _indicator),
    attr(C.MQIACH_COMPRESSION_TIME, INT_LIST, _indicator),
    attr(C.MQIACH_CURRENT_SHARING_CONVS, INT, lambda r: r.of("conversations", 0)),
    attr(C.MQIACH_EXIT_TIME_INDICATOR, INT_LIST, _indicator),
    attr(C.MQIACH_HDR_COMPRESSION, INT_LIST, _compression),
    attr(C.MQIACH_HB_INTERVAL, INT, lambda r: r.of("heartbeat_interval", 0) or r.channel.heartbeat_interval),
    attr(C.MQIACH_KEEP_ALIVE_INTERVAL, INT, lambda r: r.channel.keep_alive_interval),
    attr(C.MQCACH_LAST_MSG_DATE, STR, _last(mq_date), pad=C.MQ_CHANNEL_DATE_LENGTH),
    attr(C.MQCACH_LAST_MSG_TIME, STR, _last(mq_time), pad=C.MQ_CHANNEL_TIME_LENGTH),
    attr(C.MQCACH_LOCAL_ADDRESS, STR, lambda r: r.of("local_address", ""), pad=C.MQ_LOCAL_ADDRESS_LENGTH),
    attr(C.MQIACH_MAX_MSG_LENGTH, INT, lambda r: r.of("max_msg_length", 0) or r.channel.max_msg_length),
    attr(C.MQIACH_MAX_SHARING_CONVS, INT, lambda r: r.of("max_sharing", 0)),
    attr(C.MQCACH_MCA_JOB_NAME, STR, lambda r: r.instance.job_name if r.instance else "",
         pad=C.MQ_MCA_JOB_NAME_LENGTH),
    attr(C.MQIACH_MCA_STATUS, INT, lambda r: C.MQMCAS_RUNNING if r.instance else C.MQMCAS_STOPPED),
    attr(C.MQCACH_MCA_USER_ID, STR, lambda r: r.of("mca_user", ""), pad=64),
    attr(C.MQIACH_MSG_COMPRESSION, INT_LIST, _compression),
    attr(C.MQIACH_MSGS, INT, lambda r: _wrapped(r.mca.msgs if r.mca is not None and r.instance else r.of("msgs", 0))),
    attr(C.MQCACH_REMOTE_PRODUCT, STR, lambda r: r.of("remote_product", ""), pad=C.MQ_REMOTE_PRODUCT_LENGTH),
    attr(C.MQCACH_REMOTE_VERSION, STR, lambda r: r.of("remote_version", ""), pad=C.MQ_REMOTE_VERSION_LENGTH),
    attr(C.MQIACH_SECURITY_PROTOCOL, INT, lambda r: _SECPROT.get(r.of("ssl_protocol", ""), C.MQSECPROT_NONE)),
    # TLS (server/tls.py): the CipherSpec negotiated, the client certificate's subject (SSLPEER) and issuer
    # (SSLCERTI) DNs as IBM shows them, when the secret key was agreed (SSLKEYDA/SSLKEYTI).
    attr(C.MQCACH_SSL_CERT_ISSUER_NAME, STR, lambda r: r.of("ssl_cert_issuer", ""), pad=C.MQ_SHORT_DNAME_LENGTH),
    attr(C.MQCACH_SSL_CERT_USER_ID, STR, lambda r: "", pad=C.MQ_USER_ID_LENGTH),
    attr(C.MQCACH_SSL_CIPHER_SPEC, STR, lambda r: r.of("ssl_cipher", "") or r.channel.ssl_cipher_spec,
         pad=C.MQ_SSL_CIPHER_SPEC_LENGTH),
    attr(C.MQCACH_SSL_KEY_RESET_DATE, STR,
         lambda r: mq_date(r.instance.ssl_key_time) if r.of("ssl_key_time", 0) else "",
         pad=C.MQ_DATE_LENGTH),
    attr(C.MQIACH_SSL_KEY_RESETS, INT, lambda r: r.of("ssl_key_resets", 0)),
    attr(C.MQCACH_SSL_KEY_RESET_TIME, STR,
         lambda r: mq_time(r.instance.ssl_key_time) if r.of("ssl_key_time", 0) else "",
         pad=C.MQ_TIME_LENGTH),
    attr(C.MQCACH_SSL_SHORT_PEER_NAME, STR, lambda r: r.of("ssl_peer", ""), pad=C.MQ_SHORT_DNAME_LENGTH),
]

# What only a server-connection channel returns (IBM: "applies to server-connection channels only").
_SVRCONN_ONLY = {C.MQIACH_CURRENT_SHARING_CONVS, C.MQIACH_MAX_SHARING_CONVS}


def _m(field: str, default: object = 0):
    """A message channel's status field (registry/channels/mcastatus.py), ``default`` without one."""
    return lambda r: default if r.mca is None else getattr(r.mca, field)


def _luwid(field: str):
    return lambda r: getattr(r.mca, field).hex().upper() if r.mca is not None else "0" * C.MQ_LUWID_LENGTH


def _in_doubt(r: Row) -> int:
    return C.MQCHIDS_INDOUBT if r.mca is not None and r.mca.in_doubt else C.MQCHIDS_NOT_INDOUBT


def _measured(indicator: str, sending_only: bool = False):
    """BatchSizeIndicator (XBATCHSZ), NetworkTimeIndicator (NETTIME), XmitQTimeIndicator (XQTIME): the
    short- and long-term values the agent measured (registry/channels/monitoring.py) while MONCHL collects;
    MQMON_NOT_AVAILABLE when it is OFF, no instance runs, nothing was measured yet, or (NETTIME, XQTIME)
    at a receiving end, which asks the partner nothing and has no transmission queue (MCM5)."""
    def get(r: Row) -> tuple[int, int]:
        if (r.instance is None or r.monitoring == C.MQMON_OFF or r.mca is None
                or (sending_only and r.channel.channel_type not in M.SENDING)):
            return (MQMON_NOT_AVAILABLE, MQMON_NOT_AVAILABLE)
        return getattr(r.mca.measures, indicator).pair()
    return get


# The message-channel fields (IBM "Inquire Channel Status (Response)", returned if requested): batches,
# sequence numbers, LUWIDs, the in-doubt state, retries, the transmission queue (docs/decisions.md MCA23).
_MESSAGE = [
    attr(C.MQIACH_BATCHES, INT, lambda r: _wrapped(_m("batches")(r))),
    attr(C.MQIACH_BATCH_SIZE, INT, lambda r: _m("batch_size")(r) or r.channel.batch_size),
    attr(C.MQIACH_BATCH_SIZE_INDICATOR, INT_LIST, _measured("batch_size")),
    attr(C.MQCACH_CURRENT_LUWID, STR, _luwid("current_luwid"), pad=C.MQ_LUWID_LENGTH),
    attr(C.MQIACH_CURRENT_MSGS, INT, _m("current_msgs")),
    attr(C.MQIACH_CURRENT_SEQ_NUMBER, INT, _m("current_seq")),
    attr(C.MQIACH_INDOUBT_STATUS, INT, _in_doubt),
    attr(C.MQCACH_LAST_LUWID, STR, _luwid("last_luwid"), pad=C.MQ_LUWID_LENGTH),
    attr(C.MQIACH_LAST_SEQ_NUMBER, INT, _m("last_seq")),
    attr(C.MQIACH_LONG_RETRIES_LEFT, INT, _m("long_retries_left")),
    attr(C.MQIACH_NETWORK_TIME_INDICATOR, INT_LIST, _measured("net_time", sending_only=True)),
    attr(C.MQIACH_NPM_SPEED, INT, lambda r: r.channel.npm_speed),
    attr(C.MQIACH_SHORT_RETRIES_LEFT, INT, _m("short_retries_left")),
    attr(C.MQIACH_XMITQ_MSGS_AVAILABLE, INT, lambda r: r.xmitq_depth),
    attr(C.MQIACH_XMITQ_TIME_INDICATOR, INT_LIST, _measured("xq_time", sending_only=True)),
]
# SAVED status holds the always-returned fields and what is saved at each batch's end (IBM DISPLAY
# CHSTATUS: "CURLUWID, CURSEQNO, INDOUBT, LSTLUWID, LSTSEQNO" for saved status).
# ChannelInstanceAttrs MQIACF_MONITORING (MQSC DISPLAY CHSTATUS MONITOR): IBM's "set of online monitoring
# parameters", COMPRATE, COMPTIME, EXITTIME, MONCHL, NETTIME, XBATCHSZ, XQMSGSA and XQTIME.
MONITOR_ATTRS = (C.MQIACH_COMPRESSION_RATE, C.MQIACH_COMPRESSION_TIME, C.MQIACH_EXIT_TIME_INDICATOR,
                 C.MQIA_MONITORING_CHANNEL, C.MQIACH_NETWORK_TIME_INDICATOR, C.MQIACH_BATCH_SIZE_INDICATOR,
                 C.MQIACH_XMITQ_MSGS_AVAILABLE, C.MQIACH_XMITQ_TIME_INDICATOR)
_SAVED_IDS = {C.MQCACH_CURRENT_LUWID, C.MQIACH_CURRENT_SEQ_NUMBER, C.MQIACH_INDOUBT_STATUS, C.MQCACH_LAST_LUWID,
              C.MQIACH_LAST_SEQ_NUMBER}

TABLE = AttrTable(_COMMON)  # a server-connection channel's instance
MESSAGE_TABLE = AttrTable([a for a in _COMMON if a.id not in _SVRCONN_ONLY] + _MESSAGE)
SAVED_TABLE = AttrTable([a for a in _COMMON if a.always] + [a for a in _MESSAGE if a.id in _SAVED_IDS])
_FILTER_KINDS = {**TABLE.filter_kinds(), **MESSAGE_TABLE.filter_kinds()}


def _table_of(row: Row) -> AttrTable:
    if row.instance_type == C.MQOT_SAVED_CHANNEL:
        return SAVED_TABLE
    return MESSAGE_TABLE if row.channel.channel_type in M.MESSAGE else TABLE


def _conn_name(row: Row) -> str:
    """CONNAME: the instance's partner address; a stopped or saved message channel's last partner."""
    return row.of("conn_name", "") or (row.mca.conn_name if row.mca is not None else "")


def _substate(row: Row) -> int:
    if row.mca is not None:
        return row.mca.substate
    return V.MQCHSSTATE_RECEIVING if row.instance else V.MQCHSSTATE_OTHER



def _wrapped(count: int) -> int:
    """IBM (9.2.2 and later): a counter past 999 999 999 wraps."""
    return count % 1_000_000_000


_INQUIRE = (p_str(C.MQCACH_CHANNEL_NAME, NAME_LENGTH), p_int(C.MQIACH_CHANNEL_INSTANCE_TYPE),
            p_int_list(C.MQIACH_CHANNEL_INSTANCE_ATTRS), p_str(C.MQCACH_CONNECTION_NAME, _CONN),
            p_str(C.MQCACH_XMIT_Q_NAME, C.MQ_Q_NAME_LENGTH))


def _xmitq_depth(reg, channel: M.Channel) -> int:
    """XQMSGSA: the messages waiting for a sending channel; a cluster-sender counts only its own on the
    shared SYSTEM.CLUSTER.TRANSMIT.QUEUE (those whose CorrelId names it: docs/decisions.md CLU3, CLV9)."""
    if channel.channel_type not in M.SENDING:
        return 0
    if channel.channel_type != M.CLUSSDR:
        return reg.messages.depth(channel.xmit_q_name)
    contents = reg.messages.peek(channel.xmit_q_name)
    wanted = correl_id(channel.name)
    return sum(1 for m in contents if m.correl_id == wanted) if contents is not None else 0


def _rows(ctx, channel: M.Channel, instance_type: int) -> list[Row]:
    reg = ctx.registry
    running = reg.running
    level = _monitoring(reg, channel)
    if channel.channel_type not in M.MESSAGE:
        if instance_type == C.MQOT_SAVED_CHANNEL:  # only message channels keep saved status
            return []
        rows = [Row(channel, i, instance_type, level) for i in running.instances_of(channel.name)]
        if not rows and channel.name in running.stopped:
            rows.append(Row(channel, None, instance_type, level))
        return rows
    depth = _xmitq_depth(reg, channel)
    if instance_type == C.MQOT_SAVED_CHANNEL:
        if ctx.qm is None:
            return []
        if channel.channel_type == M.CLUSRCVR:  # one saved status per member sending to it (CLU6, CLV9)
            partners = [q for q in sorted({q for _, q in repository_of(reg).snapshots}) if q != reg.qmgr.name]
        else:
            partners = [""]
        saved_rows = [(p, ctx.qm.channel_saved_status(channel, p)) for p in partners]
        return [Row(channel, None, instance_type, level, saved, depth) for _, saved in saved_rows if saved is not None]
    mca = running.message_channels.get(channel.name)
    rows = [Row(channel, i, instance_type, level, mca, depth) for i in running.instances_of(channel.name)]
    # An agent that ended: STOPPED (stopped, out of retries) stays shown until START CHANNEL; one that
    # ended normally (DISCINT, the partner closed it) is INACTIVE, which IBM does not show as current.
    if not rows and (channel.name in running.stopped or (mca is not None and mca.status == C.MQCHS_STOPPED)):
        if mca is not None and mca.status != C.MQCHS_STOPPED:
            mca = dataclasses.replace(mca, status=C.MQCHS_STOPPED)
        rows.append(Row(channel, None, instance_type, level, mca, depth))
    return rows


def _matches(flt, row: Row) -> bool:
    attribute = _table_of(row).by_id.get(flt.parameter)
    return attribute is not None and filter_matches(flt, attribute.get(row))


def _definitions(reg) -> dict:
    """The channels to look through: with auto-defined cluster-senders once the cluster told of members."""
    if getattr(reg, "cluster_repository", None) is None:
        return reg.objects(M.KIND)
    from qmlite.registry.cluster.members import with_cluster_senders

    return with_cluster_senders(reg)


def inquire_channel_status(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    if telemetry.is_mqtt(request):  # ChannelType MQCHT_MQTT: the MQXR service's form of the command
        return telemetry.inquire_status(ctx, request)
    parsed = parse(request, _INQUIRE, filters=_FILTER_KINDS)
    values, flt = parsed.values, parsed.filter
    instance_type = values.get(C.MQIACH_CHANNEL_INSTANCE_TYPE, C.MQOT_CURRENT_CHANNEL)
    if instance_type not in _INSTANCE_TYPES:
        raise CommandError(C.MQRCCF_CHL_INST_TYPE_ERROR, parameter=C.MQIACH_CHANNEL_INSTANCE_TYPE)
    channels = matching(_definitions(ctx.registry), values, C.MQCACH_CHANNEL_NAME)
    rows: list[Row] = []
    for channel in channels:
        rows += _rows(ctx, channel, instance_type)
    conn_name = values.get(C.MQCACH_CONNECTION_NAME)
    if conn_name:
        rows = [r for r in rows if _conn_name(r) == conn_name]
    xmitq = values.get(C.MQCACH_XMIT_Q_NAME)
    if xmitq:
        rows = [r for r in rows if r.channel.xmit_q_name == xmitq]
    if flt is not None:
        rows = [r for r in rows if _matches(flt, r)]
    requested = [] if instance_type == C.MQOT_SHORT_CHANNEL else values.get(C.MQIACH_CHANNEL_INSTANCE_ATTRS)
    if requested and C.MQIACF_MONITORING in requested:
        requested = [a for a in requested if a != C.MQIACF_MONITORING] + list(MONITOR_ATTRS)
    out = []
    for row in rows:  # short status: what is always returned
        table = _table_of(row)
        out.append(table.render(row, table.select(requested)))  # type: ignore[arg-type]
    return R.data(ctx.command, out, none_found=C.MQRCCF_CHL_STATUS_NOT_FOUND)


# ---- control -------------------------------------------------------------------------------------
def _channel(reg, values: dict) -> M.Channel:
    name = object_name(values, C.MQCACH_CHANNEL_NAME)
    channel = _definitions(reg).get(name)
    if channel is None:
        raise CommandError(C.MQRCCF_CHANNEL_NOT_FOUND, parameter=C.MQCACH_CHANNEL_NAME)
    return channel


_STOP = (p_str(C.MQCACH_CHANNEL_NAME, NAME_LENGTH),
         p_int(C.MQIACF_MODE, V.MQMODE_QUIESCE, V.MQMODE_FORCE, V.MQMODE_TERMINATE),
         p_int(C.MQIACH_CHANNEL_STATUS, C.MQCHS_STOPPED, C.MQCHS_INACTIVE),
         p_str(C.MQCACH_CONNECTION_NAME, _CONN), p_str(C.MQCA_Q_MGR_NAME, C.MQ_Q_MGR_NAME_LENGTH))


def stop_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    if telemetry.is_mqtt(request):
        return telemetry.stop_channel(ctx, request)
    values = parse(request, _STOP).values
    reg = ctx.registry
    channel = _channel(reg, values)
    if channel.channel_type == M.CLNTCONN:  # a client-connection channel runs in the client
        raise CommandError(C.MQRCCF_CHANNEL_TYPE_ERROR, parameter=C.MQCACH_CHANNEL_NAME)
    to_status = values.get(C.MQIACH_CHANNEL_STATUS, C.MQCHS_STOPPED)
    conn_name = values.get(C.MQCACH_CONNECTION_NAME, "")
    running = reg.running
    active = [i for i in running.instances_of(channel.name) if not conn_name or i.conn_name == conn_name]
    # IBM: stopping a channel that is not running is allowed only to put it in STOPPED state, and only
    # without naming a partner (QMgrName, ConnectionName); otherwise "channel not active".
    if not active and (to_status == C.MQCHS_INACTIVE or conn_name or values.get(C.MQCA_Q_MGR_NAME)
                       or channel.name in running.stopped):
        raise CommandError(C.MQRCCF_CHANNEL_NOT_ACTIVE)
    running.stop(channel.name, conn_name=conn_name, to_status=to_status)
    if ctx.qm is not None:
        ctx.qm.events.channel_stopped_by_user(channel)  # CHLEV: Channel Stopped By User
    return R.ok(ctx.command)


_START = (p_str(C.MQCACH_CHANNEL_NAME, NAME_LENGTH),)


def start_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    if telemetry.is_mqtt(request):
        return telemetry.start_channel(ctx, request)
    values = parse(request, _START).values
    reg = ctx.registry
    channel = _channel(reg, values)
    if channel.channel_type == M.CLNTCONN:
        raise CommandError(C.MQRCCF_CHANNEL_TYPE_ERROR, parameter=C.MQCACH_CHANNEL_NAME)
    if reg.running.instances_of(channel.name) and channel.channel_type != M.SVRCONN:
        raise CommandError(C.MQRCCF_CHANNEL_IN_USE)
    if channel.channel_type == M.SVR and not channel.conn_name.strip():
        # A server without CONNAME only answers a requester (MCS4).
        raise CommandError(C.MQRCCF_MISSING_CONN_NAME)
    reg.running.start(channel.name)
    if channel.channel_type in M.SENDING or channel.channel_type == M.RQSTR:
        reg.running.start_message_channel(channel)  # the server runs its agent (server/mca/run.py)
    if ctx.qm is not None:
        ctx.qm.events.channel_started(channel)  # CHLEV: "when a command is used to start a channel"
    return R.ok(ctx.command)


_PING = (p_str(C.MQCACH_CHANNEL_NAME, NAME_LENGTH), p_int(C.MQIACH_DATA_COUNT))


def ping_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    """Answered after the round trip (server/mca/ping.py): the responses are deferred to the server's
    task; a caller that cannot wait, or a queue manager with no server, gets MQRCCF_ALLOCATE_FAILED."""
    values = parse(request, _PING).values
    channel = _channel(ctx.registry, values)
    if channel.channel_type not in (M.SDR, M.SVR, M.CLUSSDR):  # IBM: sender, server and cluster-sender only
        raise CommandError(C.MQRCCF_CHANNEL_TYPE_ERROR, parameter=C.MQCACH_CHANNEL_NAME)
    if not 16 <= values.get(C.MQIACH_DATA_COUNT, 16) <= 32768:  # IBM: "in the range 16 through 32 768"
        raise CommandError(C.MQRCCF_PING_DATA_COUNT_ERROR, parameter=C.MQIACH_DATA_COUNT)
    if ctx.registry.running.instances_of(channel.name):
        raise CommandError(C.MQRCCF_CHANNEL_IN_USE)
    fallback = R.failure(ctx.command, CommandError(C.MQRCCF_ALLOCATE_FAILED))  # no agent to reach the partner
    ping = ctx.registry.running.ping_message_channel
    if ping is None:
        return fallback
    command, count = ctx.command, values.get(C.MQIACH_DATA_COUNT, 16)

    def answer(reason: int) -> list[P.PCFMessage]:
        return R.ok(command) if not reason else R.failure(command, CommandError(reason))

    return Deferred(fallback, lambda complete: ping(channel, count, lambda reason: complete(answer(reason))))


_RESET = (p_str(C.MQCACH_CHANNEL_NAME, NAME_LENGTH), p_int(C.MQIACH_MSG_SEQUENCE_NUMBER, low=1, high=999_999_999))


def reset_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _RESET).values
    channel = _channel(ctx.registry, values)
    if channel.channel_type not in M.MESSAGE:
        raise CommandError(C.MQRCCF_CHANNEL_TYPE_ERROR, parameter=C.MQCACH_CHANNEL_NAME)
    _on_records(ctx, channel, "reset", values.get(C.MQIACH_MSG_SEQUENCE_NUMBER, 1))
    return R.ok(ctx.command)


def _on_records(ctx, channel, action: str, arg) -> None:
    """RESET / RESOLVE on a message channel's synchronisation records (registry/channels/chlcommands.py):
    not while it runs (its agent holds them; a running sender takes RESET from its status), and only with
    a queue manager (not a bare registry)."""
    if ctx.qm is None:
        return
    from qmlite.registry.channels import chlcommands  # loaded at the first RESET or RESOLVE

    if ctx.registry.running.instances_of(channel.name):
        if action == "reset" and channel.channel_type in M.SENDING:
            chlcommands.reset_running(ctx.registry, channel, arg)  # at its next batch boundary (MCS7)
            return
        raise CommandError(C.MQRCCF_CHANNEL_IN_USE)

    try:
        getattr(chlcommands, action)(ctx.qm, channel, arg)
    except chlcommands.CommandRefused as exc:
        raise CommandError(exc.reason) from None


_RESOLVE = (p_str(C.MQCACH_CHANNEL_NAME, NAME_LENGTH), p_int(C.MQIACH_IN_DOUBT, V.MQIDO_COMMIT, V.MQIDO_BACKOUT))


def resolve_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _RESOLVE).values
    channel = _channel(ctx.registry, values)
    if C.MQIACH_IN_DOUBT not in values:
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQIACH_IN_DOUBT)
    if channel.channel_type not in (M.SDR, M.SVR, M.CLUSSDR):  # IBM: sending channels only
        raise CommandError(C.MQRCCF_CHANNEL_TYPE_ERROR, parameter=C.MQCACH_CHANNEL_NAME)
    _on_records(ctx, channel, "resolve", values[C.MQIACH_IN_DOUBT] == V.MQIDO_COMMIT)
    return R.ok(ctx.command)


def register(engine) -> None:
    for command, handler in ((C.MQCMD_INQUIRE_CHANNEL_STATUS, inquire_channel_status),
                             (C.MQCMD_STOP_CHANNEL, stop_channel), (C.MQCMD_START_CHANNEL, start_channel),
                             (C.MQCMD_PING_CHANNEL, ping_channel), (C.MQCMD_RESET_CHANNEL, reset_channel),
                             (C.MQCMD_RESOLVE_CHANNEL, resolve_channel)):
        engine.register(command, handler)
