"""Message selectors: IBM's and JMS's documented examples, syntax errors with their positions, a
reference evaluator that random selectors must agree with, and the message resolver over a real MQMD."""

from __future__ import annotations

import calendar
import datetime
import enum
import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings, strategies as st

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQMD
from qmlite.registry.pubsub import selectors as SEL
from qmlite.registry.pubsub.selectors import SelectorError, compile_selector, message_resolver


class Level(enum.IntEnum):
    ONE = 1


def run(text, **env):
    return compile_selector(text).evaluate(env.get)


# ---- documented examples and each construct ------------------------------------------------------
@pytest.mark.parametrize(
    "text, env, expected",
    [
        # JMS 3.8.1.1's examples
        ("JMSType = 'car' AND color = 'blue' AND weight > 2500", dict(JMSType="car", color="blue", weight=2600), True),
        ("JMSType = 'car' AND color = 'blue' AND weight > 2500", dict(JMSType="car", color="blue", weight=2500), False),
        ("age BETWEEN 15 AND 19", dict(age=15), True),
        ("age BETWEEN 15 AND 19", dict(age=19), True),
        ("age BETWEEN 15 AND 19", dict(age=20), False),
        ("age NOT BETWEEN 15 AND 19", dict(age=14), True),
        ("age NOT BETWEEN 15 AND 19", dict(age=17), False),
        ("Country IN ('UK', 'US', 'France')", dict(Country="UK"), True),
        ("Country IN ('UK', 'US', 'France')", dict(Country="Peru"), False),
        ("Country NOT IN ('UK', 'US', 'France')", dict(Country="UK"), False),
        ("Country NOT IN ('UK', 'US', 'France')", dict(Country="Peru"), True),
        ("phone LIKE '12%3'", dict(phone="123"), True),
        ("phone LIKE '12%3'", dict(phone="12993"), True),
        ("phone LIKE '12%3'", dict(phone="1234"), False),
        ("word LIKE 'l_se'", dict(word="lose"), True),
        ("word LIKE 'l_se'", dict(word="loose"), False),
        ("underscored LIKE '\\_%' ESCAPE '\\'", dict(underscored="_foo"), True),
        ("underscored LIKE '\\_%' ESCAPE '\\'", dict(underscored="bar"), False),
        ("phone NOT LIKE '12%3'", dict(phone="123"), False),
        ("phone NOT LIKE '12%3'", dict(phone="1234"), True),
        ("prop_name IS NULL", dict(), True),
        ("prop_name IS NULL", dict(prop_name=0), False),
        ("prop_name IS NOT NULL", dict(prop_name=""), True),
        # IBM: "Selection behavior" and "Message selector syntax"
        ("TRUE <> FALSE", dict(), True),
        ("Color IS NULL", dict(), True),
        ("name = 'literal''s'", dict(name="literal's"), True),
        ("myBytes = \"0x0AFC23\"", dict(myBytes=bytes.fromhex("0AFC23")), True),
        ("myBytes = \"0x0AFC2300\"", dict(myBytes=bytes.fromhex("0AFC23")), False),  # trailing zero counts
        ("myBytes = \"0x000AFC23\"", dict(myBytes=bytes.fromhex("0AFC23")), False),  # leading zero counts
        ("myBytes = \"0x23FC0A\"", dict(myBytes=bytes.fromhex("0AFC23")), False),  # no byte swapping
        ("myBytes = 0x\"0afc23\"", dict(myBytes=bytes.fromhex("0AFC23")), True),  # the other reading
        ("x = 0xA", dict(x=10), True),
        ("x = 0XAF", dict(x=175), True),
        ("x = 0X2020", dict(x=0x2020), True),
        ("x = 0177", dict(x=127), True),
        ("x = 0713", dict(x=0o713), True),
        ("x = 57", dict(x=57), True),
        ("x = -957", dict(x=-957), True),
        ("x = +62", dict(x=62), True),
        ("x = 57L", dict(x=57), True),
        ("x = 57l", dict(x=57.0), True),  # exact and approximate compare by value
        ("x = 7E3", dict(x=7000), True),
        ("x = -57.9E2", dict(x=-5790.0), True),
        ("x = 7.", dict(x=7), True),
        ("x = .5", dict(x=0.5), True),
        ("x = 6.2f", dict(x=6.2), True),
        ("x = 1d", dict(x=1.0), True),
        ("x = -9223372036854775808", dict(x=-(2**63)), True),
        ("x = 0xFFFFFFFFFFFFFFFF", dict(x=-1), True),  # a Java long's bit pattern
        ("x = -0x8000000000000000", dict(x=-(2**63)), True),  # negating the most negative long wraps
        ("Root.MQMD.MsgType = 4", {"Root.MQMD.MsgType": 4}, True),
        ("mcd.Type = 'x' and Usr.a = 1", {"mcd.Type": "x", "Usr.a": 1}, True),
        ("true", dict(), True),
        ("FaLsE OR TrUe", dict(), True),
        ("flag", dict(flag=True), True),
        ("flag", dict(flag=1), None),  # a number is no condition
        ("NOT flag", dict(flag=False), True),
        # precedence: NOT below comparison, AND above OR, * above +, unary above all
        ("NOT a = 1", dict(a=2), True),
        ("a = 1 OR a = 2 AND b = 3", dict(a=1, b=0), True),
        ("(a = 1 OR a = 2) AND b = 3", dict(a=1, b=0), False),
        ("a = 1 AND b = 1 OR c = 1", dict(a=2, c=1), True),
        ("a = 1 AND (b = 1 OR c = 1)", dict(a=2, c=1), False),
        ("NOT a = 1 AND b = 1", dict(a=2, b=2), False),
        ("NOT a = 1 OR b = 1", dict(a=1, b=1), True),
        ("1 + 2 * 3 = 7", dict(), True),
        ("(1 + 2) * 3 = 9", dict(), True),
        ("10 - 4 - 3 = 3", dict(), True),  # left to right
        ("24 / 4 / 2 = 3", dict(), True),
        ("-2 * -3 = 6", dict(), True),
        ("- - 2 = 2", dict(), True),
        # arithmetic: Java long and double
        ("7 / 2 = 3", dict(), True),
        ("-7 / 2 = -3", dict(), True),  # truncation toward zero
        ("7 / 2.0 = 3.5", dict(), True),
        ("a * 2 = -2", dict(a=2**63 - 1), True),  # wraps like a Java long
        ("a / 0 = 1", dict(a=1), None),
        ("a / 0.0 > 1", dict(a=1.0), None),
        ("NOT (a / 0 = 1)", dict(a=1), None),
        ("a + 1 = 2", dict(a="1"), None),  # no arithmetic on strings
        ("a + 1 = 2", dict(a=True), None),
        ("-a = 1", dict(a="x"), None),
        ("a + 1 > 0", dict(), None),
        # comparisons: like types only; unlike types FALSE; NULL UNKNOWN
        ("a = 1", dict(a=1.0), True),
        ("a > 1", dict(a=1.5), True),
        ("a = '1'", dict(a=1), False),
        ("a <> '1'", dict(a=1), False),  # unlike types: <> is FALSE too
        ("a <> b", dict(a=1, b="1"), False),
        ("a <> b", dict(a=1, b=1.5), True),
        ("NOT (a = '1')", dict(a=1), True),
        ("a = TRUE", dict(a=1), False),
        ("a = 1", dict(a=True), False),
        ("a = 1", dict(), None),
        ("a <> 1", dict(), None),
        ("a = b", dict(a="x", b="x"), True),
        ("a = b", dict(a="x", b=None), None),
        ("a < 'b'", dict(a="a"), False),  # strings order by = and <> only
        ("a >= 'a'", dict(a="a"), False),
        ("a < b", dict(a="a", b="b"), False),
        ("a < 'b'", dict(), None),
        ("a > FALSE", dict(a=True), False),
        ("a = TRUE", dict(a=True), True),
        ("(a > 1) = (b > 1)", dict(a=2, b=3), True),
        ("a = \"0x01\"", dict(a="\x01"), False),  # bytes are not a string
        ("a = 'x'", dict(a=bytearray(b"x")), False),
        ("a = \"0x78\"", dict(a=bytearray(b"x")), True),
        # BETWEEN, IN, LIKE with NULL and unlike types
        ("a BETWEEN 1 AND 3", dict(), None),
        ("a BETWEEN 1 AND b", dict(a=5), None),  # TRUE AND UNKNOWN
        ("a BETWEEN 1 AND b", dict(a=0), False),
        ("a BETWEEN 1 AND b", dict(a=2), None),
        ("a NOT BETWEEN 1 AND b", dict(a=0), True),
        ("a BETWEEN 1 AND 3", dict(a="2"), False),
        ("a NOT BETWEEN 1 AND 3", dict(a="2"), False),  # a < 1 OR a > 3: both FALSE
        ("a BETWEEN 1 AND 3", dict(a=2.5), True),
        ("a IN ('x')", dict(), None),
        ("a NOT IN ('x')", dict(), None),
        ("a IN ('1')", dict(a=1), False),
        ("a NOT IN ('1')", dict(a=1), True),
        ("a LIKE '%'", dict(), None),
        ("a NOT LIKE '%'", dict(), None),
        ("a LIKE '%'", dict(a=5), False),
        ("a NOT LIKE '%'", dict(a=5), True),
        ("a LIKE '%'", dict(a=""), True),
        ("a LIKE '_'", dict(a=""), False),
        ("a LIKE 'a.c'", dict(a="abc"), False),  # regex characters are plain
        ("a LIKE 'a\nc'", dict(a="a\nc"), True),
        ("a LIKE 'a_c'", dict(a="a\nc"), True),
        ("a LIKE '%%x%%'", dict(a="x"), True),
        ("a LIKE 'x%y%z'", dict(a="xyz"), True),
        ("a LIKE 'x%y%z'", dict(a="xzy"), False),
        ("a LIKE 'ab%ba'", dict(a="aba"), False),  # head and tail may not overlap
        ("a LIKE 'ab%ba'", dict(a="abba"), True),
        ("a LIKE '%ab%ba%'", dict(a="aba"), False),  # nor may middle segments
        ("a LIKE '%ab%ba%'", dict(a="xabbax"), True),
        ("a LIKE '%a_c%'", dict(a="xxabcxx"), True),
        ("a LIKE '!%%' ESCAPE '!'", dict(a="%x"), True),
        ("a LIKE '!%%' ESCAPE '!'", dict(a="x%"), False),
        ("a LIKE '!!%' ESCAPE '!'", dict(a="!x"), True),
        ("a LIKE '!a' ESCAPE '!'", dict(a="a"), True),
        ("a LIKE '%%' ESCAPE '%'", dict(a="%"), True),  # the escape may be a wildcard itself
        ("a LIKE '%%' ESCAPE '%'", dict(a="x"), False),
        # three-valued AND / OR / NOT
        ("a = 1 AND b = 1", dict(a=1), None),
        ("a = 1 AND b = 1", dict(a=2), False),
        ("a = 1 OR b = 1", dict(a=1), True),
        ("a = 1 OR b = 1", dict(a=2), None),
        ("NOT (a = 1)", dict(), None),
        ("NOT (a = 1 OR b = 1)", dict(a=2), None),
        ("a IS NULL OR a = 1", dict(), True),
        # unknown value types are NULL; ints no MQ property can hold too
        ("a IS NULL", dict(a=[1]), True),
        ("a IS NULL", dict(a=2**70), True),
        ("a = 1", dict(a=Level.ONE), True),  # int subclasses are ints
        ("a <> 0", dict(a=float("nan")), True),
        ("a = a", dict(a=float("nan")), False),
    ],
)
def test_evaluate(text, env, expected):
    assert run(text, **env) is expected


