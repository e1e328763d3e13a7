"""Telemetry (MQTT) channels through PCF: Create/Copy/Change/Delete/Inquire Channel with ChannelType
MQCHT_MQTT and IBM's attribute list (a sweep: non-defaults defined, inquired, the queue manager
reopened, inquired again), the reasons for bad input, and at run time Start/Stop Channel,
Inquire Channel Status (summary and per client), Purge Channel and SYSTEM.MQXR.SERVICE against a
fake transport and a fake session list (registry/telemetry/)."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.admin.commands import channels as channelcmds
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import values as V
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.telemetry.service import SERVICE_NAME
from qmlite.registry.telemetry.telemetrysessions import Session
from tests.support.faketelemetry import FakeIO
from tests.support.pcfkit import LE, Reply, check_response_shape, command, failed, i, il, st

NAME = C.MQCACH_CHANNEL_NAME
TYPE = C.MQIACH_CHANNEL_TYPE
CLIENT = C.MQCACH_CLIENT_ID

# IBM's DISPLAY CHANNEL (MQTT) attributes, each with a value other than its default.
NON_DEFAULTS = {
    C.MQIACH_BACKLOG: 10,
    C.MQCACH_JAAS_CONFIG: "MQXRConfig",
    C.MQCACH_LOCAL_ADDRESS: "127.0.0.1",
    C.MQCACH_MCA_USER_ID: "app",
    C.MQIACH_PORT: 1884,
    C.MQIACH_PROTOCOL: (V.MQPROTO_MQTTV311,),
    C.MQIACH_SSL_CLIENT_AUTH: V.MQSCA_NEVER_REQUIRED,
    C.MQCACH_SSL_CIPHER_SPEC: "SSL_RSA_WITH_AES_128_CBC_SHA256",
    C.MQCACH_SSL_KEY_PASSPHRASE: "secret",
    C.MQCA_SSL_KEY_REPOSITORY: "/var/mqm/keys/mqtt.jks",
    C.MQIACH_USE_CLIENT_ID: V.MQUCI_YES,
}
DEFAULTS = {
    C.MQIACH_BACKLOG: 4096, C.MQCACH_JAAS_CONFIG: "", C.MQCACH_LOCAL_ADDRESS: "", C.MQCACH_MCA_USER_ID: "",
    C.MQIACH_PORT: 1883, C.MQIACH_PROTOCOL: (V.MQPROTO_MQTTV311, V.MQPROTO_MQTTV3, V.MQPROTO_HTTP),
    C.MQIACH_SSL_CLIENT_AUTH: V.MQSCA_REQUIRED, C.MQCACH_SSL_CIPHER_SPEC: "", C.MQCACH_SSL_KEY_PASSPHRASE: "",
    C.MQCA_SSL_KEY_REPOSITORY: "", C.MQIACH_USE_CLIENT_ID: V.MQUCI_NO, C.MQIACH_XMIT_PROTOCOL_TYPE: C.MQXPT_TCP,
}


def param(pid: int, value):
    if isinstance(value, tuple):
        return il(pid, *value)
    return i(pid, value) if isinstance(value, int) else st(pid, value)


def shown(pid: int, value):
    """What Inquire reports for a value defined: a passphrase only as set or not."""
    if pid == C.MQCACH_SSL_KEY_PASSPHRASE:
        return "********" if value else ""
    return value


class QM:
    """A queue manager whose engine runs the commands (the telemetry service lives in it)."""

    def __init__(self, path, clock) -> None:
        self.path, self.clock = path, clock
        self.open()

    def open(self) -> None:
        self.qm = QueueManager.open(self.path, synchronous="NORMAL", clock=self.clock)
        self.io = FakeIO(self.qm.telemetry)

    def reopen(self) -> None:
        self.qm.shutdown()
        self.open()

    def run(self, *args, requester=None, **kwargs) -> Reply:
        request = command(*args, **kwargs)
        decoded_request = P.decode(P.encode(request, LE), LE, 819)
        responses = (self.qm.engine.execute(decoded_request) if requester is None
                     else self.qm.engine.execute(decoded_request, requester))
        decoded = [P.decode(P.encode(r, LE), LE, 819) for r in responses]
        check_response_shape(request.header.Command, decoded)
        return Reply(decoded)

    def start_service(self) -> Reply:
        self.qm.telemetry.attach(self.io)
        return self.run(C.MQCMD_START_SERVICE, st(C.MQCA_SERVICE_NAME, SERVICE_NAME))


@pytest.fixture
def q(tmp_path, clock):
    harness = QM(tmp_path / "qm", clock)
    yield harness
    harness.qm.shutdown()


def create(q, name, *params, chltype=M.MQTT, cmd=C.MQCMD_CREATE_CHANNEL):
    return q.run(cmd, st(NAME, name), i(TYPE, chltype), *params)


def inquire(q, name, *params):
    return q.run(C.MQCMD_INQUIRE_CHANNEL, st(NAME, name), i(TYPE, M.MQTT), *params)


# ---- definitions ---------------------------------------------------------------------------------
def test_a_new_telemetry_channel_has_ibms_defaults_and_only_ibms_mqtt_attributes(q):
    assert create(q, "MQTT.A").ok
    [obj] = inquire(q, "MQTT.A").objects
    assert {k: obj[k] for k in DEFAULTS} == DEFAULTS
    ibm = set(DEFAULTS) | {NAME, TYPE, C.MQCA_ALTERATION_DATE, C.MQCA_ALTERATION_TIME}
    assert set(obj) == ibm  # no DESCR, HBINT, MAXMSGL, exits ... (IBM's DISPLAY CHANNEL (MQTT) list)


def test_sweep_every_attribute_defined_shown_and_shown_again_after_a_restart(q):
    assert create(q, "MQTT.ALL", *(param(pid, v) for pid, v in NON_DEFAULTS.items())).ok
    want = {pid: shown(pid, v) for pid, v in NON_DEFAULTS.items()}
    [obj] = inquire(q, "MQTT.ALL").objects
    assert {pid: obj[pid] for pid in want} == want
    q.reopen()
    [again] = inquire(q, "MQTT.ALL").objects
    assert {pid: again[pid] for pid in want} == want
    assert q.qm.registry.objects(M.KIND)["MQTT.ALL"].ssl_key_passphrase == "secret"  # kept, never shown


def test_change_copy_and_delete_keep_the_type_rule(q):
    assert create(q, "MQTT.A").ok
    assert create(q, "MQTT.A", i(C.MQIACH_PORT, 8883), cmd=C.MQCMD_CHANGE_CHANNEL).ok
    assert failed(create(q, "MQTT.A", chltype=M.SVRCONN, cmd=C.MQCMD_CHANGE_CHANNEL), C.MQRCCF_CHANNEL_TYPE_ERROR, TYPE)
    assert q.run(C.MQCMD_COPY_CHANNEL, st(C.MQCACF_FROM_CHANNEL_NAME, "MQTT.A"),
                 st(C.MQCACF_TO_CHANNEL_NAME, "MQTT.B"), i(TYPE, M.MQTT), i(C.MQIACH_BACKLOG, 5)).ok
    [b] = inquire(q, "MQTT.B").objects
    assert (b[C.MQIACH_PORT], b[C.MQIACH_BACKLOG]) == (8883, 5)
    assert failed(q.run(C.MQCMD_DELETE_CHANNEL, st(NAME, "MQTT.B"), i(TYPE, M.SVRCONN)),
                  C.MQRCCF_CHANNEL_TYPE_ERROR, TYPE)
    assert q.run(C.MQCMD_DELETE_CHANNEL, st(NAME, "MQTT.B"), i(TYPE, M.MQTT)).ok
    assert failed(inquire(q, "MQTT.B"), C.MQRC_UNKNOWN_OBJECT_NAME)


def test_inquire_without_chltype_mqtt_shows_the_mq_channels_only(q):
    assert create(q, "MQTT.A").ok
    names = {o[NAME] for o in q.run(C.MQCMD_INQUIRE_CHANNEL, st(NAME, "*")).objects}
    assert "MQTT.A" not in names and "DEV.APP.SVRCONN" in names
    assert [o[NAME] for o in inquire(q, "*").objects] == ["MQTT.A"]
    reply = q.run(C.MQCMD_INQUIRE_CHANNEL_NAMES, st(NAME, "*"), i(TYPE, M.MQTT))
    assert [n.strip() for n in reply.messages[0].parameters[0].values] == ["MQTT.A"]


def _valid(p):
    """A value the parameter's own checks accept, so that only the channel type can refuse it."""
    if p.kind == "int":
        return i(p.id, min(p.values) if p.values else (p.low if p.low is not None else 0))
    if p.kind == "str":
        return st(p.id, "X")
    if p.kind == "str_list":
        return P.CFSL(p.id, ("X",), 0)
    return il(p.id, V.MQCOMPRESS_NONE)


