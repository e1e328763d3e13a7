"""Channel commands: Create/Copy/Change/Delete Channel, Inquire Channel, Inquire Channel Names.

The definitions.py machinery (parameters, names, Replace, generic names, one filter) with what
channel types add (IBM, "Change, Copy, and Create Channel" and "Inquire Channel" on Multiplatforms):

* ChannelType is required on Create, Copy and Change, and must be one of the Multiplatforms types;
  on Copy and Change (and a Create that replaces) it must be the existing channel's type: otherwise
  MQRCCF_CHANNEL_TYPE_ERROR.
* An attribute the channel type does not have is refused, MQRCCF_WRONG_CHANNEL_TYPE with its id.
* A new channel starts from the SYSTEM.DEF.<type> channel of its type.
* Sender and server channels need a transmission queue (MQRCCF_XMIT_Q_NAME_ERROR), and sender,
  requester, client-connection and cluster-sender channels a connection name
  (MQRCCF_MISSING_CONN_NAME), from the command or the default channel.
* Delete refuses a channel with running instances (MQRCCF_CHANNEL_IN_USE).
* Inquire Channel and Inquire Channel Names take ChannelType (default MQCHT_ALL) to select; Inquire
  reports the attributes of each channel's type only.
"""

from __future__ import annotations

from qmlite.pcf import cipherspecs, dn
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import values as V
from qmlite.registry.objects import channels as M
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, attr
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.admin.params import (INT, STR, STR_LIST, CommandError, Param, filter_matches, p_int, p_int_list,
                                          p_str, parse)
from qmlite.registry.admin.commands import definitions
from qmlite.registry.admin.commands.definitions import CommandIds, DefinitionKind, matching, object_name
from qmlite.registry.admin.commands.queues import check_name
from qmlite.registry.admin.commands import typed
from qmlite.registry.admin.commands.typed import Spec, Subtyped, TypedTable, attrs, definition

NAME_LENGTH = C.MQ_CHANNEL_NAME_LENGTH  # 20
MCA_USER_LENGTH = 64  # MQ_MCA_USER_ID_LENGTH on Multiplatforms (12 is z/OS's)
_ALL, _MSG, _SENDING = None, M.MESSAGE, M.SENDING
_SDR, _SVR, _RCVR, _RQSTR = M.SDR, M.SVR, M.RCVR, M.RQSTR
_CLNT, _SVRC, _CRCV, _CSDR = M.CLNTCONN, M.SVRCONN, M.CLUSRCVR, M.CLUSSDR
_MQTT = M.MQTT
_MQC = M.MQ_CHANNELS  # every MQ channel type, not a telemetry channel
_CLUSTER = frozenset({_CSDR, _CRCV})
_MON = (C.MQMON_Q_MGR, C.MQMON_OFF, C.MQMON_LOW, C.MQMON_MEDIUM, C.MQMON_HIGH)
_MANY = 999_999_999


def _t(*types: int) -> frozenset[int]:
    return frozenset(types)


def _exits(pid: int) -> Param:
    return Param(pid, STR_LIST, max_length=C.MQ_EXIT_NAME_LENGTH)


def _exit_data(pid: int) -> Param:
    return Param(pid, STR_LIST, max_length=C.MQ_EXIT_DATA_LENGTH)


def _password(ch) -> str:
    return "********" if ch.password else ""  # a password is never shown, only whether one is set


def _passphrase(ch) -> str:
    return "********" if ch.ssl_key_passphrase else ""  # SSLKEYP: shown as a password is (decision TC4)


