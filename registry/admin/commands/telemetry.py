"""Telemetry (MQTT) channels at run time: Inquire Channel Status, Start, Stop and Purge Channel for a
channel of type MQCHT_MQTT, and Start/Stop Service for SYSTEM.MQXR.SERVICE (IBM, "Inquire Channel
Status (MQTT)", "Start Channel (MQTT)", "Stop Channel (MQTT)", "Purge Channel"; docs/mqtt.md
"Administration").

The commands for MQ channels (channel_status.py) and services (endpoints.py) hand a telemetry
channel or the MQXR service here; what runs is the queue manager's ``telemetry``
(registry/telemetry/service.py), so PCF, MQSC and REST reach one state.

Inquire Channel Status answers, as IBM's MQXR service does, in one of two shapes: without a
ClientIdentifier, one summary per channel (its status and how many clients are connected); with one
(generic names allowed), one response per client session, connected or not.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.objects import channels as M
from qmlite.registry.admin import responses as R
from qmlite.registry.admin.attributes import AttrTable, attr
from qmlite.registry.objects.definitions import mq_date, mq_time
from qmlite.registry.admin.params import (INT, STR, CommandError, filter_matches, generic_match, p_int, p_int_list,
                                          p_str, parse)
from qmlite.registry.admin.commands.channels import NAME_LENGTH
from qmlite.registry.admin.commands.definitions import matching, object_name
from qmlite.registry.telemetry.service import SERVICE_NAME, TelemetryError, TelemetryService

CLIENT_ID_LENGTH = C.MQ_CLIENT_ID_LENGTH  # 23: IBM, "a 23-byte string that identifies an MQTT client"
_MCA_USER = 64
_DATE, _TIME = C.MQ_CHANNEL_DATE_LENGTH, C.MQ_CHANNEL_TIME_LENGTH


def service(ctx) -> TelemetryService:
    """The queue manager's telemetry service; a bare engine (no queue manager) has none running."""
    if ctx.qm is None:
        raise CommandError(C.MQRCCF_CHL_SYSTEM_NOT_ACTIVE)
    return ctx.qm.telemetry


def _run(call, *args) -> None:
    try:
        call(*args)
    except TelemetryError as err:
        raise CommandError(err.reason, parameter=err.parameter) from None


def is_mqtt(request: P.PCFMessage) -> bool:
    """Whether a channel command names ChannelType MQCHT_MQTT (a telemetry channel's form of it)."""
    return any(isinstance(p, P.CFIN) and p.parameter == C.MQIACH_CHANNEL_TYPE and p.value == C.MQCHT_MQTT
               for p in request.parameters)


# ---- Inquire Channel Status ----------------------------------------------------------------------
class _Summary:
    def __init__(self, channel: M.Channel, svc: TelemetryService) -> None:
        self.channel = channel
        run = svc.runs.get(channel.name)
        self.status = run.status if run is not None else C.MQCHS_STOPPED
        self.connections = sum(1 for s in svc.sessions.list() if s.channel == channel.name and s.connected)


SUMMARY = AttrTable([
    attr(C.MQCACH_CHANNEL_NAME, STR, lambda r: r.channel.name, pad=NAME_LENGTH, always=True),
    attr(C.MQIACH_CHANNEL_STATUS, INT, lambda r: r.status, always=True),
    attr(C.MQIACH_CHANNEL_TYPE, INT, lambda r: C.MQCHT_MQTT, always=True),
    attr(C.MQIACF_CONNECTION_COUNT, INT, lambda r: r.connections, always=True),
])


def _last(fmt):
    return lambda s: fmt(s.last_msg) if s.last_msg else ""


DETAIL = AttrTable([
    attr(C.MQCACH_CHANNEL_NAME, STR, "channel", pad=NAME_LENGTH, always=True),
    attr(C.MQIACH_CHANNEL_STATUS, INT, "status", always=True),
    attr(C.MQIACH_CHANNEL_TYPE, INT, lambda s: C.MQCHT_MQTT, always=True),
    attr(C.MQCACH_CLIENT_ID, STR, "client_id", always=True),
    attr(C.MQCACH_CHANNEL_START_DATE, STR, lambda s: mq_date(s.started) if s.started else "", pad=_DATE),
    attr(C.MQCACH_CHANNEL_START_TIME, STR, lambda s: mq_time(s.started) if s.started else "", pad=_TIME),
    attr(C.MQCACH_CLIENT_USER_ID, STR, "client_user"),
    attr(C.MQCACH_CONNECTION_NAME, STR, "conn_name", pad=C.MQ_CONN_NAME_LENGTH),
    attr(C.MQIACH_IN_DOUBT_IN, INT, "in_doubt_in"),
    attr(C.MQIACH_IN_DOUBT_OUT, INT, "in_doubt_out"),
    attr(C.MQIACH_MQTT_KEEP_ALIVE, INT, "keep_alive"),
    attr(C.MQCACH_LAST_MSG_DATE, STR, _last(mq_date), pad=_DATE),
    attr(C.MQCACH_LAST_MSG_TIME, STR, _last(mq_time), pad=_TIME),
    attr(C.MQIACH_MCA_STATUS, INT, lambda s: C.MQMCAS_RUNNING if s.connected else C.MQMCAS_STOPPED),
    attr(C.MQCACH_MCA_USER_ID, STR, "mca_user", pad=_MCA_USER),
    attr(C.MQIACH_MSGS_RCVD, INT, "msgs_received"),
    attr(C.MQIACH_MSGS_SENT, INT, "msgs_sent"),
    attr(C.MQIACH_PENDING_OUT, INT, "pending_out"),
    attr(C.MQIACH_PROTOCOL, INT, "protocol_id"),
])