def test_matches_is_evaluate_true():
    sel = compile_selector("a = 1")
    assert sel.matches({"a": 1}.get) is True
    assert sel.matches({"a": 2}.get) is False
    assert sel.matches({}.get) is False  # UNKNOWN does not select


def test_names_and_text():
    sel = compile_selector("Color = 'red' AND Root.MQMD.Priority > 3 OR usr.Size IN ('L') OR color IS NULL")
    assert sel.text == "Color = 'red' AND Root.MQMD.Priority > 3 OR usr.Size IN ('L') OR color IS NULL"
    assert sel.names == frozenset({"Color", "Root.MQMD.Priority", "usr.Size", "color"})
    assert compile_selector("TRUE").names == frozenset()


def test_identifiers_are_case_sensitive_keywords_are_not():
    assert run("Color = 1", Color=1, color=2) is True
    assert run("color = 1", Color=1, color=2) is False
    assert run("a iS nOt NuLl aNd b NoT iN ('x') Or c BeTwEeN 1 AnD 2", a=1, b="y") is True
    assert run("x LiKe 'a!_' EsCaPe '!'", x="a_") is True


def test_unicode_identifiers_and_whitespace():
    assert run("prix€ = 1\tAND\n\r\fnaïve = 'é'", **{"prix€": 1, "naïve": "é"}) is True
    assert run("ın = 1", **{"ın": 1}) is True  # its upper case is IN, but only ASCII words are keywords


