"""registry/cluster/workload.py: IBM's cluster workload algorithm, step by step, as a pure function."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from qmlite.pcf import constants as C
from qmlite.registry.cluster.workload import Instance, choose, eligible, uses_local


def _run(instances: list[Instance], count: int, **kw) -> Counter:
    """``count`` choices, each counted as sent to the one chosen (as routing.bind counts them)."""
    sent: Counter = Counter()
    for _ in range(count):
        chosen = choose([replace(i, sent=sent[i.qmgr]) for i in instances], **kw)
        assert chosen is not None
        sent[chosen.qmgr] += 1
    return sent


def test_equal_weights_alternate_and_split_evenly():
    assert _run([Instance("QM1"), Instance("QM2")], 100) == {"QM1": 50, "QM2": 50}


def test_weights_split_in_their_ratio():
    assert _run([Instance("QM1", weight=1), Instance("QM2", weight=3)], 100) == {"QM1": 25, "QM2": 75}


def test_the_highest_priority_takes_everything_channel_before_queue():
    both = [Instance("QM1", queue_priority=5), Instance("QM2", channel_priority=1)]
    assert _run(both, 10) == {"QM2": 10}
    assert _run([Instance("QM1", queue_priority=5), Instance("QM2")], 10) == {"QM1": 10}


def test_rank_comes_before_channel_status_and_priority():
    # The higher rank wins even when its channel retries and the other has the higher priority.
    ranked = [Instance("QM1", channel_rank=2, channel_status=C.MQCHS_RETRYING), Instance("QM2", channel_priority=9)]
    assert _run(ranked, 5) == {"QM1": 5}


def test_a_stopped_or_retrying_channel_is_avoided_while_another_can_be_used():
    assert _run([Instance("QM1", channel_status=C.MQCHS_STOPPED), Instance("QM2")], 6) == {"QM2": 6}
    assert _run([Instance("QM1", channel_status=C.MQCHS_RETRYING),
                 Instance("QM2", channel_status=C.MQCHS_STOPPED)], 6) == {"QM1": 6}
    # When every one is stopped the message still has somewhere to wait.
    assert _run([Instance("QM1", channel_status=C.MQCHS_STOPPED)], 2) == {"QM1": 2}


def test_put_inhibited_instances_go_and_none_left_is_none():
    assert _run([Instance("QM1", put_enabled=False), Instance("QM2")], 4) == {"QM2": 4}
    assert choose([Instance("QM1", put_enabled=False)]) is None


def test_suspended_members_are_used_only_when_all_are():
    assert _run([Instance("QM1", suspended=True), Instance("QM2")], 4) == {"QM2": 4}
    assert _run([Instance("QM1", suspended=True), Instance("QM2", suspended=True)], 4) == {"QM1": 2, "QM2": 2}


def test_clwluseq_local_takes_the_local_instance_any_lets_it_compete():
    instances = [Instance("QM3", local=True), Instance("QM1")]
    assert _run(instances, 4, local_only=True) == {"QM3": 4}
    assert _run(instances, 4, local_only=False) == {"QM1": 2, "QM3": 2}
    assert uses_local(C.MQCLWL_USEQ_LOCAL, C.MQCLWL_USEQ_ANY)
    assert not uses_local(C.MQCLWL_USEQ_ANY, C.MQCLWL_USEQ_LOCAL)
    assert not uses_local(C.MQCLWL_USEQ_AS_Q_MGR, C.MQCLWL_USEQ_ANY)
    assert uses_local(C.MQCLWL_USEQ_AS_Q_MGR, C.MQCLWL_USEQ_LOCAL)


def test_network_priority_decides_among_usable_channels():
    left = eligible([Instance("QM1", network_priority=1), Instance("QM2")], local_only=True)
    assert [i.qmgr for i in left] == ["QM1"]


def test_clwlmruc_keeps_to_the_most_recently_used_channels_once_that_many_were_used():
    fresh = [Instance("QM1"), Instance("QM2"), Instance("QM3")]
    assert choose(fresh, mru=1).qmgr == "QM1"  # nothing used yet: every instance competes
    used = [Instance("QM1", sent=5, last_used=3), Instance("QM2", sent=1, last_used=4), Instance("QM3")]
    assert choose(used, mru=1).qmgr == "QM2"  # only the most recently used is left
    assert choose(used, mru=2).qmgr == "QM2"  # the two most recent; QM2 the less used of them
    assert choose(used).qmgr == "QM3"  # the default (999,999,999): the least used of all
    with_local = [Instance("QM0", local=True, sent=9), *used]
    assert choose(with_local, local_only=False, mru=1).qmgr == "QM2"  # the local one is no channel: it competes
