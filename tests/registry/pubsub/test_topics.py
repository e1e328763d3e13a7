"""Topic wildcard semantics (IBM's documented examples) and the routing index's agreement with them."""

import pytest
from hypothesis import given, settings, strategies as st

from qmlite.pcf import constants as C
from qmlite.registry.pubsub import topics
from tests.support.topicgen import instance_levels

TOPIC, CHAR = C.MQWS_TOPIC, C.MQWS_CHAR


@pytest.mark.parametrize(
    "pattern, topic, expected",
    [
        ("IBM/+/Results", "IBM/Software/Results", True),  # IBM's examples
        ("IBM/+/Results", "IBM/Software/Sub/Results", False),
        ("#/Results", "IBM/Software/Results", True),
        ("#/Results", "Results", True),
        ("USA/Alaska/#", "USA/Alaska", True),  # '#' matches zero levels
        ("USA/Alaska/#", "USA/Alaska/Juneau", True),
        ("USA/#", "USA", True),
        ("USA/#", "USAX", False),
        ("#", "anything/at/all", True),
        ("+", "one", True),
        ("+", "one/two", False),
        ("+/+", "/finance", True),  # a leading '/' makes an empty first level
        ("/+", "/finance", True),
        ("+", "/finance", False),
        ("a/#/b", "a/b", True),
        ("a/#/b", "a/x/y/b", True),
        ("a/#/b", "a/x/y/c", False),
        ("a/b#", "a/b#", True),  # '#' next to other characters is literal
        ("a/b#", "a/bc", False),
        ("a/+b", "a/xb", False),
        ("price/fruit", "price/fruit", True),
        ("price/fruit", "price/fruits", False),
    ],
)
def test_topic_scheme(pattern, topic, expected):
    assert topics.matches(pattern, topic, TOPIC) is expected
    index = topics.TopicIndex()
    index.add("k", pattern, TOPIC)
    assert (index.match(topic) == {"k"}) is expected


@pytest.mark.parametrize(
    "pattern, topic, expected",
    [
        ("IBM/*ware/Results", "IBM/Software/Results", True),  # IBM's example
        ("Sport/*", "Sport/Soccer/Results", True),  # '*' crosses '/'
        ("Sport/?olf", "Sport/Golf", True),
        ("Sport/?olf", "Sport/olf", False),
        ("ABC%*D", "ABC*D", True),  # '%' escapes
        ("ABC%*D", "ABCxD", False),
        ("A%%B", "A%B", True),
        ("plain", "plain", True),
    ],
)
def test_char_scheme(pattern, topic, expected):
    assert topics.matches(pattern, topic, CHAR) is expected
    index = topics.TopicIndex()
    index.add(1, pattern, CHAR)
    assert (index.match(topic) == {1}) is expected


def test_bad_escape_is_refused():
    with pytest.raises(topics.TopicError):
        topics.check_char_pattern("AB%C")
    with pytest.raises(topics.TopicError):
        topics.check_char_pattern("AB%")


def test_combine_object_and_string():
    assert topics.combine("dev", "x/y") == "dev/x/y"
    assert topics.combine("", "x") == "x"
    assert topics.combine("dev", "") == "dev"


def test_exact_topics_shared_by_several_keys():
    index = topics.TopicIndex()
    for key in "abc":
        index.add(key, "same/topic")
    assert index.match("same/topic") == {"a", "b", "c"}
    index.remove("b", "same/topic")
    index.remove("c", "same/topic")
    assert index.match("same/topic") == {"a"} and len(index) == 1


def test_remove_prunes_and_forgets():
    index = topics.TopicIndex()
    index.add("a", "x/+/z")
    index.add("b", "x/y/z")
    index.add("c", "x/#")
    index.add("d", "+/y/#")
    assert index.match("x/y/z") == {"a", "b", "c", "d"}
    index.remove("a", "x/+/z")
    index.remove("c", "x/#")
    index.remove("d", "+/y/#")
    assert index.match("x/y/z") == {"b"}
    assert index._parts == {} and index._lead == {} and index._plans == {}  # no empty table is looked up
    index.remove("b", "x/y/z")
    index.add("b", "other")
    assert index.match("x/y/z") == set() and index.match("other") == {"b"}
    assert len(index) == 1
    index.remove("b", "nowhere")  # unknown entries are ignored
    assert len(index) == 1


_level = st.sampled_from(["a", "b", "c", "", "+", "#", "a#"])
_pattern = st.lists(_level, min_size=1, max_size=5).map("/".join)
_topic = st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=1, max_size=6).map("/".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_pattern, min_size=1, max_size=12), st.lists(_topic, min_size=1, max_size=8))
def test_index_agrees_with_reference_matcher(patterns, topics_):
    index = topics.TopicIndex()
    triples = [(i, p, TOPIC) for i, p in enumerate(patterns)]
    for key, pattern, schema in triples:
        index.add(key, pattern, schema)
    for topic in topics_:
        assert index.match(topic) == set(topics.iter_matching(triples, topic))
    for key, pattern, schema in triples[::2]:
        index.remove(key, pattern, schema)
    remaining = triples[1::2]
    for topic in topics_:
        assert index.match(topic) == set(topics.iter_matching(remaining, topic))


def test_trie_for_inner_multi_prunes():
    index = topics.TopicIndex()
    index.add("a", "x/#/z")
    index.add("b", "#/z/#/q")
    assert index.match("x/y/y/z") == {"a"} and index.match("z/q") == {"b"}
    index.remove("a", "x/#/z")
    index.remove("b", "#/z/#/q")
    assert index._root.children == {}  # the branch is gone entirely
    assert index.match("x/z") == set() and len(index) == 0


