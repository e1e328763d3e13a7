"""Channel definitions (a generic kind, registry/objects/generic.py): the model, which attributes each channel
type has, and the SYSTEM.DEF.* / DEV.* channels a queue manager starts with.

One dataclass holds every channel type's attributes, with IBM's default values (DISPLAY CHANNEL of
the SYSTEM.DEF.* channels on a new Linux queue manager).  Which of them a channel of a given type has
is ``ATTRIBUTES_OF`` (IBM, "Change, Copy, and Create Channel" per parameter: "This parameter is valid
only for channels with a ChannelType of ..."); the commands refuse the others
(MQRCCF_WRONG_CHANNEL_TYPE) and Inquire Channel reports only those.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

from qmlite.registry.objects import values as V
from qmlite.registry.objects import generic

KIND = "channel"

SDR, SVR, RCVR, RQSTR = C.MQCHT_SENDER, C.MQCHT_SERVER, C.MQCHT_RECEIVER, C.MQCHT_REQUESTER
CLNTCONN, SVRCONN, CLUSRCVR, CLUSSDR = C.MQCHT_CLNTCONN, C.MQCHT_SVRCONN, C.MQCHT_CLUSRCVR, C.MQCHT_CLUSSDR
MQTT = C.MQCHT_MQTT
# The types a Multiplatforms queue manager defines through these commands: the MQ channels, and the
# telemetry (MQTT) channels its MQXR service runs (IBM, "Change, Copy, and Create Channel (MQTT)";
# docs/mqtt.md "Administration").  AMQP channels belong to the AMQP service, which qmlite does not
# run (docs/compat.md Part 5).
MQ_TYPES = (SDR, SVR, RCVR, RQSTR, CLNTCONN, SVRCONN, CLUSRCVR, CLUSSDR)
TYPES = MQ_TYPES + (MQTT,)
MESSAGE = frozenset({SDR, SVR, RCVR, RQSTR, CLUSSDR, CLUSRCVR})  # message channels
# the sending end of a message channel (and CLUSRCVR, which defines it)
SENDING = frozenset({SDR, SVR, CLUSSDR, CLUSRCVR})
# Whom an incoming message channel's ID may name: a sender's or server's, a receiving channel; a
# requester's, the channel that is to send to it (a SVR, or a SDR that calls back: decision MCS2).
RECEIVING = (RCVR, RQSTR, CLUSRCVR)
ANSWERING = (SVR, SDR)
MQ_CHANNELS = frozenset(MQ_TYPES)  # what an MQ (not a telemetry) channel has: DESCR, exits, HBINT ...
ALL = frozenset(TYPES)
# A telemetry channel's PROTOCOL when none is given: all three (IBM's DEFINE CHANNEL (MQTT)).
MQTT_PROTOCOLS = (V.MQPROTO_MQTTV311, V.MQPROTO_MQTTV3, V.MQPROTO_HTTP)
MQTT_PORT = 1883  # IBM's default port for a telemetry channel (8883 when secured by TLS, by convention)

# The SYSTEM.DEF.* channel a new channel of each type starts from.
DEFAULT_OF = {SDR: "SYSTEM.DEF.SENDER", SVR: "SYSTEM.DEF.SERVER", RCVR: "SYSTEM.DEF.RECEIVER",
              RQSTR: "SYSTEM.DEF.REQUESTER", CLNTCONN: "SYSTEM.DEF.CLNTCONN", SVRCONN: "SYSTEM.DEF.SVRCONN",
              CLUSRCVR: "SYSTEM.DEF.CLUSRCVR", CLUSSDR: "SYSTEM.DEF.CLUSSDR"}
ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
APP_CHANNEL = "DEV.APP.SVRCONN"
APP_USER = "app"
# The developer objects' telemetry channel, made when the server is asked for an MQTT port
# (qmlite serve --mqtt-port; registry/telemetry/service.py ensure_developer_channel, decision TC10).
MQTT_CHANNEL = "DEV.MQTT"


@dataclasses.dataclass(slots=True)
class Channel:
    name: str
    channel_type: int = SDR
    description: str = ""
    transport_type: int = C.MQXPT_TCP
    mode_name: str = ""
    tp_name: str = ""
    qmgr_name: str = ""
    xmit_q_name: str = ""
    conn_name: str = ""
    mca_name: str = ""
    batch_size: int = 50
    disc_interval: int = 6000
    short_retry_count: int = 10
    short_retry_interval: int = 60
    long_retry_count: int = 999_999_999
    long_retry_interval: int = 1200
    security_exit: str = ""
    security_user_data: str = ""
    msg_exits: tuple[str, ...] = ()
    msg_exit_user_data: tuple[str, ...] = ()
    send_exits: tuple[str, ...] = ()
    send_exit_user_data: tuple[str, ...] = ()
    receive_exits: tuple[str, ...] = ()
    receive_exit_user_data: tuple[str, ...] = ()
    put_authority: int = V.MQPA_DEFAULT
    seq_number_wrap: int = 999_999_999
    max_msg_length: int = 4_194_304
    mca_type: int = V.MQMCAT_THREAD
    mca_user: str = ""
    user_id: str = ""
    password: str = ""
    msg_retry_exit: str = ""
    msg_retry_user_data: str = ""
    msg_retry_count: int = 10
    msg_retry_interval: int = 1000
    heartbeat_interval: int = 300
    batch_interval: int = 0
    npm_speed: int = C.MQNPMS_FAST
    keep_alive_interval: int = V.MQKAI_AUTO
    local_address: str = ""
    batch_heartbeat: int = 0
    ssl_cipher_spec: str = ""
    ssl_peer_name: str = ""
    ssl_client_auth: int = V.MQSCA_REQUIRED
    data_conversion: int = V.MQCDC_NO_SENDER_CONVERSION
    cluster_name: str = ""
    cluster_namelist: str = ""
    network_priority: int = 0
    clwl_rank: int = 0
    clwl_priority: int = 0
    clwl_weight: int = 50
    header_compression: tuple[int, ...] = (V.MQCOMPRESS_NONE,)
    message_compression: tuple[int, ...] = (V.MQCOMPRESS_NONE,)
    sharing_conversations: int = 10
    max_instances: int = 999_999_999
    max_instances_per_client: int = 999_999_999
    client_weight: int = 0
    connection_affinity: int = C.MQCAFTY_PREFERRED
    property_control: int = C.MQPROP_COMPATIBILITY
    monitoring: int = C.MQMON_Q_MGR
    statistics: int = C.MQMON_Q_MGR
    def_reconnect: int = V.MQRCN_NO
    batch_data_limit: int = 5000
    use_dlq: int = C.MQUSEDLQ_YES
    cert_label: str = ""
    # Telemetry (MQTT) channels only (IBM, DEFINE CHANNEL (MQTT)); defaults as IBM's syntax diagram.
    port: int = MQTT_PORT
    backlog: int = 4096
    jaas_config: str = ""
    protocols: tuple[int, ...] = MQTT_PROTOCOLS
    ssl_key_repository: str = ""
    ssl_key_passphrase: str = ""
    use_client_id: int = V.MQUCI_NO
    created: float = 0.0
    altered: float = 0.0


def new(name: str, channel_type: int, **fields) -> Channel:
    """A channel of ``channel_type`` with IBM's defaults for that type: they differ only in that a
    server-connection channel never disconnects an idle client on its own (DISCINT 0)."""
    if channel_type == SVRCONN:
        fields.setdefault("disc_interval", 0)
    return dataclasses.replace(Channel(name, channel_type), **fields)


def default_channels(dev: bool) -> list[Channel]:
    out = [new(name, chltype) for chltype, name in DEFAULT_OF.items()]
    out += [
        # IBM creates SYSTEM.AUTO.* at queue-manager creation: the templates channel auto-definition
        # (CHAD, off by default) uses.  SYSTEM.ADMIN.SVRCONN is the channel MQ Explorer connects on.
        new("SYSTEM.AUTO.RECEIVER", RCVR, description="Auto-defined by"),
        new("SYSTEM.AUTO.SVRCONN", SVRCONN, description="Auto-defined by"),
        new("SYSTEM.ADMIN.SVRCONN", SVRCONN, description="Remote administration channel"),
    ]
    if dev:
        out += [new(ADMIN_CHANNEL, SVRCONN), new(APP_CHANNEL, SVRCONN, mca_user=APP_USER)]
    return out


generic.register(generic.GenericKind(KIND, Channel, default_channels))