def test_compile_is_cached_by_text():
    assert compile_selector("a = 1 AND b = 2") is compile_selector("a = 1 AND b = 2")
    assert compile_selector("a = 1 AND b = 2") is not compile_selector("a = 1 AND  b = 2")


def test_longest_selector_and_one_more():
    body = "a = 1" + " OR a = 1" * 1000
    exact = body + " " * (SEL.MQ_SELECTOR_LENGTH - len(body))
    assert len(exact) == SEL.MQ_SELECTOR_LENGTH
    assert compile_selector(exact).evaluate({"a": 1}.get) is True
    with pytest.raises(SelectorError) as err:
        compile_selector(exact + " ")
    assert err.value.position == SEL.MQ_SELECTOR_LENGTH


def test_long_flat_chains_cost_no_depth():
    ors = " OR ".join(f"a = {i}" for i in range(700))
    assert compile_selector(ors).evaluate({"a": 699}.get) is True
    assert compile_selector(ors).evaluate({"a": 700}.get) is False
    sums = "+".join(["1"] * 3000) + " = 3000"
    assert compile_selector(sums).evaluate({}.get) is True
    chain = "a" + " - 1" * 2000 + " = -2000"
    assert compile_selector(chain).evaluate({"a": 0}.get) is True


def test_nesting_limit():
    deepest = "(" * SEL.MAX_NESTING + "a" + ")" * SEL.MAX_NESTING
    assert compile_selector(deepest).evaluate({"a": True}.get) is True
    with pytest.raises(SelectorError) as err:
        compile_selector("(" + deepest + ")")
    assert err.value.position == SEL.MAX_NESTING
    for hostile in ("(" * 5000, "NOT " * 2500 + "a", "-" * 5000 + "1 = 1", "(NOT -(" * 1000):
        with pytest.raises(SelectorError):
            compile_selector(hostile)


