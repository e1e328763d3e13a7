"""registry/cluster/snapshots.py: the private record format, what a member keeps, and bad input refused."""

from __future__ import annotations

import json

from qmlite.registry.cluster.snapshots import Repository, decode_command, encode_command, same_content


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
