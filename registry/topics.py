"""Topic strings and the two MQ wildcard schemes, plus an index that finds every matching pattern.

Topic-based scheme (WSCHEMA TOPIC, MQSO_WILDCARD_TOPIC): levels are split on "/"; a level that is
exactly "#" matches zero or more levels and may stand anywhere (IBM's example ``#/Results``); a level
that is exactly "+" matches one level; "#" or "+" next to other characters in a level is literal.
Character-based scheme (WSCHEMA CHAR): "*" matches zero or more characters, "?" one character, and
"%" escapes "*", "?" and "%" (IBM: a "%" must always be followed by one of those three).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Iterable

from qmlite.pcf import constants as C

SEPARATOR = "/"
MULTI = "#"
SINGLE = "+"
MAX_LENGTH = C.MQ_TOPIC_STR_LENGTH


class TopicError(ValueError):
    """A topic string or pattern that MQ would refuse (maps to MQRC_TOPIC_STRING_ERROR)."""


def combine(object_string: str, topic_string: str) -> str:
    """Full topic string of a subscription: the topic object's string, "/", then TopicString."""
    if object_string and topic_string:
        return object_string + SEPARATOR + topic_string
    return object_string or topic_string


def has_topic_wildcards(pattern: str) -> bool:
    return any(level in (MULTI, SINGLE) for level in pattern.split(SEPARATOR))


def check_char_pattern(pattern: str) -> None:
    i = 0
    while i < len(pattern):
        if pattern[i] == "%":
            if i + 1 >= len(pattern) or pattern[i + 1] not in "*?%":
                raise TopicError(f"'%' must escape '*', '?' or '%' at {i}")
            i += 2
        else:
            i += 1


def has_char_wildcards(pattern: str) -> bool:
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "%":
            i += 2
            continue
        if c in "*?":
            return True
        i += 1
    return False


@functools.lru_cache(maxsize=4096)
def _char_regex(pattern: str) -> re.Pattern[str]:
    check_char_pattern(pattern)
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "%":
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c == "*" else "." if c == "?" else re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _levels_match(pattern: tuple[str, ...], levels: tuple[str, ...]) -> bool:
    # Iterative matcher with backtracking over the last "#", like a glob over levels.
    p = t = 0
    star_p, star_t = -1, 0
    while t < len(levels):
        if p < len(pattern) and pattern[p] == MULTI:
            star_p, star_t = p, t
            p += 1
        elif p < len(pattern) and (pattern[p] == SINGLE or pattern[p] == levels[t]):
            p += 1
            t += 1
        elif star_p >= 0:
            star_t += 1
            t = star_t
            p = star_p + 1
        else:
            return False
    while p < len(pattern) and pattern[p] == MULTI:
        p += 1
    return p == len(pattern)


def matches(pattern: str, topic: str, schema: int = C.MQWS_TOPIC) -> bool:
    """Does a subscription's topic string select a publication's topic string?"""
    if schema == C.MQWS_CHAR:
        return _char_regex(pattern).fullmatch(topic) is not None
    if pattern == topic:
        return True
    return _levels_match(tuple(pattern.split(SEPARATOR)), tuple(topic.split(SEPARATOR)))


class _Node:
    __slots__ = ("children", "keys")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.keys: set[Hashable] = set()


class _Keys(set):
    """Several subscriptions on one exact topic (one key alone is stored bare, saving a set each)."""

    __slots__ = ()