def test_match_result_is_a_snapshot():
    index = topics.TopicIndex()
    index.add("a", "x/+")
    first = index.match("x/y")
    assert isinstance(first, frozenset)  # a cached result is shared, so nobody may change it
    index.add("b", "x/y")
    assert first == {"a"} and index.match("x/y") == {"a", "b"}
    index.remove("a", "x/+")
    assert first == {"a"} and index.match("x/y") == {"b"}


def test_cache_is_bounded():
    index = topics.TopicIndex(cache_size=3)
    index.add("a", "#")
    for i in range(10):
        assert index.match(f"t{i}") == {"a"}
        assert len(index._cache) <= 3
    assert topics.TopicIndex(cache_size=0)._cache is None


def test_plans_are_bounded():
    index = topics.TopicIndex(cache_size=0)
    index.add("a", "+/x")
    for i in range(topics._PLANS + 10):  # every publication under a first level of its own
        assert index.match(f"p{i}/x") == {"a"}
    assert 0 < len(index._plans) <= topics._PLANS


def test_adding_twice_counts_once():
    index = topics.TopicIndex()
    for pattern, schema in [("x/y", TOPIC), ("x/+", TOPIC), ("#/y", TOPIC), ("x*", CHAR), ("x%*", CHAR)]:
        index.add("k", pattern, schema)
        index.add("k", pattern, schema)
    assert len(index) == 5
    assert index.match("x/y") == {"k"}
    for pattern, schema in [("x/y", TOPIC), ("x/+", TOPIC), ("#/y", TOPIC), ("x*", CHAR), ("x%*", CHAR)]:
        index.remove("k", pattern, schema)
    assert len(index) == 0 and index.match("x/y") == set()


# Small alphabets so that patterns and topics meet often: wildcard levels, levels where "+" and "#"
# are literal, and empty levels (leading, trailing and doubled "/").
_any_level = st.sampled_from(["a", "b", "", "+", "#", "a+b", "#x", "+a"])
_topic_pattern = st.lists(_any_level, min_size=1, max_size=6).map("/".join)
_char_pattern = st.lists(st.sampled_from(["a", "b", "/", "*", "?", "%*", "%%", "+", "#"]), max_size=6).map("".join)
# Short patterns of two words, "+" and an optional trailing "#", so that several shapes of one
# length select the same topic.
_dense_pattern = st.tuples(st.lists(st.sampled_from(["a", "b", "+"]), min_size=1, max_size=3),
                           st.sampled_from(["", "/#"])).map(lambda t: "/".join(t[0]) + t[1])
_entry = st.one_of(st.tuples(_topic_pattern, st.just(TOPIC)), st.tuples(_dense_pattern, st.just(TOPIC)),
                   st.tuples(_char_pattern, st.just(CHAR)))
_published = st.lists(st.sampled_from(["a", "b", "", "a+b", "#x", "+a", "*"]), min_size=1, max_size=7).map("/".join)
_cache_size = st.sampled_from([0, 1, 3, 4096])
_filler = st.sampled_from(["a", "b", "", "c"])


@st.composite
def _instance(draw, pattern: str) -> str:
    """A topic that a topic-scheme pattern selects: each "+" one level, each "#" zero to two levels,
    so that random sets of patterns have topics matching several of them at once."""
    return "/".join(instance_levels(draw, pattern, _filler) or [""])


@settings(max_examples=400, deadline=None)
@given(st.lists(_entry, min_size=1, max_size=20), st.lists(_published, min_size=1, max_size=10), _cache_size,
       st.data())
def test_index_agrees_with_reference_on_random_sets(entries, published, cache_size, data):
    index = topics.TopicIndex(cache_size=cache_size)
    triples = [(i, p, s) for i, (p, s) in enumerate(entries)]
    published = published + [data.draw(_instance(p)) for p, s in entries if s == TOPIC]
    for triple in triples:
        index.add(*triple)
    assert len(index) == len(triples)
    for topic in published + published:  # the second pass is answered from the cache, if any
        assert index.match(topic) == set(topics.iter_matching(triples, topic)), topic


# An operation: ("add" | "remove", entry number), or ("stray", entry number, pattern) to remove an
# entry under a topic pattern it was not indexed under, which must change nothing.
_op = st.one_of(
    st.tuples(st.sampled_from(["add", "remove"]), st.integers(0, 7)),
    st.tuples(st.just("stray"), st.integers(0, 7), _topic_pattern),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_entry, min_size=8, max_size=8), st.lists(_op, max_size=40),
       st.lists(_published, min_size=1, max_size=6), _cache_size, st.data())
def test_index_agrees_with_reference_through_adds_and_removes(entries, ops, published, cache_size, data):
    index = topics.TopicIndex(cache_size=cache_size)
    published = published + [data.draw(_instance(p)) for p, s in entries if s == TOPIC]
    live: dict[int, tuple[str, int]] = {}
    for op in ops:
        key = op[1]
        pattern, schema = entries[key]
        if op[0] == "add":
            index.add(key, pattern, schema)
            live[key] = (pattern, schema)
        elif op[0] == "remove":
            index.remove(key, pattern, schema)
            live.pop(key, None)
        elif schema == TOPIC and op[2] != pattern:  # a character-scheme wildcard is removed by key alone
            index.remove(key, op[2], TOPIC)
        assert len(index) == len(live)
        triples = [(k, p, s) for k, (p, s) in live.items()]
        for topic in published:
            assert index.match(topic) == set(topics.iter_matching(triples, topic)), (op, topic)
