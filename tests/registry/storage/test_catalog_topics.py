"""The topic tree walk (registry/storage/catalog.py ``topic_nodes``): looking up only the depths some
administered topic string has finds exactly what looking up every depth finds, as topic objects come
and go."""

from __future__ import annotations

import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from qmlite.registry.objects.definitions import Topic
from qmlite.registry.pubsub import topics
from qmlite.registry.storage.catalog import Registry

LEVEL = st.sampled_from(["a", "b", "", "c"])  # "" too: a//b has an empty level
STRINGS = st.lists(LEVEL, min_size=1, max_size=5).map(topics.SEPARATOR.join)


def every_depth(reg, topic_string: str) -> list[str]:
    """The walk as it was: a join and a lookup at each level, then SYSTEM.BASE.TOPIC."""
    levels = topic_string.split(topics.SEPARATOR) if topic_string else []
    found = [reg.topics_by_string.get(topics.SEPARATOR.join(levels[:d])) for d in range(len(levels), 0, -1)]
    found.append(reg.topics_by_string.get(""))
    return [t.name for t in found if t is not None]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), STRINGS), max_size=12), st.lists(STRINGS, min_size=1, max_size=8))
def test_the_walk_finds_what_a_lookup_at_every_depth_finds(changes, asked):
    with tempfile.TemporaryDirectory() as tmp:
        reg = Registry.open(tmp, "QM1", synchronous="NORMAL")
        try:
            for n, (add, string) in enumerate(changes):
                for q in asked:  # asked between changes too: a depth remembered must not outlive them
                    assert [t.name for t in reg.topic_nodes(q)] == every_depth(reg, q)
                if add:
                    reg.put_topic(Topic(f"T.{n}", string))
                else:
                    for t in [t for t in reg.topics.values() if t.topic_string == string]:
                        reg.remove_topic(t)
            for q in asked:
                assert [t.name for t in reg.topic_nodes(q)] == every_depth(reg, q)
        finally:
            reg.close()


def test_a_deep_topic_object_is_found_once_one_exists(tmp_path):
    reg = Registry.open(tmp_path, "QM1", synchronous="NORMAL")
    try:
        assert [t.topic_string for t in reg.topic_nodes("x/y/z/w")] == [""]  # only SYSTEM.BASE.TOPIC
        reg.put_topic(Topic("DEEP", "x/y/z"))
        assert [t.name for t in reg.topic_nodes("x/y/z/w")] == ["DEEP", "SYSTEM.BASE.TOPIC"]
        reg.remove_topic(reg.topics["DEEP"])
        assert [t.name for t in reg.topic_nodes("x/y/z/w")] == ["SYSTEM.BASE.TOPIC"]
    finally:
        reg.close()
