"""IBM's queue-manager name rules and channel order over a CCDT (client/ccdtselect.py)."""

from __future__ import annotations

import collections
import random

import pytest

from qmlite.client import ccdtselect
from qmlite.pcf.ccdt import ClientChannel


@pytest.fixture(autouse=True)
def _fresh():
    ccdtselect.forget()
    yield
    ccdtselect.forget()


def ch(name, qmgr="QM1", weight=0, affinity=1, seq=0):
    return ClientChannel(name, queue_manager=qmgr, client_weight=weight, affinity=affinity, sequence=seq)


@pytest.mark.parametrize("asked,group,check", [
    ("QM1", "QM1", "QM1"), ("*QM1", "QM1", ""), ("", "", ""), ("*", "", ""), ("QM1   ", "QM1", "QM1"),
    ("QM1\0\0", "QM1", "QM1"), ("*GROUP", "GROUP", ""),
])
def test_name_rules(asked, group, check):
    assert ccdtselect.name_rule(asked) == ccdtselect.NameRule(group, check)


def test_candidates_are_the_channels_of_the_group_alphabetically():
    table = [ch("ZED"), ch("ALPHA", "OTHER"), ch("BETA"), ch("ALPHA"), ch("BLANK", "")]
    got, rule = ccdtselect.candidates(table, "*QM1")
    assert [c.name for c in got] == ["ALPHA", "BETA", "ZED"] and rule.check == ""
    got, rule = ccdtselect.candidates(table, "")
    assert [c.name for c in got] == ["BLANK"]
    got, rule = ccdtselect.candidates(table, "QM1")
    assert rule.check == "QM1"


def test_same_name_entries_keep_file_order():
    got, _ = ccdtselect.candidates([ch("C", seq=2), ch("C", seq=0), ch("B", seq=1)], "QM1")
    assert [(c.name, c.sequence) for c in got] == [("B", 1), ("C", 0), ("C", 2)]


@pytest.mark.parametrize("asked", ["QM2", "*QM2", "", "*"])
def test_no_candidate_is_qmgr_name_error(asked):
    with pytest.raises(ccdtselect.NoCandidate) as info:
        ccdtselect.candidates([ch("A", "QM1")], asked)
    assert info.value.reason == 2058


def test_weight_zero_first_then_weighted_in_proportion():
    table = [ch("W2", weight=2, affinity=0), ch("Z0"), ch("W14", weight=14, affinity=0), ch("A0"),
             ch("W4", weight=4, affinity=0)]
    firsts = collections.Counter()
    rng = random.Random(7)
    for _ in range(4000):
        got, _ = ccdtselect.candidates(table, "QM1", rng=rng)
        assert [c.name for c in got[:2]] == ["A0", "Z0"]  # CLNTWGHT(0) first, alphabetically
        assert sorted(c.name for c in got[2:]) == ["W14", "W2", "W4"]
        firsts[got[2].name] += 1
    # IBM's example: weights 2, 4 and 14 are chosen about 10%, 20% and 70% of the time
    assert 0.07 < firsts["W2"] / 4000 < 0.13 and 0.16 < firsts["W4"] / 4000 < 0.24
    assert 0.65 < firsts["W14"] / 4000 < 0.75


def test_preferred_affinity_keeps_one_order_and_demotes_a_failure():
    table = [ch("B", weight=5), ch("C", weight=3), ch("D", weight=2)]
    first, _ = ccdtselect.candidates(table, "*QM1", source="t.json")
    for _ in range(20):  # the same order for every connect of the process
        assert ccdtselect.candidates(table, "*QM1", source="t.json")[0] == first
    ccdtselect.demote(first[0], "*QM1", source="t.json")
    again, _ = ccdtselect.candidates(table, "*QM1", source="t.json")
    assert [c.name for c in again] == [c.name for c in first[1:]] + [first[0].name]


def test_preferred_order_is_seeded_by_the_host_so_processes_agree():
    table = [ch(f"W{i}", weight=i + 1) for i in range(6)]
    a, _ = ccdtselect.candidates(table, "*QM1", source="x")
    ccdtselect.forget()
    b, _ = ccdtselect.candidates(table, "*QM1", source="x")
    assert [c.name for c in a] == [c.name for c in b]


def test_a_weight_zero_channel_is_never_demoted():
    table = [ch("A"), ch("B", weight=5)]
    ccdtselect.candidates(table, "QM1", source="s")
    ccdtselect.demote(table[0], "QM1", source="s")
    assert [c.name for c in ccdtselect.candidates(table, "QM1", source="s")[0]] == ["A", "B"]


def test_changed_table_rebuilds_the_preferred_list():
    ccdtselect.candidates([ch("B", weight=5), ch("C", weight=3)], "QM1", source="s")
    got, _ = ccdtselect.candidates([ch("B", weight=5), ch("E", weight=3)], "QM1", source="s")
    assert sorted(c.name for c in got) == ["B", "E"]