def test_hostile_like_pattern_is_answered():
    sel = compile_selector("x LIKE '" + "%a" * 3000 + "%b'")
    assert sel.evaluate({"x": "a" * 5000}.get) is False
    assert sel.evaluate({"x": "a" * 3000 + "b"}.get) is True
    assert sel.evaluate({"x": "a" * 2999 + "b"}.get) is False


# ---- syntax errors -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, position",
    [
        ("", 0),  # MQ's "no selector" is the caller's to decide; as a selector it is empty
        ("   ", 3),
        ("a = 'abc", 4),  # unterminated string: where it opened
        ("a = 'it''s", 4),
        ("a =", 3),  # missing operand
        ("a = 1 AND", 9),
        ("a + = 1", 4),
        ("NOT", 3),
        ("a LIKE 5", 7),  # LIKE with a non-string pattern
        ("a LIKE b", 7),
        ("a LIKE 'x' ESCAPE 'ab'", 18),  # bad ESCAPE length
        ("a LIKE 'x' ESCAPE ''", 18),
        ("a LIKE 'x' ESCAPE 1", 18),
        ("a LIKE 'x!' ESCAPE '!'", 7),  # the escape cannot end the pattern
        ("'x' LIKE 'x'", 0),  # LIKE, IN and IS NULL take an identifier
        ("1 IN ('x')", 0),
        ("(a) + 1 IS NULL", 0),
        ("AND = 1", 0),  # reserved words are no identifiers
        ("a = 1 AND or = 2", 10),
        ("Between > 1", 0),
        ("escape = 1", 0),
        ("a = NULL", 4),
        ("a = 1 b", 6),  # trailing garbage
        ("a = 1)", 5),
        ("a = 1 'x'", 6),
        ("()", 1),  # empty parentheses
        ("a = ()", 5),
        ("(a = 1", 6),
        ("a IN ()", 6),
        ("a IN ('x',)", 10),
        ("a IN ('x' 'y')", 10),
        ("a IN (1, 2)", 6),  # string literals only
        ("a IN 'x'", 5),
        ("a BETWEEN 1", 11),
        ("a BETWEEN 1 OR 2", 12),
        ("a BETWEEN 'x' AND 'y'", 10),
        ("a NOT = 1", 2),
        ("a IS NOT 1", 9),
        ("a IS", 4),
        ("09", 0),  # octal digits only after a leading zero
        ("a = 0128", 4),
        ("a = 12abc", 4),
        ("a = 1.2.3", 4),
        ("a = 1e", 4),
        ("a = 1e+", 4),
        ("a = 0x", 4),
        ("a = 1LL", 4),
        ("a = 9223372036854775808", 4),  # beyond a Java long without its minus
        ("a = 0x1FFFFFFFFFFFFFFFF", 4),
        ("a = 1e999", 4),
        ("a = \"0xAFC23\"", 4),  # IBM: an odd digit count is a syntax error
        ("a = \"0x\"", 4),
        ("a = \"AB\"", 4),  # double quotes hold only byte strings
        ("a = \"0xAB", 4),
        ("a = 0x\"AB", 4),
        ("a != 1", 2),
        ("a == 1", 3),
        ("a = 1 ; b = 2", 6),
        (".a = 1", 0),  # a name cannot start with '.'
        ("a = #", 4),
        ("5", 0),  # no condition
        ("'x'", 0),
        ("a + 1", 0),
        ("NOT 5", 4),
        ("a = 1 AND 'x'", 10),
        ("-'x' = 1", 1),
        ("TRUE + 1 = 2", 0),
        ("a = 1 = 2", 6),  # comparisons do not chain
        ("\x00", 0),
    ],
)
def test_syntax_errors(text, position):
    with pytest.raises(SelectorError) as err:
        compile_selector(text)
    assert err.value.position == position
    assert isinstance(err.value, ValueError)
    assert f"position {position}" in str(err.value)


# ---- a reference evaluator, and random selectors that must agree with it ---------------------------
# Trees are tuples: ("num", v) ("str", s) ("bool", b) ("id", name) ("neg", x) ("arith", op, a, b)
# ("cmp", op, a, b) ("between", negated, x, lo, hi) ("like", negated, name, pattern, escape)
# ("in", negated, name, values) ("isnull", negated, name) ("not", x) ("and", a, b) ("or", a, b).