@pytest.mark.parametrize("spec", [s for s in channelcmds.SPECS if not s.applies(M.MQTT)], ids=lambda s: s.field)
def test_every_mq_channel_attribute_is_the_wrong_channel_type_for_mqtt(q, spec):
    assert failed(create(q, "MQTT.X", _valid(spec.param)), C.MQRCCF_WRONG_CHANNEL_TYPE, spec.param.id)


@pytest.mark.parametrize("spec", [s for s in channelcmds.SPECS if s.types == frozenset({M.MQTT})],
                         ids=lambda s: s.field)
def test_every_mqtt_attribute_is_the_wrong_channel_type_for_a_svrconn(q, spec):
    value = param(spec.param.id, NON_DEFAULTS[spec.param.id])
    assert failed(create(q, "S.X", value, chltype=M.SVRCONN), C.MQRCCF_WRONG_CHANNEL_TYPE, spec.param.id)


@pytest.mark.parametrize("bad, reason, pid", [
    (i(C.MQIACH_PORT, 65536), C.MQRCCF_PORT_NUMBER_ERROR, C.MQIACH_PORT),
    (i(C.MQIACH_PORT, -1), C.MQRCCF_PORT_NUMBER_ERROR, C.MQIACH_PORT),
    (i(C.MQIACH_BACKLOG, -1), C.MQRCCF_BACKLOG_OUT_OF_RANGE, C.MQIACH_BACKLOG),
    (i(C.MQIACH_USE_CLIENT_ID, 2), C.MQRCCF_USE_CLIENT_ID_ERROR, C.MQIACH_USE_CLIENT_ID),
    (il(C.MQIACH_PROTOCOL, V.MQPROTO_AMQP), C.MQRCCF_INVALID_PROTOCOL, C.MQIACH_PROTOCOL),
    (il(C.MQIACH_PROTOCOL, 99), C.MQRCCF_INVALID_PROTOCOL, C.MQIACH_PROTOCOL),
    (il(C.MQIACH_PROTOCOL), C.MQRCCF_INVALID_PROTOCOL, C.MQIACH_PROTOCOL),
    (il(C.MQIACH_PROTOCOL, V.MQPROTO_HTTP, V.MQPROTO_HTTP), C.MQRCCF_INVALID_PROTOCOL, C.MQIACH_PROTOCOL),
    (i(C.MQIACH_XMIT_PROTOCOL_TYPE, C.MQXPT_LU62), C.MQRCCF_XMIT_PROTOCOL_TYPE_ERR, C.MQIACH_XMIT_PROTOCOL_TYPE),
    (i(C.MQIACH_SSL_CLIENT_AUTH, 3), C.MQRCCF_PARM_VALUE_ERROR, C.MQIACH_SSL_CLIENT_AUTH),
    (st(C.MQCACH_JAAS_CONFIG, "x" * (C.MQ_JAAS_CONFIG_LENGTH + 1)), C.MQRCCF_CFST_STRING_LENGTH_ERR,
     C.MQCACH_JAAS_CONFIG),
])
def test_bad_values_get_ibms_reasons(q, bad, reason, pid):
    assert failed(create(q, "MQTT.X", bad), reason, pid)


