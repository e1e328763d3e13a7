"""registry/testing/clock.py: the virtual clock's rules, without a server (the ibmmq tests drive it
through a server: tests/client/test_ibmmq_vclock.py)."""

from __future__ import annotations

import calendar
import math
import threading

import pytest

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.registry.mqsc import check_mqsc, run_mqsc
from qmlite.registry.qmgr import QueueManager
from qmlite.registry.testing.clock import (MAX_STEP, REAL, VIRTUAL, ClockError, VirtualClock, parse_datetime,
                                           parse_seconds)
from qmlite.server import config

START = 1_900_000_000.0  # 2030-03-17 17:46:40 GMT


@pytest.fixture
def qm(tmp_path):
    qm = QueueManager.open(tmp_path, clock=VirtualClock(START))
    yield qm
    qm.shutdown()


@pytest.mark.parametrize("text, seconds", [
    ("0", 0.0), ("1", 1.0), ("0.001", 0.001), ("12.5", 12.5), ("3600", 3600.0), (str(MAX_STEP), float(MAX_STEP)),
])
def test_parse_seconds_takes_mqsc_numbers(text, seconds):
    assert parse_seconds(text) == seconds
    assert parse_seconds(seconds) == seconds


@pytest.mark.parametrize("bad", [
    "", " ", "x", "-1", "+1", "1.", ".5", "1.2345", "1e3", "0x10", "1,5", "1 2", str(MAX_STEP + 1),
    -1, -0.001, 1.0001, MAX_STEP + 1, math.nan, math.inf, -math.inf, True, False, None, [1], {"s": 1}, b"1",
])
def test_parse_seconds_refuses_everything_else_with_parm_value_error(bad):
    with pytest.raises(ClockError) as info:
        parse_seconds(bad)
    assert info.value.reason == C.MQRCCF_PARM_VALUE_ERROR and info.value.parameter == "SECONDS"


def test_parse_datetime_is_gmt():
    assert parse_datetime("2030-01-02", "03.04.05") == calendar.timegm((2030, 1, 2, 3, 4, 5, 0, 0, 0))
    assert parse_datetime("2030-01-02", "03:04:05") == parse_datetime("2030-01-02", "03.04.05")
    assert parse_datetime("2030-01-02") == calendar.timegm((2030, 1, 2, 0, 0, 0, 0, 0, 0))


@pytest.mark.parametrize("date, time_of_day", [
    ("2030-13-01", "00.00.00"), ("2030-02-30", "00.00.00"), ("2030-00-10", "00.00.00"), ("1969-12-31", "00.00.00"),
    ("30-01-01", "00.00.00"), ("2030/01/01", "00.00.00"), ("", "00.00.00"), ("2030-01-01", "24.00.00"),
    ("2030-01-01", "00.60.00"), ("2030-01-01", "00.00.60"), ("2030-01-01", "noon"), ("2030-01-01", "1.2.3"),
])
def test_parse_datetime_refuses_impossible_times(date, time_of_day):
    with pytest.raises(ClockError) as info:
        parse_datetime(date, time_of_day)
    assert info.value.reason == C.MQRCCF_PARM_VALUE_ERROR


def test_a_real_clock_is_shown_and_never_moved(tmp_path):
    qm = QueueManager.open(tmp_path)
    try:
        control = qm.clock_control
        assert control.mode == REAL and control.status()["mode"] == REAL
        for move in (lambda: control.advance(1), lambda: control.set_time(qm.now() + 10)):
            with pytest.raises(ClockError) as info:
                move()
            assert info.value.reason == C.MQRC_ENVIRONMENT_ERROR
        [result] = run_mqsc(qm, "SET QMLITE CLOCK(ADVANCE) SECONDS(1)")
        assert result.reason_code == C.MQRC_ENVIRONMENT_ERROR and result.text[1].startswith("QML0303E")
    finally:
        qm.shutdown()