SPECS: tuple[Spec, ...] = (
    Spec(p_str(C.MQCACH_DESC, C.MQ_CHANNEL_DESC_LENGTH), "description", C.MQ_CHANNEL_DESC_LENGTH, _MQC),
    Spec(p_int(C.MQIACH_XMIT_PROTOCOL_TYPE, C.MQXPT_TCP, C.MQXPT_LU62), "transport_type"),
    Spec(p_str(C.MQCACH_MODE_NAME, C.MQ_MODE_NAME_LENGTH), "mode_name", C.MQ_MODE_NAME_LENGTH,
         _t(_SDR, _SVR, _RQSTR, _CLNT, _CSDR, _CRCV)),
    Spec(p_str(C.MQCACH_TP_NAME, C.MQ_TP_NAME_LENGTH), "tp_name", C.MQ_TP_NAME_LENGTH, _MQC),
    Spec(p_str(C.MQCA_Q_MGR_NAME, C.MQ_Q_MGR_NAME_LENGTH), "qmgr_name", C.MQ_Q_MGR_NAME_LENGTH, _t(_CLNT)),
    Spec(p_str(C.MQCACH_XMIT_Q_NAME, C.MQ_Q_NAME_LENGTH), "xmit_q_name", C.MQ_Q_NAME_LENGTH, _t(_SDR, _SVR)),
    Spec(p_str(C.MQCACH_CONNECTION_NAME, C.MQ_CONN_NAME_LENGTH), "conn_name", C.MQ_CONN_NAME_LENGTH,
         _t(_SDR, _SVR, _RQSTR, _CLNT, _CSDR, _CRCV)),
    Spec(p_str(C.MQCACH_MCA_NAME, C.MQ_MCA_NAME_LENGTH), "mca_name", C.MQ_MCA_NAME_LENGTH,
         _t(_SDR, _SVR, _RQSTR, _CSDR, _CRCV)),
    Spec(p_int(C.MQIACH_BATCH_SIZE, low=1, high=9999), "batch_size", types=_MSG),
    Spec(p_int(C.MQIACH_DISC_INTERVAL, low=0, high=999_999), "disc_interval",
         types=_t(_SDR, _SVR, _SVRC, _CSDR, _CRCV)),
    Spec(p_int(C.MQIACH_SHORT_RETRY, low=0, high=_MANY), "short_retry_count", types=_SENDING),
    Spec(p_int(C.MQIACH_SHORT_TIMER, low=0, high=_MANY), "short_retry_interval", types=_SENDING),
    Spec(p_int(C.MQIACH_LONG_RETRY, low=0, high=_MANY), "long_retry_count", types=_SENDING),
    Spec(p_int(C.MQIACH_LONG_TIMER, low=0, high=_MANY), "long_retry_interval", types=_SENDING),
    Spec(p_str(C.MQCACH_SEC_EXIT_NAME, C.MQ_EXIT_NAME_LENGTH), "security_exit", C.MQ_EXIT_NAME_LENGTH, _MQC),
    Spec(p_str(C.MQCACH_SEC_EXIT_USER_DATA, C.MQ_EXIT_DATA_LENGTH), "security_user_data", C.MQ_EXIT_DATA_LENGTH, _MQC),
    Spec(_exits(C.MQCACH_MSG_EXIT_NAME), "msg_exits", C.MQ_EXIT_NAME_LENGTH, _MSG),
    Spec(_exit_data(C.MQCACH_MSG_EXIT_USER_DATA), "msg_exit_user_data", C.MQ_EXIT_DATA_LENGTH, _MSG),
    Spec(_exits(C.MQCACH_SEND_EXIT_NAME), "send_exits", C.MQ_EXIT_NAME_LENGTH, _MQC),
    Spec(_exit_data(C.MQCACH_SEND_EXIT_USER_DATA), "send_exit_user_data", C.MQ_EXIT_DATA_LENGTH, _MQC),
    Spec(_exits(C.MQCACH_RCV_EXIT_NAME), "receive_exits", C.MQ_EXIT_NAME_LENGTH, _MQC),
    Spec(_exit_data(C.MQCACH_RCV_EXIT_USER_DATA), "receive_exit_user_data", C.MQ_EXIT_DATA_LENGTH, _MQC),
    Spec(p_int(C.MQIACH_PUT_AUTHORITY, V.MQPA_DEFAULT, V.MQPA_CONTEXT), "put_authority",
         types=_t(_RCVR, _RQSTR, _CRCV)),
    Spec(p_int(C.MQIACH_SEQUENCE_NUMBER_WRAP, low=100, high=_MANY), "seq_number_wrap", types=_MSG),
    Spec(p_int(C.MQIACH_MAX_MSG_LENGTH, low=0, high=104_857_600), "max_msg_length", types=_MQC),
    Spec(p_int(C.MQIACH_MCA_TYPE, V.MQMCAT_PROCESS, V.MQMCAT_THREAD), "mca_type",
         types=_t(_SDR, _SVR, _RQSTR, _CSDR, _CRCV)),
    Spec(p_str(C.MQCACH_MCA_USER_ID, MCA_USER_LENGTH), "mca_user", MCA_USER_LENGTH,
         _t(_SDR, _SVR, _RCVR, _RQSTR, _SVRC, _CSDR, _CRCV, _MQTT)),
    Spec(p_str(C.MQCACH_USER_ID, C.MQ_USER_ID_LENGTH), "user_id", C.MQ_USER_ID_LENGTH,
         _t(_SDR, _SVR, _RQSTR, _CLNT, _CSDR)),
    Spec(p_str(C.MQCACH_PASSWORD, C.MQ_PASSWORD_LENGTH), "password", C.MQ_PASSWORD_LENGTH,
         _t(_SDR, _SVR, _RQSTR, _CLNT, _CSDR), _password),
    Spec(p_str(C.MQCACH_MR_EXIT_NAME, C.MQ_EXIT_NAME_LENGTH), "msg_retry_exit", C.MQ_EXIT_NAME_LENGTH,
         _t(_RCVR, _RQSTR, _CRCV)),
    Spec(p_str(C.MQCACH_MR_EXIT_USER_DATA, C.MQ_EXIT_DATA_LENGTH), "msg_retry_user_data", C.MQ_EXIT_DATA_LENGTH,
         _t(_RCVR, _RQSTR, _CRCV)),
    Spec(p_int(C.MQIACH_MR_COUNT, low=0, high=_MANY), "msg_retry_count", types=_t(_RCVR, _RQSTR, _CRCV)),
    Spec(p_int(C.MQIACH_MR_INTERVAL, low=0, high=_MANY), "msg_retry_interval", types=_t(_RCVR, _RQSTR, _CRCV)),
    Spec(p_int(C.MQIACH_HB_INTERVAL, low=0, high=999_999), "heartbeat_interval", types=_MQC),
    Spec(p_int(C.MQIACH_BATCH_INTERVAL, low=0, high=_MANY), "batch_interval", types=_SENDING),
    Spec(p_int(C.MQIACH_NPM_SPEED, C.MQNPMS_NORMAL, C.MQNPMS_FAST), "npm_speed", types=_MSG),
    Spec(p_int(C.MQIACH_KEEP_ALIVE_INTERVAL, low=V.MQKAI_AUTO, high=99_999), "keep_alive_interval", types=_MQC),
    Spec(p_str(C.MQCACH_LOCAL_ADDRESS, C.MQ_LOCAL_ADDRESS_LENGTH), "local_address", C.MQ_LOCAL_ADDRESS_LENGTH,
         _t(_SDR, _SVR, _RQSTR, _CLNT, _CSDR, _CRCV, _MQTT)),
    Spec(p_int(C.MQIACH_BATCH_HB, low=0, high=_MANY), "batch_heartbeat", types=_SENDING),
    Spec(p_str(C.MQCACH_SSL_CIPHER_SPEC, C.MQ_SSL_CIPHER_SPEC_LENGTH), "ssl_cipher_spec", C.MQ_SSL_CIPHER_SPEC_LENGTH),
    Spec(p_str(C.MQCACH_SSL_PEER_NAME, C.MQ_SSL_PEER_NAME_LENGTH), "ssl_peer_name", None, _MQC),
    # NEVER is a telemetry channel's only (_validate).
    Spec(p_int(C.MQIACH_SSL_CLIENT_AUTH, V.MQSCA_REQUIRED, V.MQSCA_OPTIONAL, V.MQSCA_NEVER_REQUIRED),
         "ssl_client_auth", types=_t(_SVR, _RCVR, _RQSTR, _SVRC, _CRCV, _MQTT)),
    Spec(p_int(C.MQIACH_DATA_CONVERSION, V.MQCDC_NO_SENDER_CONVERSION, V.MQCDC_SENDER_CONVERSION),
         "data_conversion", types=_SENDING),
    Spec(p_str(C.MQCA_CLUSTER_NAME, C.MQ_CLUSTER_NAME_LENGTH), "cluster_name", C.MQ_CLUSTER_NAME_LENGTH, _CLUSTER),
    Spec(p_str(C.MQCA_CLUSTER_NAMELIST, C.MQ_NAMELIST_NAME_LENGTH), "cluster_namelist", C.MQ_NAMELIST_NAME_LENGTH,
         _CLUSTER),
    Spec(p_int(C.MQIACH_NETWORK_PRIORITY, low=0, high=9), "network_priority", types=_t(_CRCV)),
    Spec(p_int(C.MQIACH_CLWL_CHANNEL_RANK, low=0, high=9), "clwl_rank", types=_CLUSTER),
    Spec(p_int(C.MQIACH_CLWL_CHANNEL_PRIORITY, low=0, high=9), "clwl_priority", types=_CLUSTER),
    Spec(p_int(C.MQIACH_CLWL_CHANNEL_WEIGHT, low=1, high=99), "clwl_weight", types=_CLUSTER),
    Spec(p_int_list(C.MQIACH_HDR_COMPRESSION), "header_compression", types=_MQC),
    Spec(p_int_list(C.MQIACH_MSG_COMPRESSION), "message_compression", types=_MQC),
    Spec(p_int(C.MQIACH_SHARING_CONVERSATIONS, low=0, high=_MANY), "sharing_conversations", types=_t(_SVRC, _CLNT)),
    Spec(p_int(C.MQIACH_MAX_INSTANCES, low=0, high=_MANY), "max_instances", types=_t(_SVRC)),
    Spec(p_int(C.MQIACH_MAX_INSTS_PER_CLIENT, low=0, high=_MANY), "max_instances_per_client", types=_t(_SVRC)),
    Spec(p_int(C.MQIACH_CLIENT_CHANNEL_WEIGHT, low=0, high=99), "client_weight", types=_t(_CLNT)),
    Spec(p_int(C.MQIACH_CONNECTION_AFFINITY, C.MQCAFTY_NONE, C.MQCAFTY_PREFERRED), "connection_affinity",
         types=_t(_CLNT)),
    Spec(p_int(C.MQIA_PROPERTY_CONTROL, C.MQPROP_COMPATIBILITY, C.MQPROP_NONE, C.MQPROP_ALL), "property_control",
         types=_SENDING),
    Spec(p_int(C.MQIA_MONITORING_CHANNEL, *_MON), "monitoring",
         types=_t(_SDR, _SVR, _RCVR, _RQSTR, _SVRC, _CSDR, _CRCV)),
    Spec(p_int(C.MQIA_STATISTICS_CHANNEL, *_MON), "statistics", types=_MSG),
    Spec(p_int(C.MQIACH_DEF_RECONNECT, V.MQRCN_NO, V.MQRCN_YES, V.MQRCN_Q_MGR, V.MQRCN_DISABLED), "def_reconnect",
         types=_t(_CLNT)),
    Spec(p_int(C.MQIACH_BATCH_DATA_LIMIT, low=0, high=999_999), "batch_data_limit", types=_SENDING),
    Spec(p_int(C.MQIA_USE_DEAD_LETTER_Q, C.MQUSEDLQ_NO, C.MQUSEDLQ_YES), "use_dlq", types=_MSG),
    Spec(p_str(C.MQCA_CERT_LABEL, C.MQ_CERT_LABEL_LENGTH), "cert_label", C.MQ_CERT_LABEL_LENGTH, _MQC),
    # Telemetry channels' own (IBM, "Change, Copy, and Create Channel (MQTT)"): ranges checked in
    # _validate, each with the reason IBM gives for it.
    Spec(p_int(C.MQIACH_PORT), "port", types=_t(_MQTT)),
    Spec(p_int(C.MQIACH_BACKLOG), "backlog", types=_t(_MQTT)),
    Spec(p_str(C.MQCACH_JAAS_CONFIG, C.MQ_JAAS_CONFIG_LENGTH), "jaas_config", C.MQ_JAAS_CONFIG_LENGTH, _t(_MQTT)),
    Spec(p_int_list(C.MQIACH_PROTOCOL), "protocols", types=_t(_MQTT)),
    Spec(p_str(C.MQCA_SSL_KEY_REPOSITORY, C.MQ_SSL_KEY_REPOSITORY_LENGTH), "ssl_key_repository",
         C.MQ_SSL_KEY_REPOSITORY_LENGTH, _t(_MQTT)),
    Spec(p_str(C.MQCACH_SSL_KEY_PASSPHRASE, C.MQ_SSL_KEY_PASSPHRASE_LENGTH), "ssl_key_passphrase",
         C.MQ_SSL_KEY_PASSPHRASE_LENGTH, _t(_MQTT), _passphrase),
    Spec(p_int(C.MQIACH_USE_CLIENT_ID), "use_client_id", types=_t(_MQTT)),
)
_COMPRESSION = {
    C.MQIACH_HDR_COMPRESSION: frozenset({V.MQCOMPRESS_NONE, V.MQCOMPRESS_SYSTEM}),
    C.MQIACH_MSG_COMPRESSION: frozenset({V.MQCOMPRESS_NONE, V.MQCOMPRESS_RLE, V.MQCOMPRESS_ZLIBFAST,
                                         V.MQCOMPRESS_ZLIBHIGH, V.MQCOMPRESS_LZ4FAST, V.MQCOMPRESS_LZ4HIGH,
                                         V.MQCOMPRESS_ANY}),
}
_P_TYPE = p_int(C.MQIACH_CHANNEL_TYPE)  # checked by hand: a bad type is MQRCCF_CHANNEL_TYPE_ERROR
_P_TABLE = p_int(C.MQIACH_CHANNEL_TABLE, V.MQCHTAB_Q_MGR, V.MQCHTAB_CLNTCONN)