def test_sslcauth_never_is_a_telemetry_channels_only(q):
    assert failed(create(q, "S.X", i(C.MQIACH_SSL_CLIENT_AUTH, V.MQSCA_NEVER_REQUIRED), chltype=M.SVRCONN),
                  C.MQRCCF_SSL_CLIENT_AUTH_ERROR, C.MQIACH_SSL_CLIENT_AUTH)


# ---- SYSTEM.MQXR.SERVICE, Start and Stop Channel -------------------------------------------------
def test_the_mqxr_service_is_defined_as_ibm_defines_it_and_needs_a_transport(q):
    [svc] = q.run(C.MQCMD_INQUIRE_SERVICE, st(C.MQCA_SERVICE_NAME, SERVICE_NAME)).objects
    assert (svc[C.MQIA_SERVICE_TYPE], svc[C.MQIA_SERVICE_CONTROL]) == (C.MQSVC_TYPE_SERVER, C.MQSVC_CONTROL_Q_MGR)
    assert svc[C.MQCA_SERVICE_START_COMMAND].endswith("/mqxr/bin/runMQXRService.sh")
    # No MQTT transport plugged in (a data directory opened without a server): it cannot run.
    assert failed(q.run(C.MQCMD_START_SERVICE, st(C.MQCA_SERVICE_NAME, SERVICE_NAME)), C.MQRC_FUNCTION_NOT_SUPPORTED)
    assert failed(q.run(C.MQCMD_INQUIRE_SERVICE_STATUS, st(C.MQCA_SERVICE_NAME, SERVICE_NAME)),
                  C.MQRCCF_SERV_STATUS_NOT_FOUND)