NUMS = (int, float)


def ref_type(v):
    return {bool: "bool", int: "num", float: "num", str: "str", bytes: "bytes"}[type(v)]


def ref_not(v):
    return None if v is None else not v


def ref_and(a, b):
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def ref_or(a, b):
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


def ref_like(pattern, escape, s):
    items = []  # ("lit", c) | ("one",) | ("any",)
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if escape is not None and c == escape:
            items.append(("lit", pattern[i + 1]))
            i += 2
            continue
        items.append(("any",) if c == "%" else ("one",) if c == "_" else ("lit", c))
        i += 1
    # can[j] : the pattern's first k items match s[:j]
    can = [True] + [False] * len(s)
    for item in items:
        nxt = [False] * (len(s) + 1)
        for j in range(len(s) + 1):
            if item[0] == "any":
                nxt[j] = can[j] or (j > 0 and nxt[j - 1])
            elif j > 0 and can[j - 1] and (item[0] == "one" or s[j - 1] == item[1]):
                nxt[j] = True
        can = nxt
    return can[len(s)]


def ref_cmp(op, a, b):
    if a is None or b is None:
        return None
    if ref_type(a) != ref_type(b):
        return False
    if op == "=":
        return a == b
    if op == "<>":
        return a != b
    if ref_type(a) != "num":
        return False
    return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]


def ref_arith(op, a, b):
    if type(a) not in NUMS or type(b) not in NUMS:
        return None
    if op == "/":
        if b == 0:
            return None
        if type(a) is int and type(b) is int:
            return int(Fraction(a, b))  # toward zero
        return a / b
    return {"+": a + b, "-": a - b, "*": a * b}[op]


def ref_eval(node, env):
    tag = node[0]
    if tag in ("num", "str", "bool"):
        return node[1]
    if tag == "id":
        return env.get(node[1])
    if tag == "neg":
        v = ref_eval(node[1], env)
        return -v if type(v) in NUMS else None
    if tag == "arith":
        return ref_arith(node[1], ref_eval(node[2], env), ref_eval(node[3], env))
    if tag == "cmp":
        return ref_cmp(node[1], ref_eval(node[2], env), ref_eval(node[3], env))
    if tag == "between":
        x, lo, hi = (ref_eval(n, env) for n in node[2:])
        if node[1]:
            return ref_or(ref_cmp("<", x, lo), ref_cmp(">", x, hi))
        return ref_and(ref_cmp(">=", x, lo), ref_cmp("<=", x, hi))
    if tag == "like":
        v = env.get(node[2])
        if v is None:
            return None
        hit = type(v) is str and ref_like(node[3], node[4], v)
        return not hit if node[1] else hit
    if tag == "in":
        v = env.get(node[2])
        if v is None:
            return None
        hit = type(v) is str and v in node[3]
        return not hit if node[1] else hit
    if tag == "isnull":
        return (env.get(node[2]) is not None) if node[1] else (env.get(node[2]) is None)
    if tag == "not":
        v = ref_eval(node[1], env)
        return ref_not(v if type(v) is bool else None)
    a, b = ref_eval(node[1], env), ref_eval(node[2], env)
    a = a if type(a) is bool else None
    b = b if type(b) is bool else None
    return ref_and(a, b) if tag == "and" else ref_or(a, b)


def ref_truth(node, env):
    v = ref_eval(node, env)
    return v if type(v) is bool else None


# Rendering: each form has a precedence level; a child below the level its place needs is
# parenthesized.  OR 1, AND 2, NOT 3, predicates 4, + - 5, * / 6, unary 7, primaries 8.
def quote(s):
    return "'" + s.replace("'", "''") + "'"


def render(node, full=False):
    text, _ = _render(node, full)
    return text


def _render(node, full):
    def sub(child, need):
        text, level = _render(child, full)
        return f"({text})" if level < need or (full and level < 8) else text

    tag = node[0]
    if tag == "num":
        v = node[1]
        return repr(v), (7 if v < 0 or (v == 0 and math.copysign(1, v) < 0) else 8)
    if tag == "str":
        return quote(node[1]), 8
    if tag == "bool":
        return ("TRUE" if node[1] else "false"), 8
    if tag == "id":
        return node[1], 8
    if tag == "neg":
        return "- " + sub(node[1], 7), 7
    if tag == "arith":
        level = 5 if node[1] in "+-" else 6
        return f"{sub(node[2], level)} {node[1]} {sub(node[3], level + 1)}", level
    if tag == "cmp":
        return f"{sub(node[2], 5)} {node[1]} {sub(node[3], 5)}", 4
    if tag == "between":
        word = "NOT BETWEEN" if node[1] else "BETWEEN"
        return f"{sub(node[2], 5)} {word} {sub(node[3], 5)} AND {sub(node[4], 5)}", 4
    if tag == "like":
        word = "NOT LIKE" if node[1] else "LIKE"
        esc = f" ESCAPE {quote(node[4])}" if node[4] is not None else ""
        return f"{node[2]} {word} {quote(node[3])}{esc}", 4
    if tag == "in":
        word = "NOT IN" if node[1] else "IN"
        return f"{node[2]} {word} ({', '.join(quote(v) for v in node[3])})", 4
    if tag == "isnull":
        return f"{node[2]} IS {'NOT ' if node[1] else ''}NULL", 4
    if tag == "not":
        return "NOT " + sub(node[1], 3), 3
    if tag == "and":
        return f"{sub(node[1], 2)} AND {sub(node[2], 3)}", 2
    return f"{sub(node[1], 1)} OR {sub(node[2], 2)}", 1