_PROTOCOLS = frozenset(M.MQTT_PROTOCOLS)
# A telemetry channel's integers: (lowest, highest, IBM's reason for a value outside).
_MQTT_RANGES = {
    C.MQIACH_PORT: (0, 65535, C.MQRCCF_PORT_NUMBER_ERROR),  # 0: a port the system chooses (IBM)
    C.MQIACH_BACKLOG: (0, _MANY, C.MQRCCF_BACKLOG_OUT_OF_RANGE),
    C.MQIACH_USE_CLIENT_ID: (V.MQUCI_NO, V.MQUCI_YES, C.MQRCCF_USE_CLIENT_ID_ERROR),
}


def _validate_mqtt(values: dict) -> None:
    for pid, (low, high, reason) in _MQTT_RANGES.items():
        value = values.get(pid)
        if value is not None and not low <= value <= high:
            raise CommandError(reason, parameter=pid)
    protocols = values.get(C.MQIACH_PROTOCOL)
    # PROTOCOL: one to three of MQTTV311, MQTTV3, HTTP, none twice (MQPROTO_AMQP is an AMQP channel's).
    if protocols is not None and (not protocols or len(set(protocols)) != len(protocols)
                                  or not set(protocols) <= _PROTOCOLS):
        raise CommandError(C.MQRCCF_INVALID_PROTOCOL, parameter=C.MQIACH_PROTOCOL)
    transport = values.get(C.MQIACH_XMIT_PROTOCOL_TYPE)
    if transport is not None and transport != C.MQXPT_TCP:  # TrpType: "The value is: MQXPT_TCP"
        raise CommandError(C.MQRCCF_XMIT_PROTOCOL_TYPE_ERR, parameter=C.MQIACH_XMIT_PROTOCOL_TYPE)


