"""registry/cluster/snapshots.py: the private record format, what a member keeps, and bad input refused."""

from __future__ import annotations

import json

from qmlite.registry.cluster.snapshots import (Repository, decode_command, decode_request, encode_command, removal,
                                              same_content)


def _snap(qmgr: str, stamp: float, queues=("ORDERS",)) -> dict:
    return {"cluster": "DEMO", "qmgr": qmgr, "stamp": stamp, "channel": {"name": "TO." + qmgr},
            "queues": [{"name": q} for q in queues]}


def test_a_command_round_trips_and_malformed_snapshots_or_bodies_are_refused_quietly():
    good = _snap("QM1", 1.0)
    assert decode_command(encode_command("QM2", [good])) == ("QM2", [good])
    bad = [{"cluster": "DEMO"}, {**good, "channel": "TO.QM1"}, {**good, "stamp": "x"}, {**good, "queues": [1]}, 7]
    assert decode_command(json.dumps({"qmlite-cluster": 1, "from": "QM2", "snapshots": [good, *bad]}).encode()) == (
        "QM2", [good])
    for body in (b"\xff\xfe", b"[]", b'{"qmlite-cluster": 2}', b'{"qmlite-cluster": 1}', b"AMQ"):
        assert decode_command(body) is None


def test_a_newer_snapshot_replaces_the_whole_an_older_one_is_ignored():
    repo = Repository()
    assert repo.offer(_snap("QM1", 2.0))
    assert not repo.offer(_snap("QM1", 1.0, queues=()))  # older: ignored
    assert [q["name"] for _, q in repo.instances("ORDERS")] == ["ORDERS"]
    assert repo.offer(_snap("QM1", 3.0, queues=()))  # the queue deleted there: gone here
    assert repo.instances("ORDERS") == []
    assert same_content(_snap("QM1", 1.0), _snap("QM1", 9.0)) and not same_content(_snap("QM1", 1.0), None)


def test_a_removal_hides_the_member_keeps_queues_only_when_asked_and_a_newer_snapshot_brings_it_back():
    repo = Repository()
    repo.offer(_snap("QM3", 1.0))
    assert not repo.offer(removal(_snap("QM3", 1.0), 0.5))  # older than the snapshot: ignored
    assert repo.offer(removal(_snap("QM3", 1.0), 2.0, keep_queues=True))
    assert repo.snapshots == {} and repo.instances("ORDERS") == []  # no member, no workload choice
    assert [q["name"] for q in repo.removed[("DEMO", "QM3")]["queues"]] == ["ORDERS"]  # QUEUES(NO)
    assert not repo.offer(_snap("QM3", 1.5))  # a snapshot from before the removal stays removed
    assert repo.offer(_snap("QM3", 3.0))  # the member rejoining
    assert repo.removed == {} and [s["qmgr"] for s, _ in repo.instances("ORDERS")] == ["QM3"]


def test_a_refresh_request_travels_with_the_command_and_bad_ones_are_dropped():
    good = _snap("QM3", 1.0)
    assert decode_request(encode_command("QM3", [good], ["DEMO"])) == ("QM3", [good], ["DEMO"])
    assert decode_request(encode_command("QM3", [good])) == ("QM3", [good], [])
    body = json.dumps({"qmlite-cluster": 1, "from": "QM3", "snapshots": [], "refresh": ["A", 5]}).encode()
    assert decode_request(body) == ("QM3", [], ["A"])
    body = json.dumps({"qmlite-cluster": 1, "from": "QM3", "snapshots": [], "refresh": "A"}).encode()
    assert decode_request(body) == ("QM3", [], [])
