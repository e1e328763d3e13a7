"""Channel instances' indexes (by channel, by channel and client address) against the plain answer: a
scan of every instance.  MAXINST and MAXINSTC are checked at every connect from those indexes (issue 24:
10,000 connections must not cost a scan each), so they must agree with the scan after any sequence of
starts, ends and refusals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qmlite.pcf import constants as C
from qmlite.registry.objects import channels as M
from qmlite.registry.objects.instances import ChannelRefused, Running

CHANNELS = ("A.SVRCONN", "B.SVRCONN")
ADDRESSES = ("10.0.0.1", "10.0.0.2", "10.0.0.3")


def _scan(running: Running, channel: str) -> list:
    return [i for i in running.instances.values() if i.channel == channel]


def _refusal_by_scan(running: Running, channel: M.Channel, conn_name: str) -> str | None:
    """What the limits say, worked out the slow way (the rule as IBM states it)."""
    if channel.name in running.stopped:
        return "channel stopped"
    mine = _scan(running, channel.name)
    if len(mine) >= channel.max_instances:
        return "MAXINST reached"
    if sum(1 for i in mine if i.conn_name == conn_name) >= channel.max_instances_per_client:
        return "MAXINSTC reached"
    return None


operations = st.lists(st.tuples(st.sampled_from(("start", "end", "end")), st.integers(0, 1), st.integers(0, 2),
                                st.integers(0, 40)), max_size=120)


@settings(max_examples=200, deadline=None)
@given(ops=operations, max_inst=st.integers(1, 6), max_instc=st.integers(1, 4))
def test_limits_and_instances_of_agree_with_a_scan(ops, max_inst, max_instc):
    defs = [M.new(name, C.MQCHT_SVRCONN, max_instances=max_inst, max_instances_per_client=max_instc)
            for name in CHANNELS]
    running = Running()
    started = []
    for op, ch, addr, pick in ops:
        channel, conn_name = defs[ch], ADDRESSES[addr]
        if op == "start":
            expected = _refusal_by_scan(running, channel, conn_name)
            try:
                started.append(running.start_instance(channel, conn_name, 0.0))
                got = None
            except ChannelRefused as exc:
                got = exc.why
            assert got == expected
        elif started:
            instance = started.pop(pick % len(started))
            running.end_instance(instance)
            running.end_instance(instance)  # a second end (cleanup after Stop Channel) changes nothing
        for name in CHANNELS:
            assert running.instances_of(name) == _scan(running, name)
    assert sorted(i.instance_id for i in running.instances.values()) == sorted(i.instance_id for i in started)


def test_ending_every_instance_frees_every_limit():
    channel = M.new("A.SVRCONN", C.MQCHT_SVRCONN, max_instances=2, max_instances_per_client=1)
    running = Running()
    first = running.start_instance(channel, "10.0.0.1", 0.0)
    second = running.start_instance(channel, "10.0.0.2", 0.0)
    with pytest.raises(ChannelRefused, match="MAXINST reached"):
        running.start_instance(channel, "10.0.0.3", 0.0)
    running.end_instance(first)
    with pytest.raises(ChannelRefused, match="MAXINSTC reached"):
        running.start_instance(channel, "10.0.0.2", 0.0)
    running.end_instance(second)
    assert running.instances_of("A.SVRCONN") == []
    again = [running.start_instance(channel, f"10.0.0.{n}", 0.0) for n in (1, 2)]
    assert running.instances_of("A.SVRCONN") == again