NAMES = ("n1", "n2", "s1", "b1")
CHARS = "ab%_!"

num_literals = st.one_of(st.integers(-50, 50).map(lambda v: ("num", v)),
                         st.sampled_from([0.5, 2.0, -1.25, 3.0, 0.0]).map(lambda v: ("num", v)))
str_literals = st.text(CHARS + "'", max_size=4).map(lambda s: ("str", s))
identifiers = st.sampled_from(NAMES).map(lambda n: ("id", n))

num_exprs = st.recursive(
    st.one_of(num_literals, identifiers),
    lambda inner: st.one_of(
        inner.map(lambda x: ("neg", x)),
        st.tuples(st.just("arith"), st.sampled_from("+-*/"), inner, inner),
    ),
    max_leaves=6,
)
str_exprs = st.one_of(str_literals, identifiers)
CMP_OPS = st.sampled_from(["=", "<>", "<", ">", "<=", ">="])


@st.composite
def like_nodes(draw):
    escape = draw(st.sampled_from([None, "!"]))
    pieces = draw(st.lists(st.sampled_from(["a", "b", "%", "_", "!%", "!_", "!!", "!a"] if escape else
                                            ["a", "b", "%", "_", "!"]), max_size=7))
    return ("like", draw(st.booleans()), draw(st.sampled_from(NAMES)), "".join(pieces), escape)


bool_leaves = st.one_of(
    st.booleans().map(lambda b: ("bool", b)),
    identifiers,
    st.tuples(st.just("cmp"), CMP_OPS, num_exprs, num_exprs),
    st.tuples(st.just("cmp"), CMP_OPS, str_exprs, str_exprs),
    st.tuples(st.just("between"), st.booleans(), num_exprs, num_exprs, num_exprs),
    like_nodes(),
    st.tuples(st.just("in"), st.booleans(), st.sampled_from(NAMES),
              st.lists(st.text(CHARS, max_size=3), min_size=1, max_size=3).map(tuple)),
    st.tuples(st.just("isnull"), st.booleans(), st.sampled_from(NAMES)),
)
bool_exprs = st.recursive(
    bool_leaves,
    lambda inner: st.one_of(
        inner.map(lambda x: ("not", x)),
        st.tuples(st.sampled_from(["and", "or"]), inner, inner),
        st.tuples(st.just("cmp"), st.sampled_from(["=", "<>"]), inner, inner),
    ),
    max_leaves=8,
)
values = st.one_of(st.none(), st.integers(-20, 20), st.sampled_from([0.5, -2.0, 3.0, 1e300]),
                   st.text(CHARS, max_size=4), st.booleans(), st.just(b"a"))
envs = st.fixed_dictionaries({n: values for n in NAMES})


@settings(max_examples=1000, deadline=None)
@given(bool_exprs, envs)
def test_random_selectors_agree_with_the_reference(tree, env):
    expected = ref_truth(tree, env)
    minimal, full = render(tree), render(tree, full=True)
    assert compile_selector(minimal).evaluate(env.get) is expected, minimal
    assert compile_selector(full).evaluate(env.get) is expected, full


@settings(max_examples=500, deadline=None)
@given(num_exprs, envs)
def test_arithmetic_agrees_with_the_reference(tree, env):
    value = ref_eval(tree, env)
    text = render(tree)
    if value is None:
        assert compile_selector(f"({text}) = 0").evaluate(env.get) is None, text
        return
    if type(value) not in NUMS:  # a lone identifier holding a string, boolean or bytes
        assert compile_selector(f"({text}) = 0").evaluate(env.get) is False, text
        return
    assume(math.isfinite(value))
    literal = repr(value) if type(value) is float else str(value)
    assert compile_selector(f"({text}) = {literal}").evaluate(env.get) is True, (text, literal)
    assert compile_selector(f"({text}) < {literal}").evaluate(env.get) is False, (text, literal)


