"""The reconnection rules, without sockets: which connections reconnect (every MQCNO option against
every DefReconnect value and the client configuration's DefRecon), IBM's backoff, and the outcome
each interrupted call gets (every verb, in and out of syncpoint, with and without earlier work in the
unit of work) -- on a fake connection whose break and reconnection the test controls."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import pytest

from qmlite.client import reconnect as RC
from qmlite.client.errors import ConnectionBroken, MQIError
from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO, MQSD

CNO = {"AS_DEF": C.MQCNO_RECONNECT_AS_DEF, "RECONNECT": C.MQCNO_RECONNECT,
       "DISABLED": C.MQCNO_RECONNECT_DISABLED, "Q_MGR": C.MQCNO_RECONNECT_Q_MGR}
RCN = {"NO": RC.MQRCN_NO, "YES": RC.MQRCN_YES, "QMGR": RC.MQRCN_Q_MGR, "DISABLED": RC.MQRCN_DISABLED}


def _expected(cno: str, default: str) -> str:
    # IBM (DefReconnect): DISABLED wins over MQCONNX; MQCONNX options override NO/YES/QMGR; AS_DEF takes them
    if default == "DISABLED" or cno == "DISABLED":
        return RC.NONE
    if cno == "RECONNECT":
        return RC.ANY
    if cno == "Q_MGR":
        return RC.SAME_QMGR
    return {"YES": RC.ANY, "QMGR": RC.SAME_QMGR, "NO": RC.NONE}[default]


@pytest.mark.parametrize("cno,channel,ini", list(itertools.product(CNO, RCN, [None, *RCN])))
def test_resolve_every_option_against_every_default(cno, channel, ini):
    client = RC.ClientSettings(def_recon=RCN[ini] if ini else None)
    got = RC.resolve(CNO[cno] | C.MQCNO_HANDLE_SHARE_BLOCK, RCN[channel], client)
    # the client configuration's DefRecon takes precedence over the channel's DefReconnect
    assert got.mode == _expected(cno, ini or channel)
    assert got.timeout_s == 1800.0 and got.delays_ms == RC.DEFAULT_DELAYS_MS


@pytest.mark.parametrize("a,b", list(itertools.combinations(["RECONNECT", "DISABLED", "Q_MGR"], 2)))
def test_resolve_refuses_two_reconnect_options(a, b):
    with pytest.raises(RC.OptionsError):
        RC.resolve(CNO[a] | CNO[b], RC.MQRCN_NO, RC.ClientSettings())


def test_client_settings_timeout_and_delays_are_used():
    s = RC.resolve(C.MQCNO_RECONNECT, client=RC.ClientSettings(reconnect_timeout_s=5, recon_delay_ms=((10, 0),)))
    assert (s.timeout_s, s.delays_ms) == (5.0, ((10, 0),))


def test_default_delays_are_ibms_backoff():
    lo = list(itertools.islice(RC.delays(RC.Settings(RC.ANY), rng=lambda: 0.0), 8))
    hi = list(itertools.islice(RC.delays(RC.Settings(RC.ANY), rng=lambda: 1.0), 8))
    assert lo == [1.0, 2.0, 4.0, 8.0, 16.0, 25.0, 25.0, 25.0]
    assert hi == [1.25, 2.25, 5.0, 10.0, 20.0, 30.0, 30.0, 30.0]


def test_recon_delay_pairs_last_one_repeats():
    s = RC.Settings(RC.ANY, delays_ms=((1000, 200), (2000, 200), (4000, 1000)))
    got = list(itertools.islice(RC.delays(s, rng=lambda: 0.5), 5))
    assert got == [1.1, 2.1, 4.5, 4.5, 4.5]


@pytest.mark.parametrize("code,again", [(fap.QM_TERMINATING, False), (fap.USER_CLOSED, False), (None, True),
                                        (fap.CHANNEL_UNAVAILABLE, True), (fap.PROTOCOL_GENERAL, True)])
def test_which_breaks_are_reconnectable(code, again):
    assert RC.reconnectable(ConnectionBroken(C.MQRC_CONNECTION_BROKEN, status_code=code)) is again
    assert not RC.reconnectable(MQIError(C.MQCC_FAILED, C.MQRC_Q_MGR_STOPPING))


# --------------------------------------------------------------------------------------------------
# A fake connection: the test decides when a call breaks it
# --------------------------------------------------------------------------------------------------

@dataclass
class _Agreement:
    qmgr_id: str = "QM1_2026-01-01_00.00.00"
    qmgr_name: str = "QM1"


class _Channel:
    def __init__(self) -> None:
        self.closed = False
        self.error = None
        self.multiplexed = True


@dataclass
class _Reply:
    api: object


@dataclass
class _Api:
    CompCode: int = C.MQCC_OK
    Reason: int = 0


@dataclass
class FakeQM:
    """Counts what each verb did; ``break_on`` names the verb that breaks the connection mid-call."""

    break_on: str = ""
    qmid: str = "QM1_2026-01-01_00.00.00"
    next_hobj: int = 100
    done: list = field(default_factory=list)
    agreement: _Agreement = None
    channel: _Channel = field(default_factory=_Channel)
    codec: str = "latin-1"
    connection_id: bytes = bytes(24)

    def __post_init__(self):
        self.agreement = _Agreement(self.qmid)

    def _maybe_break(self, verb):
        if self.break_on == verb:
            self.channel.closed = True
            raise ConnectionBroken(C.MQRC_CONNECTION_BROKEN, "broken mid-call")
        self.done.append(verb)

    def poll(self):
        pass

    def abort(self):
        self.channel.closed = True

    def open(self, od, options):
        self._maybe_break("open")
        self.next_hobj += 1
        return self.next_hobj, od

    def sub(self, sd, hobj):
        self._maybe_break("sub")
        self.next_hobj += 2
        return self.next_hobj - 1, self.next_hobj, sd

    def close(self, hobj, options):
        self._maybe_break("close")

    def put(self, hobj, md, pmo, data):
        self._maybe_break("put")
        return md, pmo

    def put1(self, od, md, pmo, data):
        self._maybe_break("put1")
        return md, pmo

    def get(self, hobj, md, gmo, n):
        self._maybe_break("get")
        return md, gmo, b"x"

    def inq(self, hobj, sels, i, c):
        self._maybe_break("inq")
        return [], ""

    def cmit(self):
        self._maybe_break("cmit")

    def back(self):
        self._maybe_break("back")


class World:
    def __init__(self, *, qmid_after="QM1_2026-01-01_00.00.00", mode=RC.ANY):
        self.first = FakeQM()
        self.later: list[FakeQM] = []
        self.events: list[tuple[int, int]] = []
        self.qmid_after = qmid_after

        def connect():
            qm = FakeQM(qmid=self.qmid_after, next_hobj=500 + 100 * len(self.later))
            self.later.append(qm)
            return qm

        self.rq = RC.ReconnectingQueueManager(self.first, connect, RC.Settings(mode, delays_ms=((0, 0),)),
                                             on_event=lambda cc, rc: self.events.append((cc, rc)))


SP_PUT, NSP_PUT = MQPMO(Options=C.MQPMO_SYNCPOINT), MQPMO(Options=C.MQPMO_NO_SYNCPOINT)
SP_GET, NSP_GET = MQGMO(Options=C.MQGMO_SYNCPOINT), MQGMO(Options=C.MQGMO_NO_SYNCPOINT)


def _verb(rq, name, hobj):
    return {
        "put": lambda: rq.put(hobj, MQMD(), NSP_PUT, b"x"),
        "put_sp": lambda: rq.put(hobj, MQMD(), SP_PUT, b"x"),
        "put1": lambda: rq.put1(MQOD(ObjectName="Q"), MQMD(), NSP_PUT, b"x"),
        "put1_sp": lambda: rq.put1(MQOD(ObjectName="Q"), MQMD(), SP_PUT, b"x"),
        "get": lambda: rq.get(hobj, MQMD(), NSP_GET, 10),
        "get_sp": lambda: rq.get(hobj, MQMD(), SP_GET, 10),
        "cmit": rq.cmit,
        "back": rq.back,
        "open": lambda: rq.open(MQOD(ObjectName="Q2"), C.MQOO_OUTPUT),
        "close": lambda: rq.close(hobj),
        "inq": lambda: rq.inq(hobj, [C.MQIA_CURRENT_Q_DEPTH], 1, 0),
    }[name]


# (the verb interrupted, earlier syncpoint work) -> what the application sees (decision Z5):
# "again" = made again on the new connection and succeeds; a reason = the call fails with it
RULES = {
    ("put", False): C.MQRC_CALL_INTERRUPTED, ("put", True): C.MQRC_CALL_INTERRUPTED,
    ("put1", False): C.MQRC_CALL_INTERRUPTED, ("put1", True): C.MQRC_CALL_INTERRUPTED,
    ("put_sp", False): "again", ("put_sp", True): C.MQRC_BACKED_OUT,
    ("put1_sp", False): "again", ("put1_sp", True): C.MQRC_BACKED_OUT,
    ("get", False): "again", ("get", True): "again",
    ("get_sp", False): "again", ("get_sp", True): C.MQRC_BACKED_OUT,
    ("cmit", False): "again", ("cmit", True): C.MQRC_CALL_INTERRUPTED,
    ("back", False): "done", ("back", True): "done",
    ("open", False): "again", ("open", True): "again",
    ("close", False): "again", ("close", True): "again",
    ("inq", False): "again", ("inq", True): "again",
}
_WIRE = {"put_sp": "put", "put1_sp": "put1", "get_sp": "get"}


@pytest.mark.parametrize("verb,earlier_work", sorted(RULES))
def test_every_interrupted_call_gets_ibms_outcome(verb, earlier_work):
    w = World()
    hobj, _od = w.rq.open(MQOD(ObjectName="Q"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    if earlier_work:
        w.rq.put(hobj, MQMD(), SP_PUT, b"earlier")
    w.first.break_on = _WIRE.get(verb, verb)
    expected = RULES[(verb, earlier_work)]
    if isinstance(expected, int):
        with pytest.raises(MQIError) as info:
            _verb(w.rq, verb, hobj)()
        assert (info.value.comp, info.value.reason) == (C.MQCC_FAILED, expected)
    else:
        _verb(w.rq, verb, hobj)()
    again = w.later[0].done
    assert again[0] == "open"  # the handle was reinstated first
    if expected == "again":
        assert again[1:] == [_WIRE.get(verb, verb)]
    else:
        assert again[1:] == []  # nothing made again: its outcome was decided
    assert w.events == [(C.MQCC_WARNING, C.MQRC_RECONNECTING), (C.MQCC_WARNING, C.MQRC_RECONNECTED)]


def test_unit_of_work_lost_between_calls():
    """Broken while idle with syncpoint work: syncpoint puts/gets fail 2003 until MQCMIT (2003 WARNING)
    or MQBACK ends the unit of work; outside syncpoint work goes on."""
    w = World()
    hobj, _ = w.rq.open(MQOD(ObjectName="Q"), C.MQOO_OUTPUT)
    w.rq.put(hobj, MQMD(), SP_PUT, b"in the unit of work")
    w.first.channel.closed = True
    w.first.channel.error = ConnectionBroken(C.MQRC_CONNECTION_BROKEN)
    for verb in ("put_sp", "get_sp", "put1_sp"):
        with pytest.raises(MQIError) as info:
            _verb(w.rq, verb, hobj)()
        assert (info.value.comp, info.value.reason) == (C.MQCC_FAILED, C.MQRC_BACKED_OUT)
    w.rq.put(hobj, MQMD(), NSP_PUT, b"outside")
    with pytest.raises(MQIError) as info:
        w.rq.cmit()
    assert (info.value.comp, info.value.reason) == (C.MQCC_WARNING, C.MQRC_BACKED_OUT)
    w.rq.put(hobj, MQMD(), SP_PUT, b"a new unit of work")
    w.rq.cmit()
    assert w.later[0].done == ["open", "put", "put", "cmit"]


def test_handles_keep_their_values_and_subscriptions_are_remade():
    w = World()
    hobj, _ = w.rq.open(MQOD(ObjectName="Q"), C.MQOO_OUTPUT)
    hsub, managed, _ = w.rq.sub(MQSD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE,
                                     ObjectString="a/b"), 0)
    w.first.break_on = "put"
    w.rq.put(hobj, MQMD(), SP_PUT, b"x")
    assert w.later[0].done == ["open", "sub", "put"]
    # the application's handles are the first connection's; the new connection's are used underneath
    assert (hobj, hsub, managed) == (101, 102, 103)
    assert w.rq._real(hobj) == 501 and w.rq._real(hsub) == 502 and w.rq._real(managed) == 503
    w.rq.close(hsub)
    assert hsub not in w.rq._handles and managed not in w.rq._handles


def test_durable_subscription_is_resumed_and_needs_reconnect_q_mgr():
    w = World(mode=RC.ANY)
    durable = MQSD(Options=C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED, ObjectString="a", SubName="S")
    with pytest.raises(MQIError) as info:
        w.rq.sub(durable, 0)
    assert info.value.reason == C.MQRC_RECONNECT_Q_MGR_REQD
    w = World(mode=RC.SAME_QMGR)
    calls = []
    w.rq.sub(durable, 0)
    w.first.break_on = "inq"

    def connect():
        qm = FakeQM()
        orig = qm.sub

        def sub(sd, hobj):
            calls.append(sd.Options)
            return orig(sd, hobj)

        qm.sub = sub
        return qm

    w.rq._connect = connect
    w.rq.inq(0, [], 0, 0)
    assert calls == [(durable.Options & ~C.MQSO_CREATE) | C.MQSO_RESUME]


def test_reconnect_q_mgr_refuses_another_queue_manager():
    w = World(qmid_after="QM2_2026-02-02_00.00.00", mode=RC.SAME_QMGR)
    w.first.break_on = "inq"
    with pytest.raises(MQIError) as info:
        w.rq.inq(0, [], 0, 0)
    assert info.value.reason == C.MQRC_RECONNECT_FAILED
    assert w.rq.status.state == "failed"
    assert w.rq.status.error == (C.MQCC_FAILED, C.MQRC_RECONNECT_QMID_MISMATCH)
    assert w.events[-1] == (C.MQCC_FAILED, C.MQRC_RECONNECT_FAILED)
    with pytest.raises(MQIError) as info:  # and every later call
        w.rq.cmit()
    assert info.value.reason == C.MQRC_RECONNECT_FAILED


def test_a_final_status_does_not_reconnect():
    w = World()
    w.first.channel.closed = True
    w.first.channel.error = ConnectionBroken(C.MQRC_CONNECTION_BROKEN, status_code=fap.QM_TERMINATING)
    with pytest.raises(ConnectionBroken) as info:
        w.rq.inq(0, [], 0, 0)
    assert info.value.reason == C.MQRC_CONNECTION_BROKEN and w.later == [] and w.events == []


def test_timeout_fails_with_reconnect_failed():
    w = World()
    w.rq.settings = RC.Settings(RC.ANY, timeout_s=0.0)
    w.first.break_on = "inq"
    with pytest.raises(MQIError) as info:
        w.rq.inq(0, [], 0, 0)
    assert info.value.reason == C.MQRC_RECONNECT_FAILED
    assert w.rq.status.error == (C.MQCC_FAILED, C.MQRC_RECONNECT_TIMED_OUT)


@pytest.mark.parametrize("segment,options,reason", [
    (fap.MQPUT, 0x8000, C.MQRC_RECONNECT_INCOMPATIBLE),  # MQPMO_LOGICAL_ORDER
    (fap.MQGET, 0x8000, C.MQRC_RECONNECT_INCOMPATIBLE),  # MQGMO_LOGICAL_ORDER
])
def test_options_a_reconnection_cannot_honour(segment, options, reason):
    w = World()
    md = MQMD().pack(fap.LITTLE, "latin-1")
    opts = (MQPMO(Options=options) if segment == fap.MQPUT else MQGMO(Options=options)).pack(fap.LITTLE, "latin-1")
    with pytest.raises(MQIError) as info:
        w.rq.call(segment, 1, md + opts + bytes(4))
    assert info.value.reason == reason


def test_match_msg_token_needs_reconnect_q_mgr():
    w = World(mode=RC.ANY)
    body = MQMD().pack(fap.LITTLE, "latin-1") + MQGMO(Version=2, MatchOptions=0x20).pack(fap.LITTLE, "latin-1")
    with pytest.raises(MQIError) as info:
        w.rq.call(fap.MQGET, 1, body + bytes(4))
    assert info.value.reason == C.MQRC_RECONNECT_Q_MGR_REQD


def test_a_permanent_dynamic_queue_that_outlived_the_connection_is_opened_by_name():
    w = World()
    model = MQOD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName="PERM.*")
    opened = []

    def first_open(od, options):
        return 101, replace(od, ObjectName="PERM.123")

    w.first.open = first_open
    hobj, od_out = w.rq.open(model, C.MQOO_OUTPUT)
    assert od_out.ObjectName == "PERM.123"

    def connect():
        qm = FakeQM()

        def open_(od, options):
            opened.append((od.ObjectName, od.DynamicQName))
            if od.ObjectName == "SYSTEM.DEFAULT.MODEL.QUEUE":
                raise MQIError(C.MQCC_FAILED, C.MQRC_OBJECT_ALREADY_EXISTS)
            return 777, od

        qm.open = open_
        return qm

    w.rq._connect = connect
    w.first.break_on = "inq"
    w.rq.inq(hobj, [], 0, 0)
    assert opened == [("SYSTEM.DEFAULT.MODEL.QUEUE", "PERM.123"), ("PERM.123", "PERM.123")]
    assert w.rq._real(hobj) == 777