def _validate(values: dict) -> None:
    if values.get(C.MQIACH_CHANNEL_TYPE) == _MQTT:
        _validate_mqtt(values)
    elif values.get(C.MQIACH_SSL_CLIENT_AUTH) == V.MQSCA_NEVER_REQUIRED:
        raise CommandError(C.MQRCCF_SSL_CLIENT_AUTH_ERROR, parameter=C.MQIACH_SSL_CLIENT_AUTH)
    for pid, allowed in _COMPRESSION.items():
        chosen = values.get(pid)
        if chosen is not None and (not chosen or len(chosen) > 5 or not set(chosen) <= allowed):
            raise CommandError(C.MQRCCF_PARM_VALUE_ERROR, parameter=pid)
    # SSLCIPH: blank or one of IBM's CipherSpec names (pcf/cipherspecs.py); SSLPEER: a DN pattern by
    # IBM's SSLPEER rules (pcf/dn.py).  IBM checks both when the value is entered (Multiplatforms).
    # A telemetry channel's SSLCIPH names a Java cipher suite, which the MQXR service's JVM judges
    # when the channel starts, not an MQ CipherSpec (decision TC3).
    cipher = values.get(C.MQCACH_SSL_CIPHER_SPEC)
    if (cipher is not None and cipher.strip() and values.get(C.MQIACH_CHANNEL_TYPE) != _MQTT
            and cipherspecs.lookup(cipher) is None):
        raise CommandError(C.MQRCCF_SSL_CIPHER_SPEC_ERROR, parameter=C.MQCACH_SSL_CIPHER_SPEC)
    peer = values.get(C.MQCACH_SSL_PEER_NAME)
    if peer is not None and peer.strip() and not dn.valid(peer):
        raise CommandError(C.MQRCCF_SSL_PEER_NAME_ERROR, parameter=C.MQCACH_SSL_PEER_NAME)