@settings(max_examples=1000, deadline=None)
@given(like_nodes(), st.text("ab%_!", max_size=8))
def test_like_agrees_with_the_reference(node, value):
    _, negated, name, pattern, escape = node
    text = render(node)
    assert compile_selector(text).evaluate({name: value}.get) is (ref_like(pattern, escape, value) is not negated), text


@settings(max_examples=300, deadline=None)
@given(bool_exprs, envs)
def test_not_is_unknown_exactly_when_its_operand_is(tree, env):
    inner = compile_selector(render(tree)).evaluate(env.get)
    negated = compile_selector(f"NOT ({render(tree)})").evaluate(env.get)
    assert (negated is None) == (inner is None)
    if inner is not None:
        assert negated is (not inner)


@settings(max_examples=300, deadline=None)
@given(bool_exprs, bool_exprs, envs)
def test_de_morgan_in_three_valued_logic(a, b, env):
    ra, rb = render(a), render(b)
    for outer, inner in (("AND", "OR"), ("OR", "AND")):
        left = compile_selector(f"NOT (({ra}) {outer} ({rb}))").evaluate(env.get)
        right = compile_selector(f"(NOT ({ra})) {inner} (NOT ({rb}))").evaluate(env.get)
        assert left is right


# ---- hostile text --------------------------------------------------------------------------------
TOKENS = ["a", "b.c", "Root.MQMD.Priority", "'x'", "''''", "'", '"', "1", "0", "07", "09", "0x1F", "0x",
          "1.5", ".5", ".", "1e3", "1e", "1L", '"0xAB"', '0x"AB"', '"0xA"', "TRUE", "false", "NULL", "NOT",
          "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE", "(", ")", ",", "=", "<>", "<", ">", "<=",
          ">=", "+", "-", "*", "/", "'%'", "'_'", "'!'", "!", "9223372036854775808", "\u00e9", "\u0130"]
odd_values = st.one_of(values, st.integers(), st.floats(), st.binary(max_size=3), st.text(max_size=3),
                       st.sampled_from([[1], object(), bytearray(b"x"), memoryview(b"y"), 2**64, -(2**80)]))


def check_never_crashes(text, data):
    try:
        sel = compile_selector(text)
    except SelectorError as err:
        assert 0 <= err.position <= len(text)
        return
    env = {name: data.draw(odd_values) for name in sel.names}
    assert sel.evaluate(env.get) in (True, False, None)
    assert sel.matches(env.get) is (sel.evaluate(env.get) is True)


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=60), st.data())
def test_random_text_gives_only_selector_errors(text, data):
    check_never_crashes(text, data)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=14), st.sampled_from([" ", ""]), st.data())
def test_token_soup_gives_only_selector_errors(tokens, sep, data):
    check_never_crashes(sep.join(tokens), data)


@settings(max_examples=300, deadline=None)
@given(bool_exprs, st.data())
def test_valid_selectors_never_raise_on_odd_values(tree, data):
    sel = compile_selector(render(tree))
    env = {name: data.draw(odd_values) for name in sel.names}
    assert sel.evaluate(env.get) in (True, False, None)


# ---- the message resolver ------------------------------------------------------------------------
def sample_md(**changes):
    md = MQMD(Version=2, MsgId=bytes(range(1, 25)), CorrelId=bytes(range(100, 124)), Priority=7,
              Persistence=C.MQPER_PERSISTENT, Expiry=600, Format="MQSTR   ", Encoding=546, CodedCharSetId=1208,
              PutDate="20240131", PutTime="12345678", UserIdentifier="alice       ", PutApplName="pub.py" + " " * 22,
              ReplyToQ="REPLY.Q", ReplyToQMgr="QM1", BackoutCount=2, MsgType=C.MQMT_REQUEST,
              Feedback=C.MQFB_NONE, GroupId=bytes([0xAB]) * 24, MsgSeqNumber=3, Offset=0,
              MsgFlags=C.MQMF_MSG_IN_GROUP, ApplIdentityData="ident\0\0")
    for k, v in changes.items():
        setattr(md, k, v)
    return md


PUT_MILLIS = int(datetime.datetime(2024, 1, 31, 12, 34, 56, tzinfo=datetime.timezone.utc).timestamp()) * 1000 + 780