_INQUIRE = (p_str(C.MQCACH_CHANNEL_NAME, NAME_LENGTH), p_int(C.MQIACH_CHANNEL_TYPE, C.MQCHT_MQTT),
            p_str(C.MQCACH_CLIENT_ID, CLIENT_ID_LENGTH), p_int_list(C.MQIACH_CHANNEL_INSTANCE_ATTRS),
            p_int(C.MQIACH_CHANNEL_INSTANCE_TYPE, C.MQOT_CURRENT_CHANNEL))


def _requested(values: dict) -> list[int] | None:
    wanted = values.get(C.MQIACH_CHANNEL_INSTANCE_ATTRS)
    if wanted is None:
        return None
    # KAINT in MQSC names MQIACH_KEEP_ALIVE_INTERVAL; a telemetry client's is MQIACH_MQTT_KEEP_ALIVE.
    return [C.MQIACH_MQTT_KEEP_ALIVE if a == C.MQIACH_KEEP_ALIVE_INTERVAL else a
            for a in wanted]  # type: ignore[union-attr]


def inquire_status(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    svc = service(ctx)
    parsed = parse(request, _INQUIRE, filters={**SUMMARY.filter_kinds(), **DETAIL.filter_kinds()})
    values, flt = parsed.values, parsed.filter
    channels = [ch for ch in matching(ctx.registry.objects(M.KIND), values, C.MQCACH_CHANNEL_NAME)
                if ch.channel_type == M.MQTT]
    if not svc.running:  # the MQXR service answers these commands
        raise CommandError(C.MQRCCF_CHL_SYSTEM_NOT_ACTIVE)
    client_id = values.get(C.MQCACH_CLIENT_ID)
    if not client_id:
        table, rows = SUMMARY, [_Summary(ch, svc) for ch in channels]
    else:
        names = {ch.name for ch in channels}
        rows = [s for s in svc.sessions.list() if s.channel in names and generic_match(client_id, s.client_id)]
        rows.sort(key=lambda s: (s.channel, s.client_id))
        table = DETAIL
    if flt is not None:
        if flt.parameter not in table.by_id:
            raise CommandError(C.MQRCCF_CFIN_PARM_ID_ERROR if flt.kind == INT else C.MQRCCF_CFST_PARM_ID_ERROR,
                               parameter=flt.parameter)
        rows = [r for r in rows if filter_matches(flt, table.value(r, flt.parameter))]
    selected = table.select(_requested(values))
    return R.data(ctx.command, [table.render(r, selected) for r in rows], none_found=C.MQRCCF_CHL_STATUS_NOT_FOUND)


# ---- Start, Stop, Purge Channel ------------------------------------------------------------------
_CONTROL = (p_str(C.MQCACH_CHANNEL_NAME, NAME_LENGTH), p_int(C.MQIACH_CHANNEL_TYPE, C.MQCHT_MQTT),
            p_str(C.MQCACH_CLIENT_ID, CLIENT_ID_LENGTH))


def _channel(ctx, values: dict) -> M.Channel:
    channel = ctx.registry.objects(M.KIND).get(object_name(values, C.MQCACH_CHANNEL_NAME))
    if channel is None:
        raise CommandError(C.MQRCCF_CHANNEL_NOT_FOUND, parameter=C.MQCACH_CHANNEL_NAME)
    if channel.channel_type != M.MQTT:  # ChannelType MQTT names a telemetry channel
        raise CommandError(C.MQRCCF_CHANNEL_TYPE_ERROR, parameter=C.MQIACH_CHANNEL_TYPE)
    return channel


def start_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CONTROL[:2]).values
    channel = _channel(ctx, values)
    _run(service(ctx).start_channel, channel)
    return R.ok(ctx.command)


def stop_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CONTROL).values
    channel = _channel(ctx, values)
    _run(service(ctx).stop_channel, channel.name, values.get(C.MQCACH_CLIENT_ID, ""))
    return R.ok(ctx.command)


def purge_channel(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
    values = parse(request, _CONTROL).values
    if values.get(C.MQIACH_CHANNEL_TYPE) != C.MQCHT_MQTT:  # IBM: required to purge an MQTT channel
        raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQIACH_CHANNEL_TYPE)
    channel = _channel(ctx, values)
    _run(service(ctx).purge_channel, channel.name, values.get(C.MQCACH_CLIENT_ID, ""))
    return R.ok(ctx.command)


# ---- SYSTEM.MQXR.SERVICE -------------------------------------------------------------------------
def start_service(ctx) -> list[P.PCFMessage]:
    _run(service(ctx).start)
    return R.ok(ctx.command)


def stop_service(ctx, ignore_state: bool) -> list[P.PCFMessage]:
    svc = service(ctx)
    if not svc.running and ignore_state:
        return R.ok(ctx.command)
    _run(svc.stop)
    return R.ok(ctx.command)


def register(engine) -> None:
    engine.register(C.MQCMD_PURGE_CHANNEL, purge_channel)