TABLE = AttrTable([
    attr(C.MQCACH_CHANNEL_NAME, STR, "name", pad=NAME_LENGTH, always=True),
    attr(C.MQIACH_CHANNEL_TYPE, INT, "channel_type", always=True),
    *attrs(SPECS),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda c: mq_date(c.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda c: mq_time(c.altered), pad=C.MQ_TIME_LENGTH),
])
TYPED = TypedTable(TABLE, SPECS, lambda c: c.channel_type)

KIND = DefinitionKind(
    model=M.Channel,
    name_param=C.MQCACH_CHANNEL_NAME,
    from_param=C.MQCACF_FROM_CHANNEL_NAME,
    to_param=C.MQCACF_TO_CHANNEL_NAME,
    attrs_param=C.MQIACF_CHANNEL_ATTRS,
    names_param=C.MQCACH_CHANNEL_NAMES,
    name_length=NAME_LENGTH,
    registry_dict="",
    put_method="",
    remove_method="",
    default_name="",  # per type: channels.DEFAULT_OF
    definition=((_P_TYPE, "channel_type"),) + definition(SPECS),
    table=TABLE,
    commands=CommandIds(C.MQCMD_CREATE_CHANNEL, C.MQCMD_COPY_CHANNEL, C.MQCMD_CHANGE_CHANNEL,
                        C.MQCMD_DELETE_CHANNEL, C.MQCMD_INQUIRE_CHANNEL, C.MQCMD_INQUIRE_CHANNEL_NAMES),
    validate=_validate,
    generic=M.KIND,
)
FIELDS = KIND.fields
_DEFAULT_NAMES = frozenset(M.DEFAULT_OF.values())


