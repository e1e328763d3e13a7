"""Topic strings and the two MQ wildcard schemes, plus an index that finds every matching pattern.

Topic-based scheme (WSCHEMA TOPIC, MQSO_WILDCARD_TOPIC): levels are split on "/"; a level that is
exactly "#" matches zero or more levels and may stand anywhere (IBM's example ``#/Results``); a level
that is exactly "+" matches one level; "#" or "+" next to other characters in a level is literal.
Character-based scheme (WSCHEMA CHAR): "*" matches zero or more characters, "?" one character, and
"%" escapes "*", "?" and "%" (IBM: a "%" must always be followed by one of those three).
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Hashable, Iterable

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
    """Several subscriptions on one key of a table (one key alone is stored bare, saving a set each).

    ``frozen`` is a frozenset of the same keys, made by the first publication that finds the bucket
    alone and kept until the bucket changes: a topic with a thousand subscribers (or a "#" near the
    root) then answers without copying a thousand keys, each copy touching every key object."""

    __slots__ = ("frozen",)

    def __init__(self, keys: Iterable[Hashable]) -> None:
        super().__init__(keys)
        self.frozen: frozenset | None = None

    def snapshot(self) -> frozenset:
        frozen = self.frozen
        if frozen is None:
            frozen = self.frozen = frozenset(self)
        return frozen


def _put(table: dict, where: Hashable, key: Hashable) -> bool:
    """File ``key`` under ``where``; False when it already was (so the count stays right)."""
    current = table.get(where)
    if current is None:
        table[where] = key
    elif type(current) is _Keys:
        if key in current:  # type: ignore[operator]
            return False
        current.add(key)  # type: ignore[union-attr]
        current.frozen = None  # type: ignore[union-attr]
    elif current == key:
        return False
    else:
        table[where] = _Keys((current, key))
    return True


def _drop(table: dict, where: Hashable, key: Hashable) -> bool:
    """Take ``key`` out from under ``where``; False when it was not there."""
    current = table.get(where)
    if current is None:
        return False
    if type(current) is _Keys:
        if key not in current:  # type: ignore[operator]
            return False
        current.discard(key)  # type: ignore[union-attr]
        current.frozen = None  # type: ignore[union-attr]
        if len(current) == 1:  # type: ignore[arg-type]
            table[where] = next(iter(current))  # type: ignore[call-overload]
    elif current == key:
        del table[where]
    else:
        return False
    return True


_Shape = tuple[int, tuple[int, ...], bool]  # levels before an optional trailing "#", "+" positions, "#"


def _shape_of(levels: list[str]) -> _Shape | None:
    """The shape of a wildcard pattern; None when a "#" stands before the last level, which no fixed
    shape can express."""
    multi = levels[-1] == MULTI
    depth = len(levels) - 1 if multi else len(levels)
    if MULTI in levels[:depth]:
        return None
    return depth, tuple(i for i in range(depth) if levels[i] == SINGLE), multi


def _no_literals(levels: list[str]) -> tuple[()]:
    return ()


def _literals(shape: _Shape) -> tuple[int, ...]:
    """What tells apart the patterns of one shape and one first level: the positions of their other
    literal levels."""
    depth, plus, _ = shape
    return tuple(i for i in range(1, depth) if i not in plus)


@functools.lru_cache(maxsize=1024)
def _getter(shape: _Shape) -> Callable[[list[str]], Hashable]:
    """The key of a pattern of ``shape`` in its table: its literal levels after the first.  Applied
    alike to a pattern's and a topic's levels, so itemgetter's bare level for a single position is
    as good a key as a 1-tuple."""
    literal = _literals(shape)
    return operator.itemgetter(*literal) if literal else _no_literals


_Probe = Callable[[list[str], list], None]  # looks a topic's levels up in a plan's tables, appends the hits
_UNROLLED = 16  # level counts up to which a plan is compiled into straight-line code


@functools.lru_cache(maxsize=1024)
def _compiled(n: int, keys: tuple[tuple[int, ...], ...]) -> Callable[..., _Probe]:
    """A probe for topics of ``n`` levels over tables keyed by the literal positions ``keys``: the
    levels unpacked into locals once and each key built in place, as ``_getter`` would build it,
    instead of a loop calling one itemgetter per table (a tenth of the look-ups' time).  The
    source holds only level numbers, never a topic or pattern string.  Compiled once per layout
    (first levels share them: the same few shapes recur under every first level), bound to the
    tables of each (first level, level count) by the returned function."""
    tables = ", ".join(f"t{j}" for j in range(len(keys)))
    lines = [f"def bind({tables}):",
             "    def probe(levels, hits):",
             "        " + "".join(f"l{i}, " for i in range(n)) + "= levels"]
    for j, literal in enumerate(keys):
        key = f"l{literal[0]}" if len(literal) == 1 else "(" + "".join(f"l{i}, " for i in literal) + ")"
        lines += [f"        hit = t{j}.get({key})",
                  "        if hit is not None:",
                  "            hits.append(hit)"]
    lines.append("    return probe")
    namespace: dict = {}
    exec(compile("\n".join(lines), f"<topic probe {n} {keys}>", "exec"), namespace)  # noqa: S102
    return namespace["bind"]


def _looping(pairs: tuple[tuple[Callable[[list[str]], Hashable], dict], ...]) -> _Probe:
    """The general probe, for topics of more levels than are worth compiling for."""
    def probe(levels: list[str], hits: list) -> None:
        for getter, table in pairs:
            hit = table.get(getter(levels))
            if hit is not None:
                hits.append(hit)
    return probe


def _no_probe(levels: list[str], hits: list) -> None:
    pass


def _probe(n: int, shapes: list[tuple[_Shape, dict]], compiled: bool = True) -> _Probe:
    """What a topic of ``n`` levels looks up in ``shapes``' tables; ``compiled=False`` gives the
    general loop, which the compiled probe must equal (tests compare the two)."""
    if not shapes:
        return _no_probe
    if compiled and n <= _UNROLLED:
        return _compiled(n, tuple(_literals(shape) for shape, _ in shapes))(*(table for _, table in shapes))
    return _looping(tuple((_getter(shape), table) for shape, table in shapes))


_Tables = dict[_Shape, dict[Hashable, object]]
_PLANS = 4096  # first levels whose plans are kept
_KEPT_LEVELS = 64  # level counts up to which a plan is kept (a topic string may hold thousands of "/")


_EMPTY: frozenset = frozenset()


class TopicIndex:
    """Patterns (topic or character scheme) keyed by an id; ``match(topic)`` returns the matching ids.

    Exact topic strings are one dict lookup.  Topic-scheme wildcards are grouped by first level, then
    by shape (levels before an optional trailing "#" and the positions of "+"): the patterns of one
    group differ only in their other literal levels, which key one dict, so a publication costs one
    lookup per shape under its first level and under a leading "+", however many subscriptions do
    not match it.  Splitting by first level keeps the tables a publication touches small when most
    subscriptions are on other branches of the tree: a lookup in a table of a million entries misses
    the CPU caches and costs several times one in a small table.  What a topic of a given first
    level and level count looks up is planned once and compiled into straight-line code per layout
    of literal positions (``_compiled``).  The rare patterns with a "#" before their last level
    live in a level trie; character-scheme patterns with wildcards are few in practice and scanned.
    The caller says what it indexed when it removes an entry, so no reverse map of a million keys
    is kept.

    Results of the last ``cache_size`` distinct topics are kept (0: none), and forgotten on any
    change, because publishers tend to reuse a few topic strings.  ``match`` returns a frozenset
    since a cached result is shared between callers.
    """

    def __init__(self, cache_size: int = 4096) -> None:
        self._exact: dict[str, object] = {}
        self._parts: dict[str, _Tables] = {}  # first level -> its wildcards by shape
        self._lead: _Tables = {}  # wildcards whose first level is "+", and "#" alone
        self._plans: dict[str, list[_Probe | None]] = {}  # what a topic's first level looks up, by level count
        self._root = _Node()
        self._char: dict[Hashable, re.Pattern[str]] = {}
        self._count = 0
        # Whether match has shape tables to look in, and a trie or character patterns to scan: kept
        # by add and remove so that a publication reads two flags instead of four containers.
        self._shaped = False
        self._scanned = False
        self._compiled = True  # False: the general probe loop (tests compare the two)
        self._cache_size = cache_size
        self._cache: dict[str, frozenset] | None = {} if cache_size > 0 else None

    def __len__(self) -> int:
        return self._count

    def add(self, key: Hashable, pattern: str, schema: int = C.MQWS_TOPIC) -> None:
        if self._cache:
            self._cache.clear()
        if schema != C.MQWS_CHAR and "#" not in pattern and "+" not in pattern:
            added = _put(self._exact, pattern, key)  # the common case, without splitting the string
        elif schema == C.MQWS_CHAR and has_char_wildcards(pattern):
            added = key not in self._char
            self._char[key] = _char_regex(pattern)
        elif schema == C.MQWS_CHAR:
            added = _put(self._exact, _unescape(pattern), key)
        else:
            levels = pattern.split(SEPARATOR)
            shape = _shape_of(levels) if MULTI in levels or SINGLE in levels else None
            if shape is not None:
                first = levels[0]
                if first == SINGLE or first == MULTI:
                    tables = self._lead
                else:
                    tables = self._parts.get(first)
                    if tables is None:
                        tables = self._parts[first] = {}
                table = tables.get(shape)
                if table is None:
                    table = tables[shape] = {}
                    self._plans.clear()
                added = _put(table, _getter(shape)(levels), key)
            elif MULTI in levels:
                added = self._add_trie(levels, key)
            else:
                added = _put(self._exact, pattern, key)
        self._count += added
        self._flag()

    def remove(self, key: Hashable, pattern: str, schema: int = C.MQWS_TOPIC) -> None:
        """Forget ``key``, indexed under ``pattern``/``schema``; unknown entries are ignored."""
        if self._cache:
            self._cache.clear()
        if schema == C.MQWS_CHAR and has_char_wildcards(pattern):
            removed = self._char.pop(key, None) is not None
        elif schema == C.MQWS_CHAR:
            removed = _drop(self._exact, _unescape(pattern), key)
        elif "#" not in pattern and "+" not in pattern:
            removed = _drop(self._exact, pattern, key)
        else:
            levels = pattern.split(SEPARATOR)
            shape = _shape_of(levels) if MULTI in levels or SINGLE in levels else None
            if shape is not None:
                first = levels[0]
                tables = self._lead if first == SINGLE or first == MULTI else self._parts.get(first)
                table = None if tables is None else tables.get(shape)
                removed = table is not None and _drop(table, _getter(shape)(levels), key)
                if removed and not table:
                    del tables[shape]  # type: ignore[union-attr]
                    self._plans.clear()
                    if not tables and tables is not self._lead:
                        del self._parts[first]
            elif MULTI in levels:
                removed = self._remove_trie(levels, key)
            else:
                removed = _drop(self._exact, pattern, key)
        self._count -= removed
        self._flag()

    def _flag(self) -> None:
        self._shaped = bool(self._parts or self._lead)
        self._scanned = bool(self._root.children or self._char)

    def _add_trie(self, levels: list[str], key: Hashable) -> bool:
        node = self._root
        for level in levels:
            node = node.children.setdefault(level, _Node())
        if key in node.keys:
            return False
        node.keys.add(key)
        return True

    def _remove_trie(self, levels: list[str], key: Hashable) -> bool:
        path = [self._root]
        for level in levels:
            node = path[-1].children.get(level)
            if node is None:
                return False
            path.append(node)
        if key not in path[-1].keys:
            return False
        path[-1].keys.discard(key)
        for depth in range(len(levels), 0, -1):  # prune empty branches so the trie does not grow forever
            node = path[depth]
            if node.keys or node.children:
                break
            del path[depth - 1].children[levels[depth - 1]]
        return True

    def match(self, topic: str) -> frozenset[Hashable]:
        cache = self._cache
        if cache is not None:
            found = cache.get(topic)
            if found is not None:
                return found
        hit = self._exact.get(topic)
        hits = [] if hit is None else [hit]
        if self._shaped:
            levels = topic.split(SEPARATOR)
            # The plan of a first level is a list indexed by level count: no tuple to build and hash.
            by_count = self._plans.get(levels[0])
            n = len(levels)
            plan = by_count[n] if by_count is not None and n < len(by_count) else None
            if plan is None:
                plan = self._plan(levels[0], n)
            plan(levels, hits)
        if self._scanned:
            found = self._gather(hits, topic)
        elif not hits:
            found = _EMPTY
        elif len(hits) == 1:
            hit = hits[0]
            found = hit.snapshot() if type(hit) is _Keys else frozenset((hit,))
        else:
            found = self._gather(hits, topic)
        if cache is not None:
            if len(cache) >= self._cache_size:
                # Starting afresh is O(1) per entry, unlike evicting the oldest of a dict one by one,
                # and a hot set of topics is back after one publication each.
                cache.clear()
            cache[topic] = found
        return found

    def _plan(self, first: str, n: int) -> _Probe:
        """The tables a topic of ``n`` levels under ``first`` may match in: shapes of exactly ``n``
        levels, and shapes ending in "#" with at most ``n`` levels before it ("#" matches zero
        levels too), of its first level and of a leading "+"."""
        shapes = [*self._parts.get(first, {}).items(), *self._lead.items()]
        wanted = [(shape, table) for shape, table in shapes if shape[0] == n or (shape[2] and shape[0] <= n)]
        plan = _probe(n, wanted, self._compiled)
        if n > _KEPT_LEVELS:
            return plan  # a list by level count this long would cost more than planning again
        by_count = self._plans.get(first)
        if by_count is None:
            if len(self._plans) >= _PLANS:
                self._plans.clear()  # published topics' first levels are not bounded
            by_count = self._plans[first] = []
        if n >= len(by_count):
            by_count.extend([None] * (n + 1 - len(by_count)))
        by_count[n] = plan
        return plan

    def _gather(self, hits: list, topic: str) -> frozenset[Hashable]:
        sets: list = []
        bare: list = []
        for hit in hits:
            if type(hit) is _Keys:
                sets.append(hit)
            else:
                bare.append(hit)
        if self._root.children:
            found: set[Hashable] = set()
            self._walk(self._root, topic.split(SEPARATOR), 0, found)
            sets.append(found)
        if self._char:
            bare.extend(key for key, regex in self._char.items() if regex.fullmatch(topic))
        # One copy, largest set first: its entries go into the new table with their hashes kept,
        # and the table is sized for it once (a "#" near the root can select thousands).
        sets.sort(key=len, reverse=True)
        return _EMPTY.union(*sets, bare)

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


def policy_point(resolved: str, schema: int) -> str:
    """The topic string up to (not including) its first level holding a wildcard.

    In the topic scheme only a level that is exactly ``#`` or ``+`` is a wildcard (``a/b+c/d`` is
    literal throughout); in the character scheme any level holding ``*`` or ``?`` is.
    """
    kept = []
    for level in resolved.split(SEPARATOR):
        if schema == C.MQWS_CHAR:
            if has_char_wildcards(level):
                break
        elif level in (MULTI, SINGLE):
            break
        kept.append(level)
    return SEPARATOR.join(kept)


def iter_matching(patterns: Iterable[tuple[Hashable, str, int]], topic: str) -> Iterable[Hashable]:
    """Reference matcher over (key, pattern, schema) triples: what TopicIndex.match must agree with."""
    for key, pattern, schema in patterns:
        if matches(pattern, topic, schema):
            yield key
