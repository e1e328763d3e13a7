"""The pipeline's routing (pipeline/routes.py) against the queue manager's own publishing.

Random registries and publications, small enough for hypothesis: every publication is published
through ``QueueManager.publish`` (the online router) and routed by ``pipeline.routes.route_rows``
against a snapshot of the same registry; the deliveries must be identical, selectors, grouping and
SubLevel included.
"""

from __future__ import annotations

import collections
import pathlib
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qmlite.pcf import constants as C
from qmlite.pcf import properties as PR
from qmlite.pcf.mqi import MQMD
from qmlite.pipeline import routes
from qmlite.registry.pubsub import routing
from qmlite.registry.storage import definitionsblob
from qmlite.registry.objects.definitions import Queue, Subscription
from qmlite.registry.qmgr import QueueManager

QUEUES = ("PIPE.Q.1", "PIPE.Q.2", "PIPE.Q.3")
WORDS = ("a", "b", "c")
SELECTORS = ("", "", "Colour = 'red'", "Size > 2", "Colour IS NULL", "JMSPriority >= 5")


def _pattern():
    return st.lists(st.sampled_from(WORDS + ("+", "#")), min_size=1, max_size=3).map("/".join)


sub_specs = st.lists(st.tuples(_pattern(), st.sampled_from(QUEUES), st.sampled_from([0, 1, 1, 2]),
                               st.sampled_from(SELECTORS), st.sampled_from([None, None, 1]),
                               st.sampled_from([-1, -3, 4])),
                     min_size=1, max_size=8)
pub_specs = st.lists(st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map("/".join),
                               st.sampled_from([None, "red", "blue"]), st.sampled_from([None, 1, 3]),
                               st.sampled_from([None, 2, 7]), st.sampled_from([None, 0, 1]),
                               st.sampled_from([9, 9, 1, 0])),
                     min_size=1, max_size=6)


def _registry(qm, specs):
    reg = qm.registry
    for name in QUEUES:
        reg.put_queue(Queue(name, max_depth=100_000, def_priority=3))
    for n, (pattern, queue, level, selector, group, priority) in enumerate(specs):
        grouped = group is not None
        sub = Subscription(f"PIPE.SUB.{n}", reg.ids.sub_id(), topic_string=pattern, resolved_topic=pattern,
                           destination=queue, destination_qmgr="QM1", sub_level=level, selector=selector,
                           selector_type=1 if selector else 0, pub_priority=priority,
                           sub_options=(C.MQSO_GROUP_SUB | C.MQSO_SET_CORREL_ID) if grouped else 0)
        sub.destination_correl_id = bytes([group]).ljust(24, b"\0") if grouped else sub.sub_id
        sub.blocked_under = routing.blocks_for(reg, sub)
        reg.put_sub(sub)


def _row(n, spec):
    topic, colour, size, priority, persistence, level = spec
    props = {k: v for k, v in (("Colour", colour), ("Size", size)) if v is not None}
    return {"id": f"p{n}", "topic": topic, "body": f"p{n}", "properties": props, "priority": priority,
            "persistence": persistence, "pub_level": level}


def _online(qm, rows):
    for row in rows:
        md = MQMD(Format=C.MQFMT_STRING,
                  Priority=C.MQPRI_PRIORITY_AS_Q_DEF if row["priority"] is None else row["priority"],
                  Persistence=C.MQPER_PERSISTENCE_AS_Q_DEF if row["persistence"] is None else row["persistence"])
        props = PR.Properties(row["properties"])
        data, md.Format = PR.join(props, row["body"].encode(), C.MQFMT_STRING, md.Encoding, 1208)
        qm.publish(row["topic"], md, data, row["pub_level"])
    out = collections.Counter()
    for queue in QUEUES:
        for msg in qm.registry.messages.contents(queue):
            out[(msg.data.decode(), queue, msg.md.CorrelId.hex(), msg.md.Priority, msg.md.Persistence,
                 msg.md.Expiry)] += 1
    return out


def _pipeline(reg, rows):
    out = collections.Counter()
    for d in routes.route_rows(((row, n) for n, row in enumerate(rows, 1)), reg):
        out[(d["publication_id"], d["destination_queue"], d["correl_id"], d["priority"], d["persistence"],
             d["expiry"])] += 1
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subs=sub_specs, pubs=pub_specs)
def test_the_pipeline_delivers_what_the_queue_manager_delivers(subs, pubs):
    with tempfile.TemporaryDirectory() as tmp:
        qm = QueueManager.open(pathlib.Path(tmp), synchronous="OFF")
        try:
            _registry(qm, subs)
            shipped = definitionsblob.load(definitionsblob.dump(qm.registry))  # what an executor routes against
            rows = [_row(n, spec) for n, spec in enumerate(pubs)]
            expected = _online(qm, rows)
            assert _pipeline(shipped, rows) == expected
        finally:
            qm.shutdown()


def test_rows_are_checked_and_sizes_never_allocated(tmp_path):
    qm = QueueManager.open(tmp_path, synchronous="OFF")
    try:
        reg = qm.registry
        with pytest.raises(routes.PublicationError, match="row 4: no topic"):
            list(routes.route_rows([({"body": "x"}, 4)], reg))
        with pytest.raises(routes.PublicationError, match="size"):
            list(routes.route_rows([({"topic": "t", "size": 10**12}, 0)], reg))
        with pytest.raises(routes.PublicationError, match="timestamp"):
            list(routes.route_rows([({"topic": "t", "timestamp": "yesterday"}, 0)], reg))
        _registry(qm, [("big/#", "PIPE.Q.1", 1, "", None, -3)])
        (d,) = routes.route_rows([({"topic": "big/one", "size": 5_000_000, "id": 7,
                                    "timestamp": "2026-11-23T10:00:00Z"}, 0)], reg)
        assert (d["publication_id"], d["bytes"], d["destination_queue"]) == ("7", 5_000_000, "PIPE.Q.1")
        assert d["timestamp"] == 1795428000.0
    finally:
        qm.shutdown()