def test_the_service_starts_its_channels_and_stops_them_with_it(q):
    assert create(q, "MQTT.A").ok and create(q, "MQTT.B", i(C.MQIACH_PORT, 0)).ok
    assert q.start_service().ok
    assert q.io.started == ["MQTT.A", "MQTT.B"]
    [status] = q.run(C.MQCMD_INQUIRE_SERVICE_STATUS, st(C.MQCA_SERVICE_NAME, SERVICE_NAME)).objects
    assert status[C.MQIACF_SERVICE_STATUS] == C.MQSVC_STATUS_RUNNING
    assert failed(q.start_service(), C.MQRCCF_SERVICE_RUNNING)
    assert q.qm.telemetry.runs["MQTT.B"].port == 40000  # PORT(0): the port the transport was given
    assert q.run(C.MQCMD_STOP_SERVICE, st(C.MQCA_SERVICE_NAME, SERVICE_NAME)).ok
    assert sorted(q.io.stopped) == ["MQTT.A", "MQTT.B"]
    assert failed(q.run(C.MQCMD_STOP_SERVICE, st(C.MQCA_SERVICE_NAME, SERVICE_NAME)), C.MQRCCF_SERVICE_STOPPED)
    assert q.run(C.MQCMD_STOP_SERVICE, st(C.MQCA_SERVICE_NAME, SERVICE_NAME), i(C.MQIACF_IGNORE_STATE, C.MQIS_YES)).ok


def summary(q, name="*"):
    return q.run(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(NAME, name), i(TYPE, M.MQTT))