def test_advance_and_set_time_move_forward_only(qm):
    control = qm.clock_control
    assert control.mode == VIRTUAL and qm.now() == START
    state = control.advance(1.5)
    assert (state["now"], state["advanced"]) == (START + 1.5, 1.5)
    with pytest.raises(ClockError) as info:
        control.set_time(START)
    assert info.value.reason == C.MQRCCF_PARM_VALUE_ERROR
    with pytest.raises(ClockError):
        control.set_time(qm.now() + MAX_STEP + 1)
    for bad in (math.nan, "1", None, True):
        with pytest.raises(ClockError):
            control.set_time(bad)
    control.set_time(START + 100)
    assert qm.now() == START + 100 and control.status()["advanced"] == 100.0
    assert qm.now() == START + 100  # nothing moves it but a step


def test_a_step_stamps_put_date_and_time(qm):
    session = qm.connect("", user="mqm", admin=True)
    handle, _ = qm.open_object(session, S.MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    qm.clock_control.set_time(parse_datetime("2030-05-06", "07.08.09"))
    qm.put(session, handle.hobj, S.MQMD(), S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), b"x")
    got = qm.get(session, handle, S.MQMD(), S.MQGMO(Options=C.MQGMO_NO_SYNCPOINT), 10)
    assert (got.md.PutDate, got.md.PutTime) == ("20300506", "07080900")


def test_listeners_hear_every_step_and_subscriptions_expire(qm):
    heard = []
    qm.clock_control.on_moved.append(lambda: heard.append(qm.now()))
    [made] = run_mqsc(qm, "DEFINE SUB(VC.SUB) TOPICSTR('vc/x') DEST(DEV.QUEUE.1) EXPIRY(20)")  # 2 s
    assert made.completion_code == 0
    qm.clock_control.advance(1.999)
    assert "VC.SUB" in qm.registry.subs
    qm.clock_control.advance(0.001)
    assert "VC.SUB" not in qm.registry.subs  # gone at the step, before anyone looks
    assert heard == [START + 1.999, START + 2.0]


def test_wait_for_waits_is_an_event_not_a_poll():
    clock = VirtualClock(START)
    assert clock.wait_for_waits(1, 0) is False
    registered = threading.Event()

    def register():
        registered.wait(30)
        clock.add_wait(START + 5)

    thread = threading.Thread(target=register)
    thread.start()
    registered.set()
    assert clock.wait_for_waits(1, 30) is True
    thread.join(30)
    assert clock.waits == 1 and clock.next_deadline() == START + 5
    token = clock.add_wait(math.inf)
    assert clock.waits == 2 and clock.next_deadline() == START + 5
    clock.remove_wait(token)
    clock.remove_wait(token)  # twice: nothing more
    assert clock.waits == 1


def test_display_shows_the_attributes_asked_for(qm):
    [shown] = run_mqsc(qm, "DISPLAY QMLITE CLOCK ALL")
    assert shown.objects == [{"CLOCK": "VIRTUAL", "DATE": "2030-03-17", "TIME": "17.46.40",
                              "SECONDS": f"{START:.3f}", "ADVANCED": "0.000", "WAITS": "0"}]
    [only] = run_mqsc(qm, "DISPLAY QMLITE CLOCK WAITS")
    assert only.objects == [{"CLOCK": "VIRTUAL", "WAITS": "0"}]


def test_runmqsc_v_checks_the_clock_commands():
    good = ["SET QMLITE CLOCK(ADVANCE) SECONDS(1)", "SET QMLITE CLOCK(SET) DATE(2030-01-01) TIME(12.00.00)",
            "set qmlite clock(advance) seconds(0.5)", "DISPLAY QMLITE CLOCK", "DISPLAY QMLITE CLOCK ALL"]
    assert [r.syntax_error for r in check_mqsc("\n".join(good))] == [False] * len(good)


def test_the_server_setting_is_real_or_virtual():
    assert config.load(environ={}).clock == "real"
    assert config.load(environ={}, overrides={"clock": "virtual"}).clock == "virtual"
    with pytest.raises(config.ConfigError, match="invalid clock 'sometimes'"):
        config.load(environ={}, overrides={"clock": "sometimes"})
