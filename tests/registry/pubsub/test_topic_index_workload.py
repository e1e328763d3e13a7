"""TopicIndex on the shape of issue 24's matching workload (topics of about five levels, "+" at any
level, "#" after any level), against the reference matcher and paho-mqtt's ``MQTTMatcher``, with
subscriptions added and removed between publications; and the compiled probes against the general
loop they replace, swept over every layout up to the compiled limit and beyond."""

import itertools

from hypothesis import given, settings, strategies as st
from paho.mqtt.matcher import MQTTMatcher

from qmlite.pcf import constants as C
from qmlite.registry.pubsub import topics
from tests.support.topicgen import instance_levels

TOPIC = C.MQWS_TOPIC

# Two words a level so that patterns and publications meet often; "" for empty levels.
_word = st.sampled_from(["a", "b", ""])
_level = st.one_of(_word, st.just("+"))


@st.composite
def _filter(draw) -> str:
    """One to six levels of words and "+" (a "+" may stand at every position), then optionally "#";
    now and then a "#" before the last level, which paho refuses but MQ allows (``#/Results``)."""
    levels = draw(st.lists(_level, min_size=0, max_size=6))
    if draw(st.booleans()) or not levels:
        levels.append("#")
    if len(levels) > 1 and draw(st.integers(0, 9)) == 0:
        levels[draw(st.integers(0, len(levels) - 2))] = "#"
    return "/".join(levels)


@st.composite
def _instance(draw, pattern: str) -> str:
    """A publication the pattern selects: "+" one word, "#" zero to two words."""
    out = instance_levels(draw, pattern, _word)
    return "/".join(out) if out else draw(_word)


_random_topic = st.lists(_word, min_size=1, max_size=8).map("/".join)


def _paho_accepts(pattern: str) -> bool:
    return "#" not in pattern.split("/")[:-1]


def _paho_answer(matcher: MQTTMatcher, topic: str) -> set:
    return {key for keys in matcher.iter_match(topic) for key in keys}


@settings(max_examples=300, deadline=None)
@given(st.lists(_filter(), min_size=1, max_size=16),
       st.lists(st.tuples(st.sampled_from(["add", "add", "remove"]), st.integers(0, 15)), min_size=1, max_size=40),
       st.sampled_from([0, 2, 4096]), st.booleans(), st.data())
def test_index_answers_as_the_reference_and_paho_through_adds_and_removes(filters, ops, cache_size, compiled, data):
    index = topics.TopicIndex(cache_size=cache_size)
    index._compiled = compiled  # the general loop must answer as the compiled probes do
    paho = MQTTMatcher()
    live: dict[int, str] = {}
    publications = [data.draw(_instance(f)) for f in filters] + data.draw(st.lists(_random_topic, max_size=4))
    for op, n in ops:
        key, pattern = n, filters[n % len(filters)]
        if op == "add":
            index.add(key, pattern)
            live[key] = pattern
        else:
            index.remove(key, pattern)
            live.pop(key, None)
        paho = MQTTMatcher()  # paho keeps one value per filter: rebuilt with the keys of each
        for k, p in live.items():
            if _paho_accepts(p):
                try:
                    paho[p].add(k)
                except KeyError:
                    paho[p] = {k}
        assert len(index) == len(live)
        triples = [(k, p, TOPIC) for k, p in live.items()]
        only_paho = all(_paho_accepts(p) for p in live.values())
        for topic in publications:
            found = index.match(topic)
            assert isinstance(found, frozenset)
            assert found == set(topics.iter_matching(triples, topic)), (op, n, topic)
            if only_paho:
                assert found == _paho_answer(paho, topic), (op, n, topic)