class TopicIndex:
    """Patterns (topic or character scheme) keyed by an id; ``match(topic)`` returns the matching ids.

    Exact topic strings are one dict lookup; topic-scheme wildcards live in a level trie walked once
    per publication; character-scheme patterns with wildcards are few in practice and scanned.  The
    caller says what it indexed when it removes an entry, so no reverse map of a million keys is kept.
    """

    def __init__(self) -> None:
        self._exact: dict[str, object] = {}
        self._root = _Node()
        self._char: dict[Hashable, re.Pattern[str]] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, key: Hashable, pattern: str, schema: int = C.MQWS_TOPIC) -> None:
        if schema != C.MQWS_CHAR and "#" not in pattern and "+" not in pattern:
            self._add_exact(pattern, key)  # the common case, without splitting the string
        elif schema == C.MQWS_CHAR and has_char_wildcards(pattern):
            self._char[key] = _char_regex(pattern)
        elif schema == C.MQWS_CHAR:
            self._add_exact(_unescape(pattern), key)
        elif has_topic_wildcards(pattern):
            node = self._root
            for level in pattern.split(SEPARATOR):
                node = node.children.setdefault(level, _Node())
            node.keys.add(key)
        else:
            self._add_exact(pattern, key)
        self._count += 1

    def _add_exact(self, topic: str, key: Hashable) -> None:
        current = self._exact.get(topic)
        if current is None:
            self._exact[topic] = key
        elif type(current) is _Keys:
            current.add(key)  # type: ignore[union-attr]
        else:
            self._exact[topic] = _Keys((current, key))

    def remove(self, key: Hashable, pattern: str, schema: int = C.MQWS_TOPIC) -> None:
        """Forget ``key``, indexed under ``pattern``/``schema``; unknown entries are ignored."""
        if schema == C.MQWS_CHAR and has_char_wildcards(pattern):
            if self._char.pop(key, None) is not None:
                self._count -= 1
            return
        exact = _unescape(pattern) if schema == C.MQWS_CHAR else pattern
        current = self._exact.get(exact)
        if current is not None:
            if type(current) is _Keys:
                if key in current:  # type: ignore[operator]
                    current.discard(key)  # type: ignore[union-attr]
                    if len(current) == 1:  # type: ignore[arg-type]
                        self._exact[exact] = next(iter(current))  # type: ignore[call-overload]
                    self._count -= 1
                    return
            elif current == key:
                del self._exact[exact]
                self._count -= 1
                return
        levels = pattern.split(SEPARATOR)
        path = [self._root]
        for level in levels:
            node = path[-1].children.get(level)
            if node is None:
                return
            path.append(node)
        if key not in path[-1].keys:
            return
        path[-1].keys.discard(key)
        self._count -= 1
        for depth in range(len(levels), 0, -1):  # prune empty branches so the trie does not grow forever
            node = path[depth]
            if node.keys or node.children:
                break
            del path[depth - 1].children[levels[depth - 1]]

    def match(self, topic: str) -> set[Hashable]:
        hit = self._exact.get(topic)
        found: set[Hashable] = set() if hit is None else set(hit) if type(hit) is _Keys else {hit}
        if self._root.children:
            self._walk(self._root, topic.split(SEPARATOR), 0, found)
        for key, regex in self._char.items():
            if regex.fullmatch(topic):
                found.add(key)
        return found

    def _walk(self, node: _Node, levels: list[str], i: int, found: set[Hashable]) -> None:
        children = node.children
        multi = children.get(MULTI)
        if i == len(levels):
            found.update(node.keys)
            if multi is not None:
                self._walk(multi, levels, i, found)
            return
        if multi is not None:
            for j in range(i, len(levels) + 1):  # "#" swallows zero or more levels
                self._walk(multi, levels, j, found)
        single = children.get(SINGLE)
        if single is not None:
            self._walk(single, levels, i + 1, found)
        child = children.get(levels[i])
        if child is not None:
            self._walk(child, levels, i + 1, found)


def _unescape(pattern: str) -> str:
    return re.sub(r"%([*?%])", r"\1", pattern)


def validate(topic: str, *, allow_wildcards: bool = True) -> None:
    if len(topic) > MAX_LENGTH:
        raise TopicError(f"topic string longer than {MAX_LENGTH}")
    if "\x00" in topic:
        raise TopicError("topic string contains NUL")
    if not allow_wildcards and has_topic_wildcards(topic):
        raise TopicError("wildcards are not allowed here")


def iter_matching(patterns: Iterable[tuple[Hashable, str, int]], topic: str) -> Iterable[Hashable]:
    """Reference matcher over (key, pattern, schema) triples: what TopicIndex.match must agree with."""
    for key, pattern, schema in patterns:
        if matches(pattern, topic, schema):
            yield key