def test_start_and_stop_channel_and_a_stopped_channel_stays_stopped_across_the_service(q):
    assert create(q, "MQTT.A").ok
    assert failed(q.run(C.MQCMD_START_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT)), C.MQRCCF_CHL_SYSTEM_NOT_ACTIVE)
    assert q.start_service().ok
    assert failed(q.run(C.MQCMD_START_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT)), C.MQRCCF_CHANNEL_IN_USE)
    assert q.run(C.MQCMD_STOP_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT)).ok
    assert q.io.stopped == ["MQTT.A"]
    [row] = summary(q).objects
    assert (row[C.MQIACH_CHANNEL_STATUS], row[C.MQIACF_CONNECTION_COUNT]) == (C.MQCHS_STOPPED, 0)
    assert failed(q.run(C.MQCMD_STOP_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT)), C.MQRCCF_CHANNEL_NOT_ACTIVE)
    # IBM: "Any channels in STOPPED state need to be started manually".
    assert q.run(C.MQCMD_STOP_SERVICE, st(C.MQCA_SERVICE_NAME, SERVICE_NAME)).ok
    q.io.started.clear()
    assert q.start_service().ok and q.io.started == []
    assert q.run(C.MQCMD_START_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT)).ok
    assert q.io.started == ["MQTT.A"]
    [row] = summary(q).objects
    assert row[C.MQIACH_CHANNEL_STATUS] == C.MQCHS_RUNNING
    # A running telemetry channel cannot be deleted.
    assert failed(q.run(C.MQCMD_DELETE_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT)), C.MQRCCF_CHANNEL_IN_USE)


def test_a_port_the_transport_cannot_listen_on_leaves_the_channel_stopped(q):
    assert create(q, "MQTT.A").ok
    q.io.taken.add(1883)
    assert q.start_service().ok
    [row] = summary(q).objects
    assert row[C.MQIACH_CHANNEL_STATUS] == C.MQCHS_STOPPED
    assert q.qm.telemetry.runs["MQTT.A"].failure == "port 1883 in use"
    q.io.taken.clear()
    assert q.run(C.MQCMD_START_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT)).ok  # tried again
    assert summary(q).objects[0][C.MQIACH_CHANNEL_STATUS] == C.MQCHS_RUNNING


def test_start_channel_mqtt_names_a_telemetry_channel(q):
    assert q.start_service().ok
    assert failed(q.run(C.MQCMD_START_CHANNEL, st(NAME, "DEV.APP.SVRCONN"), i(TYPE, M.MQTT)),
                  C.MQRCCF_CHANNEL_TYPE_ERROR, TYPE)
    assert failed(q.run(C.MQCMD_START_CHANNEL, st(NAME, "NO.SUCH"), i(TYPE, M.MQTT)),
                  C.MQRCCF_CHANNEL_NOT_FOUND, NAME)


# ---- Inquire Channel Status, Purge Channel -------------------------------------------------------
def _sessions(q, clock):
    closed: list[str] = []
    sessions = q.qm.telemetry.sessions
    for cid, channel, connected in (("sensor1", "MQTT.A", True), ("sensor2", "MQTT.A", True),
                                    ("away", "MQTT.A", False), ("other", "MQTT.B", True)):
        sessions.add(Session(cid, channel, conn_name="127.0.0.1(50000)", connected=connected,
                                   protocol="MQTTV311", keep_alive=60, client_user="app",
                                   mca_user="app", msgs_sent=3, msgs_received=5, last_msg=clock.t,
                                   started=clock.t, pending_out=1,
                                   on_close=lambda cid=cid: closed.append(cid)))
    return closed


def test_chstatus_summary_counts_connected_clients_per_channel(q, clock):
    assert create(q, "MQTT.A").ok and create(q, "MQTT.B", i(C.MQIACH_PORT, 1884)).ok
    assert failed(summary(q), C.MQRCCF_CHL_SYSTEM_NOT_ACTIVE)
    assert q.start_service().ok
    _sessions(q, clock)
    rows = {r[NAME]: r for r in summary(q).objects}
    assert {n: r[C.MQIACF_CONNECTION_COUNT] for n, r in rows.items()} == {"MQTT.A": 2, "MQTT.B": 1}
    assert set(rows["MQTT.A"]) == {NAME, TYPE, C.MQIACH_CHANNEL_STATUS, C.MQIACF_CONNECTION_COUNT}
    assert failed(summary(q, "NO.SUCH*"), C.MQRCCF_CHL_STATUS_NOT_FOUND)