def _patterns(n: int) -> list[str]:
    """Every layout a topic of ``n`` levels can be looked up in: every set of "+" positions among
    the first five levels and a single "+" at each later one, for each depth up to ``n``, without
    and with a trailing "#"."""
    out = []
    for depth in range(0, n + 1):
        plus_sets = [s for r in range(min(depth, 5) + 1) for s in itertools.combinations(range(min(depth, 5)), r)]
        plus_sets += [(p,) for p in range(5, depth)]
        for plus in plus_sets:
            levels = ["+" if i in plus else f"w{i}" for i in range(depth)]
            if depth == n:
                out.append("/".join(levels))
            if depth <= n:
                out.append("/".join([*levels, "#"]))
    return [p for p in out if p]


def test_compiled_probes_equal_the_general_loop_on_every_layout():
    for n in range(1, topics._UNROLLED + 3):  # the compiled range and two level counts past it
        patterns = _patterns(n)
        general, compiled = topics.TopicIndex(cache_size=0), topics.TopicIndex(cache_size=0)
        general._compiled = False
        for key, pattern in enumerate(patterns):
            general.add(key, pattern)
            compiled.add(key, pattern)
        # The topic every pattern selects, and that topic with each level changed in turn, which
        # drops exactly the patterns with a literal there.
        base = [f"w{i}" for i in range(n)]
        probes = ["/".join(base)] + ["/".join(base[:i] + ["x"] + base[i + 1:]) for i in range(n)]
        for topic in probes:
            levels = topic.split("/")
            hits_general: list = []
            hits_compiled: list = []
            general._plan(levels[0], n)(levels, hits_general)
            compiled._plan(levels[0], n)(levels, hits_compiled)
            assert hits_compiled == hits_general, (n, topic)  # the same hits in the same order
            expected = set(topics.iter_matching([(k, p, TOPIC) for k, p in enumerate(patterns)], topic))
            assert compiled.match(topic) == general.match(topic) == expected, (n, topic)
        assert compiled.match("/".join(base)) == frozenset(range(len(patterns)))  # all of them, so all compared


def test_plans_follow_tables_coming_and_going():
    index = topics.TopicIndex(cache_size=0)
    index.add("a", "x/+/z")
    assert index.match("x/y/z") == {"a"}
    index.add("b", "x/y/+")  # a new shape under a planned first level: the plan must see it
    assert index.match("x/y/z") == {"a", "b"}
    index.remove("a", "x/+/z")  # its table goes: the plan must stop looking there
    assert index.match("x/y/z") == {"b"}
    index.add("c", "+/y/z")  # a leading "+" applies under every first level
    assert index.match("x/y/z") == {"b", "c"} and index.match("q/y/z") == {"c"}
    index.remove("b", "x/y/+")
    index.remove("c", "+/y/z")
    assert index.match("x/y/z") == set() and not index._shaped and index._plans == {}


def test_a_shared_bucket_answers_from_its_frozen_copy_until_it_changes():
    index = topics.TopicIndex(cache_size=0)  # no result cache: the copy is the bucket's own
    for key in range(100):
        index.add(key, "prices/eur/+")
    first = index.match("prices/eur/spot")
    assert first == frozenset(range(100)) and index.match("prices/eur/spot") is first
    index.add(100, "prices/eur/+")
    assert index.match("prices/eur/spot") == frozenset(range(101))
    index.remove(0, "prices/eur/+")
    assert index.match("prices/eur/spot") == frozenset(range(1, 101))
    assert first == frozenset(range(100))  # an answer given out never changes
    for key in range(1, 100):
        index.remove(key, "prices/eur/+")
    assert index.match("prices/eur/spot") == {100}


def test_plans_of_very_long_topics_are_not_kept():
    index = topics.TopicIndex(cache_size=0)
    index.add("a", "x/+/#")
    long_topic = "x/" + "/".join(["y"] * 5000)
    assert index.match(long_topic) == {"a"} and index.match(long_topic) == {"a"}
    assert all(len(by_count) <= topics._KEPT_LEVELS + 1 for by_count in index._plans.values())
    assert index.match("x/y") == {"a"} and index._plans["x"][2] is not None  # short ones are
