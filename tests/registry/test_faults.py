"""The fault-rule table on its own (registry/testing/faults.py): the index finds exactly the rules a
call can meet, in the order set; the memo follows every change; firing is logged."""

from __future__ import annotations

import pytest

from qmlite.pcf import constants as C
from qmlite.registry.testing import faults as FR


def _names(faults: FR.Faults, verb: str, obj: str, user: str = "u", channel: str = "C", appl: str = "a") -> list:
    fired = []
    while (fault := faults.match(verb, obj, user, channel, appl)) is not None:
        fired.append(fault.rule)
        if len(fired) > 20:
            break
    return fired


@pytest.mark.parametrize("pattern,hits,misses", [
    ("*", ["A", "APP.Q", ""], []),
    ("APP.Q", ["APP.Q"], ["APP.Q2", "APP.", "app.q"]),
    ("APP.*", ["APP.", "APP.Q", "APP.Q.LONG"], ["APP", "APPX", "XAPP.Q"]),
    ("A*", ["A", "APP.Q"], ["", "B"]),
])
def test_object_patterns_exact_and_generic(pattern, hits, misses):
    faults = FR.Faults()
    faults.define("R", verb="MQPUT", object=pattern, reason=2053)
    for name in hits:
        assert faults.match("MQPUT", name, "u", "C", "a") is not None, name
    for name in misses:
        assert faults.match("MQPUT", name, "u", "C", "a") is None, name
    assert faults.match("MQGET", hits[0], "u", "C", "a") is None  # another verb: no rule


def test_order_count_and_a_change_clearing_the_memo():
    faults = FR.Faults()
    faults.define("GEN", verb="MQPUT", object="Q*", reason=2053, count=2)
    faults.define("EXACT", verb="MQPUT", object="Q1", reason=2030, count=1)
    assert _names(faults, "MQPUT", "Q1") == ["GEN", "GEN", "EXACT"]
    faults.define("USER", verb="MQPUT", object="Q1", user="bob", reason=2035)  # after the memo was filled
    assert faults.match("MQPUT", "Q1", "bob", "C", "a").reason == 2035
    assert faults.match("MQPUT", "Q1", "alice", "C", "a") is None
    faults.delete("USER")
    assert faults.match("MQPUT", "Q1", "bob", "C", "a") is None


def test_channel_and_appl_and_diskfull_persistence():
    faults = FR.Faults()
    faults.define("CH", verb="MQGET", channel="DEV.APP.*", appl="billing", reason=2033)
    assert faults.match("MQGET", "Q", "u", "DEV.ADMIN.SVRCONN", "billing") is None
    assert faults.match("MQGET", "Q", "u", "DEV.APP.SVRCONN", "billing   ") is not None  # MQ pads names
    faults.define("DISK", action="DISKFULL")
    assert faults.match("MQPUT1", "Q", "u", "C", "a") is None
    assert faults.match("MQPUT1", "Q", "u", "C", "a", persistent=True).reason == 2102


class _Recorder:
    """Stands in for the module's structlog logger (a logger cached by an earlier test's configuration
    escapes structlog.testing.capture_logs, so the events are taken where they are made)."""

    def __init__(self) -> None:
        self.events: list[dict] = []

    def info(self, event: str, **kw) -> None:
        self.events.append({"event": event, **kw})

    warning = info


def test_the_same_seed_gives_the_same_fires_and_firing_is_logged(monkeypatch):
    def run(seed):
        faults = FR.Faults()
        faults.define("P", verb="MQPUT", reason=2053, probability=0.5, seed=seed)
        return [faults.match("MQPUT", "Q", "u", "C", "a") is not None for _ in range(64)]

    assert run(7) == run(7) and run(7) != run(8) and 0 < sum(run(7)) < 64
    faults = FR.Faults()
    faults.define("L", verb="MQOPEN", reason=2085)
    recorder = _Recorder()
    monkeypatch.setattr(FR, "log", recorder)
    faults.match("MQOPEN", "Q", "bob", "CH", "app")
    (event,) = [e for e in recorder.events if e["event"] == "fault_fired"]
    assert (event["rule"], event["verb"], event["object"], event["user"], event["channel"], event["appl"],
            event["reason"]) == ("L", "MQOPEN", "Q", "bob", "CH", "app", "MQRC_UNKNOWN_OBJECT_NAME")


def test_pcf_rules_spare_escape_unless_named():
    from qmlite.pcf import constants as C

    faults = FR.Faults()
    faults.define("ALL", action="NOREPLY")
    assert faults.match_command(C.MQCMD_ESCAPE, "", "admin") is None
    assert faults.match_command(C.MQCMD_INQUIRE_Q, "Q", "admin").action == FR.NOREPLY
    faults.define("ESC", verb="MQCMD_ESCAPE", reason=2035)
    assert faults.match_command(C.MQCMD_ESCAPE, "", "admin").reason == 2035


def test_message_channel_steps_match_the_channel_by_name():
    faults = FR.Faults()
    faults.define("CUT", verb="MCAMSG", channel="QM1.*", action="BREAK", nth=2, count=1)
    faults.define("SLOW", verb=["MCASTART"], object="QM1.TO.QM2", delay=250)
    faults.define("WHO", verb="MCASTART", user="app", reason=2537)  # a channel step has no user: never met
    assert faults.match_channel(FR.MCAMSG, "QM1.TO.QM2") is None  # NTH(2): the first message passes
    assert faults.match_channel(FR.MCAMSG, "QM1.TO.QM2") == FR.Fault("CUT", FR.BREAK, C.MQRC_CONNECTION_BROKEN)
    assert faults.match_channel(FR.MCAMSG, "QM1.TO.QM2") is None  # COUNT(1)
    assert faults.match_channel(FR.MCAMSG, "QM3.TO.QM2") is None
    assert faults.match_channel(FR.MCASTART, "QM1.TO.QM2") == FR.Fault("SLOW", FR.DELAY, 0, 250)
    assert faults.match_channel(FR.MCASTART, "OTHER") is None
    assert faults.match("MQGET", "QM1.TO.QM2", "u", "QM1.TO.QM2", "a") is None  # no MQI verb named


@pytest.mark.parametrize("rule,keyword,reason", [
    ({"verb": "MCAMSG", "reason": 2009}, "VERB", C.MQRCCF_PARM_CONFLICT),  # a message only breaks or waits
    ({"verb": ["MCASTART", "PCF"], "reason": 2009}, "VERB", C.MQRCCF_PARM_CONFLICT),
    ({"verb": "MCASTART", "action": "DISKFULL"}, "VERB", C.MQRCCF_PARM_CONFLICT),
    ({"verb": "MCAEND", "action": "BREAK"}, "VERB", C.MQRCCF_PARM_VALUE_ERROR),
])
def test_message_channel_rules_that_make_no_sense_are_refused(rule, keyword, reason):
    with pytest.raises(FR.FaultRuleError) as refused:
        FR.Faults().define("BAD", **rule)
    assert (refused.value.keyword, refused.value.reason) == (keyword, reason)