def test_chstatus_clientid_answers_one_response_per_client_with_ibms_fields(q, clock):
    assert create(q, "MQTT.A").ok and create(q, "MQTT.B", i(C.MQIACH_PORT, 1884)).ok
    assert q.start_service().ok
    _sessions(q, clock)
    reply = q.run(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(NAME, "MQTT.A"), i(TYPE, M.MQTT), st(CLIENT, "*"),
                  il(C.MQIACH_CHANNEL_INSTANCE_ATTRS, C.MQIACH_CHANNEL_STATUS))
    assert [(o[CLIENT], o[C.MQIACH_CHANNEL_STATUS]) for o in reply.objects] == [
        ("away", C.MQCHS_DISCONNECTED), ("sensor1", C.MQCHS_RUNNING), ("sensor2", C.MQCHS_RUNNING)]
    assert set(reply.objects[0]) == {NAME, TYPE, C.MQIACH_CHANNEL_STATUS, CLIENT}  # IBM's "always returned"
    reply = q.run(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(NAME, "*"), i(TYPE, M.MQTT), st(CLIENT, "sensor1"),
                  il(C.MQIACH_CHANNEL_INSTANCE_ATTRS, C.MQIACF_ALL))
    [one] = reply.objects
    assert (one[C.MQCACH_CLIENT_USER_ID], one[C.MQIACH_MQTT_KEEP_ALIVE], one[C.MQIACH_MSGS_SENT],
            one[C.MQIACH_MSGS_RCVD], one[C.MQIACH_PENDING_OUT], one[C.MQIACH_PROTOCOL],
            one[C.MQCACH_CONNECTION_NAME]) == ("app", 60, 3, 5, 1, V.MQPROTO_MQTTV311, "127.0.0.1(50000)")
    assert one[C.MQCACH_LAST_MSG_DATE] and one[C.MQCACH_CHANNEL_START_TIME]
    # KAINT asked for by MQSC's parameter is the client's keep-alive.
    reply = q.run(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(NAME, "*"), i(TYPE, M.MQTT), st(CLIENT, "sensor1"),
                  il(C.MQIACH_CHANNEL_INSTANCE_ATTRS, C.MQIACH_KEEP_ALIVE_INTERVAL))
    assert reply.objects[0][C.MQIACH_MQTT_KEEP_ALIVE] == 60
    where = P.CFIF(C.MQIACH_CHANNEL_STATUS, C.MQCFOP_EQUAL, C.MQCHS_DISCONNECTED)
    reply = q.run(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(NAME, "*"), i(TYPE, M.MQTT), st(CLIENT, "*"), where)
    assert [o[CLIENT] for o in reply.objects] == ["away"]
    assert failed(q.run(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(NAME, "*"), i(TYPE, M.MQTT), st(CLIENT, "nobody")),
                  C.MQRCCF_CHL_STATUS_NOT_FOUND)
    assert failed(q.run(C.MQCMD_INQUIRE_CHANNEL_STATUS, st(NAME, "*"), i(TYPE, M.MQTT), st(CLIENT, "x" * 24)),
                  C.MQRCCF_CFST_STRING_LENGTH_ERR, CLIENT)


def test_stop_channel_clientid_disconnects_one_client_and_keeps_its_state(q, clock):
    assert create(q, "MQTT.A").ok
    assert q.start_service().ok
    closed = _sessions(q, clock)
    assert q.run(C.MQCMD_STOP_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT), st(CLIENT, "sensor1")).ok
    assert closed == ["sensor1"] and q.qm.telemetry.sessions.get("sensor1") is not None
    assert q.qm.telemetry.is_running("MQTT.A")
    assert failed(q.run(C.MQCMD_STOP_CHANNEL, st(NAME, "MQTT.A"), i(TYPE, M.MQTT), st(CLIENT, "other")),
                  C.MQRCCF_CLIENT_ID_NOT_FOUND, CLIENT)  # its session is on another channel