@pytest.mark.parametrize(
    "name, expected",
    [
        ("JMSDeliveryMode", "PERSISTENT"),
        ("JMSPriority", 7),
        ("JMSMessageID", "ID:" + bytes(range(1, 25)).hex()),
        ("JMSCorrelationID", "ID:" + bytes(range(100, 124)).hex()),
        ("JMSTimestamp", PUT_MILLIS),
        ("JMSExpiration", PUT_MILLIS + 60_000),  # Expiry is in tenths of a second
        ("JMSType", "shirt"),
        ("JMSRedelivered", True),
        ("JMSXDeliveryCount", 3),
        ("JMSXUserID", "alice"),
        ("JMSXAppID", "pub.py"),
        ("JMSXGroupID", "ID:" + "ab" * 24),
        ("JMSXGroupSeq", 3),
        ("Root.MQMD.MsgId", bytes(range(1, 25))),
        ("Root.MQMD.CorrelId", bytes(range(100, 124))),
        ("Root.MQMD.Priority", 7),
        ("Root.MQMD.Persistence", 1),
        ("Root.MQMD.Expiry", 600),
        ("Root.MQMD.Format", "MQSTR"),
        ("Root.MQMD.Encoding", 546),
        ("Root.MQMD.CodedCharSetId", 1208),
        ("Root.MQMD.PutDate", "20240131"),
        ("Root.MQMD.PutTime", "12345678"),
        ("Root.MQMD.UserIdentifier", "alice"),
        ("Root.MQMD.PutApplName", "pub.py"),
        ("Root.MQMD.ReplyToQ", "REPLY.Q"),
        ("Root.MQMD.ReplyToQMgr", "QM1"),
        ("Root.MQMD.BackoutCount", 2),
        ("Root.MQMD.MsgType", C.MQMT_REQUEST),
        ("Root.MQMD.Feedback", C.MQFB_NONE),
        ("Root.MQMD.GroupId", bytes([0xAB]) * 24),
        ("Root.MQMD.MsgSeqNumber", 3),
        ("Root.MQMD.Offset", 0),
        ("Root.MQMD.MsgFlags", C.MQMF_MSG_IN_GROUP),
        ("Root.MQMD.ApplIdentityData", "ident"),
        ("Root.MQMD.NoSuchField", None),
        ("Root.MQMD.", None),
        ("root.mqmd.Priority", None),  # names are case-sensitive
        ("Color", "red"),
        ("usr.Color", "red"),
        ("mcd.Type", "shirt"),
        ("jms.Pri", 4),
        ("Size", None),
        ("JMSDestination", None),
    ],
)
def test_message_resolver(name, expected):
    props = {"Color": "red", "mcd.Type": "shirt", "jms.Pri": 4}
    value = message_resolver(sample_md(), props)(name)
    assert value == expected and type(value) is type(expected)


def test_put_millis_matches_calendar():
    assert PUT_MILLIS == calendar.timegm((2024, 1, 31, 12, 34, 56)) * 1000 + 780


def test_message_resolver_alternatives():
    resolve = message_resolver(sample_md(Persistence=C.MQPER_NOT_PERSISTENT, BackoutCount=0, Expiry=C.MQEI_UNLIMITED,
                                         CorrelId=bytes(24), GroupId=bytes(24), PutDate="", PutTime=""), {})
    assert resolve("JMSDeliveryMode") == "NON_PERSISTENT"
    assert resolve("JMSRedelivered") is False
    assert resolve("JMSXDeliveryCount") == 1
    assert resolve("JMSExpiration") == 0  # unlimited
    assert resolve("JMSCorrelationID") is None  # MQCI_NONE
    assert resolve("JMSXGroupID") is None  # MQGI_NONE
    assert resolve("JMSTimestamp") is None  # no put date and time
    assert resolve("JMSType") is None
    props = {"jms.Cid": "order-17", "jms.Gid": "batch-2", "usr.Odd": 1, "Odd": 2}
    resolve = message_resolver(sample_md(PutDate="20240230"), props)
    assert resolve("JMSCorrelationID") == "order-17"
    assert resolve("JMSXGroupID") == "batch-2"
    assert resolve("JMSTimestamp") is None  # 30 February
    assert resolve("JMSExpiration") is None
    assert resolve("usr.Odd") == 1  # an exact name wins over the usr. folder rule
    assert message_resolver(sample_md(), None)("Color") is None


def test_selectors_over_a_real_message():
    resolve = message_resolver(sample_md(), {"Color": "red", "mcd.Type": "shirt", "Size": 42})
    for text, expected in [
        ("JMSPriority > 5 AND JMSDeliveryMode = 'PERSISTENT'", True),
        ("Root.MQMD.MsgType = 1 AND Root.MQMD.Format = 'MQSTR'", True),
        ("JMSType = 'shirt' AND Color IN ('red', 'blue') AND Size BETWEEN 40 AND 44", True),
        ("usr.Color = 'red' AND Root.MQMD.Priority = JMSPriority", True),
        (f"JMSTimestamp = {PUT_MILLIS} AND JMSExpiration - JMSTimestamp = 60000", True),
        ("JMSRedelivered AND JMSXDeliveryCount = 3", True),
        ("JMSXUserID LIKE 'ali%' AND JMSXAppID = 'pub.py'", True),
        ("Root.MQMD.GroupId = \"0x" + "ab" * 24 + "\"", True),
        ("JMSMessageID LIKE 'ID:0102%'", True),
        ("Weight > 1", False),
        ("Weight IS NULL", True),
    ]:
        assert compile_selector(text).matches(resolve) is expected, text
