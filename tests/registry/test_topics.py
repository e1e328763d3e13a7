"""Topic wildcard semantics (IBM's documented examples) and the routing index's agreement with them."""

import pytest
from hypothesis import given, settings, strategies as st

from qmlite.pcf import constants as C
from qmlite.registry import topics as T

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
    assert T.matches(pattern, topic, TOPIC) is expected
    index = T.TopicIndex()
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
    assert T.matches(pattern, topic, CHAR) is expected
    index = T.TopicIndex()
    index.add(1, pattern, CHAR)
    assert (index.match(topic) == {1}) is expected


def test_bad_escape_is_refused():
    with pytest.raises(T.TopicError):
        T.check_char_pattern("AB%C")
    with pytest.raises(T.TopicError):
        T.check_char_pattern("AB%")


def test_combine_object_and_string():
    assert T.combine("dev", "x/y") == "dev/x/y"
    assert T.combine("", "x") == "x"
    assert T.combine("dev", "") == "dev"


def test_exact_topics_shared_by_several_keys():
    index = T.TopicIndex()
    for key in "abc":
        index.add(key, "same/topic")
    assert index.match("same/topic") == {"a", "b", "c"}
    index.remove("b", "same/topic")
    index.remove("c", "same/topic")
    assert index.match("same/topic") == {"a"} and len(index) == 1


def test_remove_prunes_and_forgets():
    index = T.TopicIndex()
    index.add("a", "x/+/z")
    index.add("b", "x/y/z")
    index.add("c", "x/#")
    assert index.match("x/y/z") == {"a", "b", "c"}
    index.remove("a", "x/+/z")
    index.remove("c", "x/#")
    assert index.match("x/y/z") == {"b"}
    assert index._root.children == {}  # the wildcard branch is gone entirely
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
    index = T.TopicIndex()
    triples = [(i, p, TOPIC) for i, p in enumerate(patterns)]
    for key, pattern, schema in triples:
        index.add(key, pattern, schema)
    for topic in topics_:
        assert index.match(topic) == set(T.iter_matching(triples, topic))
    for key, pattern, schema in triples[::2]:
        index.remove(key, pattern, schema)
    remaining = triples[1::2]
    for topic in topics_:
        assert index.match(topic) == set(T.iter_matching(remaining, topic))