# ---- Create, Copy, Change ------------------------------------------------------------------------
def _complete(ch: M.Channel) -> M.Channel:
    """What a channel of its type cannot do without, from the command or the default channel.  The
    SYSTEM.DEF.* channels themselves are blank there (as IBM's are), so a DEFINE ... REPLACE restoring
    one as it is (dmpmqcfg's dump replayed, registry/mqsc/dump.py) is not refused for it."""
    own_default = ch.name in _DEFAULT_NAMES
    if ch.channel_type in (_SDR, _SVR) and not ch.xmit_q_name and not own_default:
        raise CommandError(C.MQRCCF_XMIT_Q_NAME_ERROR, parameter=C.MQCACH_XMIT_Q_NAME)
    if ch.channel_type in (_SDR, _RQSTR, _CLNT, _CSDR) and not ch.conn_name and not own_default:
        raise CommandError(C.MQRCCF_MISSING_CONN_NAME, parameter=C.MQCACH_CONNECTION_NAME)
    if ch.channel_type in _CLUSTER:
        # A cluster channel is in the clusters CLUSTER or CLUSNL names, never both.
        if ch.cluster_name and ch.cluster_namelist:
            raise CommandError(C.MQRCCF_CLUSTER_NAME_CONFLICT, parameter=C.MQCA_CLUSTER_NAME)
        for pid, value in ((C.MQCA_CLUSTER_NAME, ch.cluster_name), (C.MQCA_CLUSTER_NAMELIST, ch.cluster_namelist)):
            if value:
                check_name(value, pid)
    return ch