def test_purge_channel_clientid_forgets_one_client_and_purge_channel_all_of_them(q, clock):
    assert create(q, "MQTT.A").ok and create(q, "MQTT.B", i(C.MQIACH_PORT, 1884)).ok
    assert q.start_service().ok
    closed = _sessions(q, clock)
    purged: list[str] = []
    q.qm.telemetry.sessions.on_purge = lambda s: purged.append(s.client_id)
    purge = C.MQCMD_PURGE_CHANNEL
    assert q.run(purge, st(NAME, "MQTT.A"), i(TYPE, M.MQTT), st(CLIENT, "sensor2")).ok
    assert (closed, purged) == (["sensor2"], ["sensor2"])
    assert q.qm.telemetry.sessions.get("sensor2") is None and q.qm.telemetry.is_running("MQTT.A")
    assert failed(q.run(purge, st(NAME, "MQTT.A"), i(TYPE, M.MQTT), st(CLIENT, "sensor2")),
                  C.MQRCCF_CLIENT_ID_NOT_FOUND, CLIENT)
    assert q.run(purge, st(NAME, "MQTT.A"), i(TYPE, M.MQTT)).ok  # every client, and the channel stops
    assert sorted(purged) == ["away", "sensor1", "sensor2"] and "away" not in closed  # not connected
    assert [s.client_id for s in q.qm.telemetry.sessions.list()] == ["other"]
    assert not q.qm.telemetry.is_running("MQTT.A") and q.qm.telemetry.is_running("MQTT.B")
    assert failed(q.run(purge, st(NAME, "MQTT.A")), C.MQRCCF_PARM_MISSING, TYPE)
    assert failed(q.run(purge, st(NAME, "DEV.APP.SVRCONN"), i(TYPE, M.MQTT)), C.MQRCCF_CHANNEL_TYPE_ERROR, TYPE)


def test_reset_qmlite_keeps_dev_mqtt_and_runs_what_a_fresh_start_runs(q):
    from qmlite.registry.mqsc import run_mqsc
    from qmlite.registry.telemetry.service import ensure_developer_channel

    ensure_developer_channel(q.qm.registry, 1883)  # as qmlite serve --mqtt-port 1883 does
    q.qm.telemetry.developer_port = 1883
    assert create(q, "MQTT.X", i(C.MQIACH_PORT, 1884)).ok
    assert q.start_service().ok
    assert q.run(C.MQCMD_STOP_CHANNEL, st(NAME, M.MQTT_CHANNEL), i(TYPE, M.MQTT)).ok
    assert create(q, M.MQTT_CHANNEL, i(C.MQIACH_BACKLOG, 3), cmd=C.MQCMD_CHANGE_CHANNEL).ok
    [result] = run_mqsc(q.qm, "RESET QMLITE")
    assert result.completion_code == C.MQCC_OK
    assert "MQTT.X" in q.io.stopped and not q.qm.telemetry.is_running("MQTT.X")
    assert failed(inquire(q, "MQTT.X"), C.MQRC_UNKNOWN_OBJECT_NAME)
    [dev] = inquire(q, M.MQTT_CHANNEL).objects
    assert (dev[C.MQIACH_PORT], dev[C.MQIACH_BACKLOG], dev[C.MQCACH_MCA_USER_ID]) == (1883, 4096, "app")
    assert q.qm.telemetry.is_running(M.MQTT_CHANNEL)  # no longer stopped: a fresh start runs it


def test_purge_channel_needs_ctrl_on_the_channel_as_stop_channel_does(q, clock):
    from qmlite.registry.admin.engine import Requester

    assert create(q, "MQTT.A").ok
    assert q.start_service().ok
    _sessions(q, clock)
    app = Requester(user="app", admin=False)  # the developer objects' app: dsp on the queue manager only
    for cmd in (C.MQCMD_PURGE_CHANNEL, C.MQCMD_STOP_CHANNEL):
        assert failed(q.run(cmd, st(NAME, "MQTT.A"), i(TYPE, M.MQTT), st(CLIENT, "sensor1"), requester=app),
                      C.MQRC_NOT_AUTHORIZED)
    assert q.qm.telemetry.sessions.get("sensor1") is not None