SUBTYPED = Subtyped(KIND, SPECS, C.MQIACH_CHANNEL_TYPE, "channel_type", M.TYPES, M.DEFAULT_OF, M.new,
                    invalid=C.MQRCCF_CHANNEL_TYPE_ERROR, mismatch=C.MQRCCF_CHANNEL_TYPE_ERROR,
                    wrong_type=C.MQRCCF_WRONG_CHANNEL_TYPE, complete=_complete)


def create_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    return typed.create(SUBTYPED, ctx, request)


def copy_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    return typed.copy(SUBTYPED, ctx, request)


def change_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    return typed.change(SUBTYPED, ctx, request)


def _running(reg, name: str) -> bool:
    return bool(reg.running.instances_of(name))


def delete_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, KIND.delete_params + (_P_TABLE, _P_TYPE)).values
    name = object_name(values, KIND.name_param)
    reg = ctx.registry
    existing = definitions._existing(KIND, reg, name)
    # DELETE CHANNEL(...) CHLTYPE(MQTT): a type given must be the channel's.
    if values.get(C.MQIACH_CHANNEL_TYPE, existing.channel_type) != existing.channel_type:
        raise CommandError(C.MQRCCF_CHANNEL_TYPE_ERROR, parameter=C.MQIACH_CHANNEL_TYPE)
    telemetry = getattr(ctx.qm, "telemetry", None)
    if _running(reg, name) or (telemetry is not None and telemetry.is_running(name)):
        raise CommandError(C.MQRCCF_CHANNEL_IN_USE)
    KIND.remove(reg, existing)
    if telemetry is not None:
        telemetry.forget(name)
    definitions.forget_authority(KIND, reg, name, values)
    return R.ok(ctx.command)


_SELECT_TYPE = p_int(C.MQIACH_CHANNEL_TYPE, C.MQCHT_ALL, *M.TYPES)


def _selected(values: dict, objects: list) -> list:
    """The channels of the type asked for.  MQCHT_ALL means the MQ channels: a telemetry channel is
    shown only when ChannelType MQCHT_MQTT asks for it, as IBM's DISPLAY CHANNEL (MQTT) is a command
    of its own (decision TC2)."""
    wanted = values.get(C.MQIACH_CHANNEL_TYPE, C.MQCHT_ALL)
    if wanted == C.MQCHT_ALL:
        return [o for o in objects if o.channel_type != _MQTT]
    return [o for o in objects if o.channel_type == wanted]


def inquire_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    parsed = parse(request, KIND.inquire_params + (_SELECT_TYPE,), filters=TABLE.filter_kinds())
    values, flt = parsed.values, parsed.filter
    selected = TABLE.select(values.get(KIND.attrs_param))  # type: ignore[arg-type]
    found = _selected(values, matching(KIND.objects(ctx.registry), values, KIND.name_param))
    # A filter on an attribute a channel's type does not have never matches that channel.
    rows = [TYPED.render(ch, selected) for ch in found
            if flt is None or (TYPED.has(ch, flt.parameter) and filter_matches(flt, TABLE.value(ch, flt.parameter)))]
    return R.data(ctx.command, rows, none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def inquire_channel_names(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, KIND.inquire_names_params + (_SELECT_TYPE, _P_TABLE)).values
    found = _selected(values, matching(KIND.objects(ctx.registry), values, KIND.name_param))
    names = tuple(ch.name.ljust(NAME_LENGTH) for ch in found)
    return R.data(ctx.command, [[P.CFSL(KIND.names_param, names, R.QMGR_CCSID)]],
                  none_found=C.MQRC_UNKNOWN_OBJECT_NAME)


def register(engine) -> None:
    if M.KIND not in engine.registry.definitions:
        raise TypeError("channels are not a generic kind here (registry/objects/generic.py MODULES)")
    for command, handler in ((C.MQCMD_CREATE_CHANNEL, create_channel), (C.MQCMD_COPY_CHANNEL, copy_channel),
                             (C.MQCMD_CHANGE_CHANNEL, change_channel), (C.MQCMD_DELETE_CHANNEL, delete_channel),
                             (C.MQCMD_INQUIRE_CHANNEL, inquire_channel),
                             (C.MQCMD_INQUIRE_CHANNEL_NAMES, inquire_channel_names)):
        engine.register(command, handler)
