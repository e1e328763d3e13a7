"""Message selectors: the JMS / SQL92 subset IBM MQ takes as MQSUB's and MQOPEN's SelectionString and
as PCF Create Subscription's Selector.

``compile_selector(text)`` tokenizes and parses the text once (hand-written tokenizer, recursive
descent by precedence level), checks what can be checked without a message (literal operand types,
LIKE patterns, IN lists, nesting), and compiles the tree into nested closures, so that evaluating a
selector against a publication costs a handful of Python calls.  ``message_resolver`` gives a
selector what a message offers: JMS header names and ``Root.MQMD.*`` from the MQMD, every other
name from the message's properties.

Semantics (IBM "Message selector syntax", JMS 2.0 section 3.8.1.1):

* Three-valued logic: a missing property is NULL, and NULL makes a comparison or arithmetic UNKNOWN
  (``None``); AND/OR/NOT follow SQL's truth tables; only TRUE selects.
* Only like types compare; numbers compare across int/float by value (Java numeric promotion).
  Comparing unlike types is FALSE (JMS: "the value of the operation is false"), not UNKNOWN, and
  that for <> too: ``Size <> 'L'`` does not select a message whose Size is 42.
* Strings, booleans and byte strings compare only with = and <> (JMS: "String and Boolean comparison
  is restricted to = and <>"; IBM's page follows JMS).  ``<`` and the like on them is FALSE, as for
  unlike types; it still parses, because with identifiers the types are known only per message.
* Arithmetic on anything but numbers, and division by zero, is UNKNOWN.  int op int is Java long
  arithmetic (wraps at 64 bits, division truncates toward zero); with a float involved it is double.
* ``a BETWEEN b AND c`` is ``a >= b AND a <= c``, ``a NOT BETWEEN b AND c`` is ``a < b OR a > c``,
  ``x IN (...)`` is an OR of ``=``; NOT IN and NOT LIKE are NOT of IN and LIKE.  These are the
  equivalences JMS states, taken literally (with unlike types NOT BETWEEN is FALSE, NOT IN TRUE).

Evaluation never raises for any property value: a value of a type selectors do not know (anything
but bool, int, float, str, bytes) or an int no MQ property can hold (beyond 64 bits) is NULL.
Exceptions raised by ``resolve`` itself are the caller's and pass through.
"""

from __future__ import annotations

import calendar
import dataclasses
import functools
import operator
import re
import unicodedata
from typing import Callable

__all__ = ["SelectorError", "Selector", "compile_selector", "message_resolver", "MQ_SELECTOR_LENGTH",
           "MAX_NESTING"]

MQ_SELECTOR_LENGTH = 10240  # IBM's MQ_SELECTOR_LENGTH: the longest selection string
# Parentheses, NOT and unary signs nest the tree.  A level costs the parser about eight Python frames
# and the evaluator a few, so this bound keeps hostile text (thousands of '(') a SelectorError, far
# inside Python's recursion limit; no selector written by a person comes near it.
MAX_NESTING = 48

_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
_KEYWORDS = frozenset({"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"})
_WHITESPACE = frozenset(" \t\f\r\n")  # Java's white space, the separators JMS names
_HEX = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")
_OCTAL = frozenset("01234567")
_ONE_CHAR_OPS = frozenset("=<>+-*/(),")
_NUM = (int, float)


class SelectorError(ValueError):
    """A selection string that is not valid; ``position`` is the 0-based offset where it went wrong."""

    def __init__(self, message: str, position: int):
        super().__init__(f"{message} at position {position}")
        self.position = position


# ---- tokens --------------------------------------------------------------------------------------
# A token is (kind, value, position).  Kinds: "str", "bytes", "int" (value unsigned for decimal
# literals: only the parser knows whether a minus sign stands before it), "float", "id", "kw" (value
# the upper-case keyword), "op" (value the operator's text) and "eof".


def _id_start(ch: str) -> bool:
    # Java's Character.isJavaIdentifierStart: letters, letter numbers, currency symbols, connectors.
    if ch.isascii():
        return ch.isalpha() or ch == "_" or ch == "$"
    return unicodedata.category(ch) in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc")


def _id_part(ch: str) -> bool:
    # isJavaIdentifierPart, and '.', which IBM allows inside (not at the start of) a property name.
    # Java's "ignorable" control characters are left out: invisible in a selector, never meant.
    if ch.isascii():
        return ch.isalnum() or ch in "_$."
    return unicodedata.category(ch) in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc", "Nd", "Mn", "Mc", "Cf")


def _tokenize(text: str) -> list[tuple]:
    tokens = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        if i >= n:
            tokens.append(("eof", None, n))
            return tokens
        ch = text[i]
        if ch == "'":
            value, end = _scan_string(text, i)
            tokens.append(("str", value, i))
        elif ch == '"':
            value, end = _scan_byte_string(text, i, i)
            tokens.append(("bytes", value, i))
        elif ch in _DIGITS or (ch == "." and i + 1 < n and text[i + 1] in _DIGITS):
            tok, end = _scan_number(text, i)
            tokens.append(tok)
        elif _id_start(ch):
            end = i + 1
            while end < n and _id_part(text[end]):
                end += 1
            word = text[i:end]
            upper = word.upper() if word.isascii() else word  # "ın".upper() is "IN": keywords are ASCII
            tokens.append(("kw", upper, i) if upper in _KEYWORDS else ("id", word, i))
        elif text.startswith(("<>", "<=", ">="), i):
            end = i + 2
            tokens.append(("op", text[i:end], i))
        elif ch in _ONE_CHAR_OPS:
            end = i + 1
            tokens.append(("op", ch, i))
        else:
            raise SelectorError(f"unexpected character {ch!r}", i)
        i = end


def _scan_string(text: str, start: int) -> tuple[str, int]:
    # '' inside a literal is one quote; anything else between the quotes is taken as it stands.
    parts = []
    i = start + 1
    while True:
        end = text.find("'", i)
        if end < 0:
            raise SelectorError("unterminated string literal", start)
        parts.append(text[i:end])
        if text.startswith("''", end):
            parts.append("'")
            i = end + 2
        else:
            return "".join(parts), end + 1


def _scan_byte_string(text: str, quote: int, start: int) -> tuple[bytes, int]:
    # IBM: "one or more pair of hexadecimal characters enclosed in double quotation marks and
    # prefixed by 0x".  Read both ways the sentence allows, "0x2F1C" and 0x"2F1C"; a bare 0x2F1C is
    # a hexadecimal number, as IBM's next paragraph says.  An odd digit count is a syntax error
    # (IBM's own example, 0xAFC23).
    i = quote + 1
    if start == quote:  # "0x...": the prefix is inside the quotes
        if not text.startswith(("0x", "0X"), i):
            raise SelectorError("double quotation marks enclose only byte strings (\"0x...\")", start)
        i += 2
    end = i
    while end < len(text) and text[end] in _HEX:
        end += 1
    if end >= len(text) or text[end] != '"':
        raise SelectorError("byte string not closed by '\"' after its hexadecimal digits", start)
    digits = text[i:end]
    if not digits or len(digits) % 2:
        raise SelectorError("a byte string needs one or more pairs of hexadecimal digits", start)
    return bytes.fromhex(digits), end + 1


def _scan_number(text: str, start: int) -> tuple[tuple, int]:
    n = len(text)
    if text.startswith(("0x", "0X"), start):
        i = start + 2
        if i < n and text[i] == '"':
            value, end = _scan_byte_string(text, i, start)
            return ("bytes", value, start), end
        while i < n and text[i] in _HEX:
            i += 1
        if i == start + 2:
            raise SelectorError("hexadecimal number without digits", start)
        value = _java_long_bits(int(text[start + 2:i], 16), start)
        if i < n and text[i] in "lL":  # IBM: a trailing L does not change how the number is stored
            i += 1
        return _number_end(text, i, ("int", value, start))
    i = start
    while i < n and text[i] in _DIGITS:
        i += 1
    whole = text[start:i]
    approximate = False
    if i < n and text[i] == ".":
        approximate = True
        i += 1
        while i < n and text[i] in _DIGITS:
            i += 1
    if i < n and text[i] in "eE":
        approximate = True
        i += 1
        if i < n and text[i] in "+-":
            i += 1
        digits_at = i
        while i < n and text[i] in _DIGITS:
            i += 1
        if i == digits_at:
            raise SelectorError("exponent without digits", start)
    body_end = i
    if i < n and text[i] in "fFdD":  # Java's float/double suffix: an approximate literal either way
        approximate = True
        i += 1
    elif not approximate and i < n and text[i] in "lL":
        i += 1
    if approximate:
        value = float(text[start:body_end])
        if value in (float("inf"), float("-inf")):
            raise SelectorError("number outside the range of a double", start)
        return _number_end(text, i, ("float", value, start))
    if len(whole) > 1 and whole[0] == "0":
        # IBM: a leading zero always starts an octal number, so 09 is a syntax error.
        if not set(whole) <= _OCTAL:
            raise SelectorError("digit 8 or 9 in an octal number (a leading 0 means octal)", start)
        return _number_end(text, i, ("int", _java_long_bits(int(whole, 8), start), start))
    return _number_end(text, i, ("int", int(whole), start))


def _java_long_bits(value: int, position: int) -> int:
    # Hexadecimal and octal literals are bit patterns of a Java long: 0xFFFFFFFFFFFFFFFF is -1.
    if value >> 64:
        raise SelectorError("number outside the range of a 64-bit integer", position)
    return value - (1 << 64) if value >> 63 else value


def _number_end(text: str, i: int, token: tuple) -> tuple[tuple, int]:
    # "12abc" or "1.2.3" is one malformed word, not a number followed by a name.
    if i < len(text) and (_id_part(text[i]) or text[i] == '"' or text[i] == "'"):
        raise SelectorError("malformed number", token[2])
    return token, i


# ---- tree ----------------------------------------------------------------------------------------
# Static kinds, known without a message: "bool" (a condition), "num", "str", "bytes", and "any" for
# an identifier, whose type only a message decides.


@dataclasses.dataclass(slots=True)
class _Node:
    op: str  # lit id neg pos arith cmp between like in isnull not and or
    pos: int
    kind: str
    args: tuple


_LIT_KIND = {bool: "bool", int: "num", float: "num", str: "str", bytes: "bytes"}


class _Parser:
    def __init__(self, text: str):
        self.tokens = _tokenize(text)
        self.i = 0
        self.depth = 0
        self.names: set[str] = set()

    # -- helpers
    def peek(self, ahead: int = 0) -> tuple:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def take(self) -> tuple:
        tok = self.tokens[self.i]
        if tok[0] != "eof":
            self.i += 1
        return tok

    def at(self, kind: str, value=None) -> bool:
        tok = self.tokens[self.i]
        return tok[0] == kind and (value is None or tok[1] == value)

    def expect(self, kind: str, value, what: str) -> tuple:
        if not self.at(kind, value):
            self.fail(f"expected {what}")
        return self.take()

    def fail(self, message: str):
        tok = self.peek()
        found = "end of selector" if tok[0] == "eof" else repr(_token_text(tok))
        raise SelectorError(f"{message}, found {found}", tok[2])

    def nest(self, pos: int):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise SelectorError(f"selector nested more than {MAX_NESTING} deep", pos)

    @staticmethod
    def need(node: _Node, kinds: tuple, what: str):
        if node.kind not in kinds:
            raise SelectorError(f"{what} cannot be a {_KIND_NAMES[node.kind]}", node.pos)

    # -- grammar, lowest precedence first
    def parse(self) -> _Node:
        node = self.parse_or()
        if not self.at("eof"):
            self.fail("expected AND, OR or the end of the selector")
        self.need(node, ("bool", "any"), "a selector")
        return node

    # Each level calls the next directly (no shared helper taking the operand parser): a helper
    # would add a Python frame per level to every parenthesis.
    def parse_or(self) -> _Node:
        first = self.parse_and()
        if not self.at("kw", "OR"):
            return first
        items = [first]
        while self.at("kw", "OR"):
            self.take()
            items.append(self.parse_and())
        return self._logical("or", items)

    def parse_and(self) -> _Node:
        first = self.parse_not()
        if not self.at("kw", "AND"):
            return first
        items = [first]
        while self.at("kw", "AND"):
            self.take()
            items.append(self.parse_not())
        return self._logical("and", items)

    def _logical(self, op: str, items: list) -> _Node:
        # a OR b OR c is one n-ary node: a long chain costs no depth (AND and OR are associative in
        # three-valued logic too).
        for item in items:
            self.need(item, ("bool", "any"), f"an operand of {op.upper()}")
        return _Node(op, items[0].pos, "bool", tuple(items))

    def parse_not(self) -> _Node:
        if not self.at("kw", "NOT"):
            return self.parse_predicate()
        pos = self.take()[2]
        self.nest(pos)
        inner = self.parse_not()
        self.depth -= 1
        self.need(inner, ("bool", "any"), "the operand of NOT")
        return _Node("not", pos, "bool", (inner,))

    def parse_predicate(self) -> _Node:
        left = self.parse_additive()
        tok = self.peek()
        if tok[0] == "op" and tok[1] in _COMPARISONS:
            self.take()
            right = self.parse_additive()
            return _Node("cmp", left.pos, "bool", (tok[1], left, right))
        negated = False
        if tok[0] == "kw" and tok[1] == "NOT" and self.peek(1)[:2] in (("kw", "BETWEEN"), ("kw", "LIKE"), ("kw", "IN")):
            self.take()
            negated = True
            tok = self.peek()
        if tok[0] != "kw":
            return left
        if tok[1] == "BETWEEN":
            self.take()
            low = self.parse_additive()
            self.expect("kw", "AND", "AND between the bounds of BETWEEN")
            high = self.parse_additive()
            for node in (left, low, high):
                self.need(node, ("num", "any"), "an operand of BETWEEN")
            return _Node("between", left.pos, "bool", (left, low, high, negated))
        if tok[1] == "LIKE":
            self.take()
            self.need_identifier(left, "LIKE")
            pattern_tok = self.peek()
            if pattern_tok[0] != "str":
                self.fail("LIKE needs a string literal pattern")
            self.take()
            escape = None
            if self.at("kw", "ESCAPE"):
                self.take()
                esc_tok = self.peek()
                if esc_tok[0] != "str":
                    self.fail("ESCAPE needs a string literal")
                if len(esc_tok[1]) != 1:
                    raise SelectorError("the ESCAPE literal must be exactly one character", esc_tok[2])
                self.take()
                escape = esc_tok[1]
            matcher = _like_matcher(pattern_tok[1], escape, pattern_tok[2])
            return _Node("like", left.pos, "bool", (left, matcher, negated))
        if tok[1] == "IN":
            self.take()
            self.need_identifier(left, "IN")
            self.expect("op", "(", "'(' after IN")
            values = []
            while True:
                item = self.peek()
                if item[0] != "str":
                    # JMS and IBM list only string literals in an IN list.
                    self.fail("IN lists only string literals")
                self.take()
                values.append(item[1])
                if not self.at("op", ","):
                    break
                self.take()
            self.expect("op", ")", "',' or ')' in the IN list")
            return _Node("in", left.pos, "bool", (left, frozenset(values), negated))
        if tok[1] == "IS":  # (NOT stands after IS, never before it)
            self.take()
            is_not = False
            if self.at("kw", "NOT"):
                self.take()
                is_not = True
            self.expect("kw", "NULL", "NULL after IS" if not is_not else "NULL after IS NOT")
            self.need_identifier(left, "IS NULL")
            return _Node("isnull", left.pos, "bool", (left, is_not))
        return left

    def need_identifier(self, node: _Node, what: str):
        # JMS's grammar puts an identifier, and only an identifier, before LIKE, IN and IS NULL.
        if node.op != "id":
            raise SelectorError(f"the left side of {what} must be an identifier", node.pos)

    def parse_additive(self) -> _Node:
        first = self.parse_multiplicative()
        rest = []
        while self.at("op") and self.peek()[1] in "+-":
            op = self.take()[1]
            rest.append((op, self.parse_multiplicative()))
        return self._arith(first, rest)

    def parse_multiplicative(self) -> _Node:
        first = self.parse_unary()
        rest = []
        while self.at("op") and self.peek()[1] in "*/":
            op = self.take()[1]
            rest.append((op, self.parse_unary()))
        return self._arith(first, rest)

    def _arith(self, first: _Node, rest: list) -> _Node:
        # Left to right within a level, folded by a loop at evaluation: a chain of 5000 '+' costs
        # no depth.
        if not rest:
            return first
        for node in (first, *(n for _, n in rest)):
            self.need(node, ("num", "any"), "an arithmetic operand")
        return _Node("arith", first.pos, "num", (first, tuple(rest)))

    def parse_unary(self) -> _Node:
        tok = self.peek()
        if not (tok[0] == "op" and tok[1] in "+-"):
            return self.parse_primary()
        self.take()
        nxt = self.peek()
        if tok[1] == "-" and nxt[0] == "int":
            # A minus before an integer literal belongs to the literal: that is how -9223372036854775808
            # is written even though 9223372036854775808 alone is out of range.  (A hexadecimal or
            # octal literal is already signed; negating its most negative value wraps, as in Java.)
            self.take()
            return self._literal(-nxt[1] if nxt[1] >= 0 else _wrap(-nxt[1]), tok[2])
        self.nest(tok[2])
        inner = self.parse_unary()
        self.depth -= 1
        self.need(inner, ("num", "any"), f"the operand of unary {tok[1]}")
        return _Node("neg" if tok[1] == "-" else "pos", tok[2], "num", (inner,))

    def parse_primary(self) -> _Node:
        kind, value, pos = self.peek()
        if kind in ("str", "bytes", "int", "float"):
            self.take()
            return self._literal(value, pos)
        if kind == "id":
            self.take()
            self.names.add(value)
            return _Node("id", pos, "any", (value,))
        if kind == "kw" and value in ("TRUE", "FALSE"):
            self.take()
            return self._literal(value == "TRUE", pos)
        if kind == "op" and value == "(":
            self.take()
            self.nest(pos)
            if self.at("op", ")"):
                self.fail("expected an expression inside the parentheses")
            inner = self.parse_or()
            self.expect("op", ")", "')'")
            self.depth -= 1
            inner.pos = pos  # errors about the operand point at its '('
            return inner
        if kind == "kw" and value == "NULL":
            raise SelectorError("NULL stands only in IS NULL and IS NOT NULL", pos)
        if kind == "kw":
            raise SelectorError(f"{value} is a reserved word, not an identifier", pos)
        self.fail("expected an operand")

    @staticmethod
    def _literal(value, pos: int) -> _Node:
        if type(value) is int and not _LONG_MIN <= value <= _LONG_MAX:
            raise SelectorError("number outside the range of a 64-bit integer", pos)
        return _Node("lit", pos, _LIT_KIND[type(value)], (value,))


_KIND_NAMES = {"bool": "condition", "num": "number", "str": "string", "bytes": "byte string", "any": "identifier"}
_COMPARISONS = frozenset({"=", "<>", "<", ">", "<=", ">="})


def _token_text(tok: tuple) -> str:
    kind, value, _ = tok
    if kind == "str":
        return "'" + value.replace("'", "''") + "'"
    if kind == "bytes":
        return '"0x' + value.hex() + '"'
    return str(value)


# ---- LIKE ----------------------------------------------------------------------------------------
def _like_matcher(pattern: str, escape: str | None, pos: int) -> Callable[[str], bool]:
    """A function telling whether a string matches the LIKE pattern: '_' one character, '%' any run.

    The pattern is cut at its '%' into fixed-length segments, each compiled once to a regular
    expression without any repetition; the first segment must match at the start, the last at the
    end, and the middle ones are found left to right, each as early as it can be.  That is exact
    (fixed-length segments never gain from a later placement) and linear in the segments, where one
    regular expression with a '.*' per '%' backtracks without bound on a hostile '%a%a%a...%b'.
    """
    segments: list[list[str]] = [[]]  # each item a regex fragment for one character
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape:
            if i + 1 == len(pattern):
                raise SelectorError("LIKE pattern ends with its escape character", pos)
            segments[-1].append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if ch == "%":
            segments.append([])
        elif ch == "_":
            segments[-1].append(".")
        else:
            segments[-1].append(re.escape(ch))
        i += 1
    compiled = [(re.compile("".join(seg), re.DOTALL), len(seg)) for seg in segments]
    if len(compiled) == 1:
        whole = compiled[0][0].fullmatch
        return lambda s: whole(s) is not None
    (head, head_len), *middle, (tail, tail_len) = compiled
    middle = [(rx.search, length) for rx, length in middle if length]  # '%%' is one '%'

    def match(s: str) -> bool:
        stop = len(s) - tail_len
        if stop < head_len or head.match(s) is None or tail.match(s, stop) is None:
            return False
        at = head_len
        for search, length in middle:
            found = search(s, at, stop)
            if found is None:
                return False
            at = found.start() + length
        return True

    return match


# ---- values --------------------------------------------------------------------------------------
def _normalize(value):
    """A resolved value as a selector sees it: bool, int (64-bit), float, str, bytes or None."""
    t = type(value)
    if t is str or t is bool or t is float or t is bytes or value is None:
        return value
    if t is int:
        return value if _LONG_MIN <= value <= _LONG_MAX else None
    if isinstance(value, int):  # IntEnum and friends
        return _normalize(int(value))
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return None


def _wrap(value: int) -> int:
    # Java long arithmetic overflows silently, two's complement.
    if _LONG_MIN <= value <= _LONG_MAX:
        return value
    return ((value - _LONG_MIN) & 0xFFFFFFFFFFFFFFFF) + _LONG_MIN


def _add(a, b):
    if type(a) is int and type(b) is int:
        return _wrap(a + b)
    if type(a) in _NUM and type(b) in _NUM:
        return float(a) + float(b)
    return None


def _sub(a, b):
    if type(a) is int and type(b) is int:
        return _wrap(a - b)
    if type(a) in _NUM and type(b) in _NUM:
        return float(a) - float(b)
    return None


def _mul(a, b):
    if type(a) is int and type(b) is int:
        return _wrap(a * b)
    if type(a) in _NUM and type(b) in _NUM:
        return float(a) * float(b)
    return None


def _div(a, b):
    if type(a) is int and type(b) is int:
        if b == 0:
            return None
        q = abs(a) // abs(b)  # Java truncates toward zero
        return _wrap(-q if (a < 0) != (b < 0) else q)
    if type(a) in _NUM and type(b) in _NUM:
        b = float(b)
        return None if b == 0.0 else float(a) / b
    return None


_ARITH = {"+": _add, "-": _sub, "*": _mul, "/": _div}
_ORDER = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}


def _equal(a, b):
    if a is None or b is None:
        return None
    ta, tb = type(a), type(b)
    if ta is tb:
        return a == b
    if ta in _NUM and tb in _NUM:
        return float(a) == float(b)  # Java promotes the long to double
    return False


def _unequal(a, b):
    # Not NOT(=): unlike types make <> FALSE as well ("the value of the operation is false").
    if a is None or b is None:
        return None
    ta, tb = type(a), type(b)
    if ta is tb:
        return a != b
    if ta in _NUM and tb in _NUM:
        return float(a) != float(b)
    return False


def _compare(test, a, b):
    if a is None or b is None:
        return None
    ta, tb = type(a), type(b)
    if ta in _NUM and tb in _NUM:
        if ta is not tb:
            return test(float(a), float(b))
        return test(a, b)
    return False


def _compare_fn(op: str):
    if op == "=":
        return _equal
    if op == "<>":
        return _unequal
    test = _ORDER[op]
    return functools.partial(_compare, test)


def _and3(a, b):
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return None


def _or3(a, b):
    if a is True or b is True:
        return True
    if a is False and b is False:
        return False
    return None


# ---- compiling the tree into closures ------------------------------------------------------------
def _compile(node: _Node):
    return _COMPILERS[node.op](node)


def _c_lit(node):
    value = node.args[0]
    return lambda r: value


def _c_id(node):
    name = node.args[0]

    def load(r):
        v = r(name)
        t = type(v)
        if t is str or t is float or t is bool or v is None:
            return v
        if t is int:
            return v if _LONG_MIN <= v <= _LONG_MAX else None
        return _normalize(v)
    return load


def _c_neg(node):
    inner = _compile(node.args[0])

    def neg(r):
        v = inner(r)
        t = type(v)
        if t is int:
            return _wrap(-v)
        if t is float:
            return -v
        return None
    return neg


def _c_pos(node):
    inner = _compile(node.args[0])

    def pos(r):
        v = inner(r)
        return v if type(v) in _NUM else None
    return pos


def _c_arith(node):
    first = _compile(node.args[0])
    rest = tuple((_ARITH[op], _compile(n)) for op, n in node.args[1])
    if len(rest) == 1:
        (fn, second), = rest
        return lambda r: fn(first(r), second(r))

    def chain(r):
        acc = first(r)
        for fn, f in rest:
            acc = fn(acc, f(r))
        return acc
    return chain


def _c_cmp(node):
    op, left, right = node.args
    lf = _compile(left)
    if right.op == "lit":
        # The common shape, Color = 'red' or Weight > 2500: the literal's type is checked once.
        lit = right.args[0]
        return _cmp_literal(op, lf, lit)
    rf = _compile(right)
    fn = _compare_fn(op)
    return lambda r: fn(lf(r), rf(r))


def _cmp_literal(op, lf, lit):
    if type(lit) in _NUM:
        if op in ("=", "<>"):
            test = operator.eq if op == "=" else operator.ne
        else:
            test = _ORDER[op]
        flit = float(lit)
        lit_type = type(lit)

        def num_cmp(r):
            v = lf(r)
            t = type(v)
            if t is lit_type:
                return test(v, lit)
            if t is int or t is float:
                return test(float(v), flit)
            return None if v is None else False
        return num_cmp
    if op in ("=", "<>"):
        want = op == "="
        lit_type = type(lit)

        def eq_cmp(r):
            v = lf(r)
            if type(v) is lit_type:
                return (v == lit) is want
            return None if v is None else False
        return eq_cmp

    def never(r):  # ordering a string, boolean or byte string: FALSE unless NULL
        return None if lf(r) is None else False
    return never


def _c_between(node):
    left, low, high, negated = node.args
    vf, lof, hif = _compile(left), _compile(low), _compile(high)
    lt, gt = functools.partial(_compare, operator.lt), functools.partial(_compare, operator.gt)
    le, ge = functools.partial(_compare, operator.le), functools.partial(_compare, operator.ge)
    if negated:
        return lambda r: _or3(lt(v := vf(r), lof(r)), gt(v, hif(r)))
    return lambda r: _and3(ge(v := vf(r), lof(r)), le(v, hif(r)))


def _c_like(node):
    left, matcher, negated = node.args
    vf = _compile(left)

    def like(r):
        v = vf(r)
        if type(v) is str:
            return matcher(v) is not negated
        if v is None:
            return None
        return negated  # an unlike type: LIKE is FALSE, NOT LIKE its negation
    return like


def _c_in(node):
    left, values, negated = node.args
    vf = _compile(left)

    def in_(r):
        v = vf(r)
        if type(v) is str:
            return (v in values) is not negated
        if v is None:
            return None
        return negated  # every '=' with an unlike type is FALSE
    return in_


def _c_isnull(node):
    left, is_not = node.args
    vf = _compile(left)
    if is_not:
        return lambda r: vf(r) is not None
    return lambda r: vf(r) is None


def _c_not(node):
    inner = _compile(node.args[0])

    def not_(r):
        v = inner(r)
        if v is True:
            return False
        if v is False:
            return True
        return None
    return not_


def _c_and(node):
    items = tuple(_compile(n) for n in node.args)

    def and_(r):
        unknown = False
        for f in items:
            v = f(r)
            if v is False:
                return False
            if v is not True:  # NULL, or an identifier that is not a boolean
                unknown = True
        return None if unknown else True
    return and_


def _c_or(node):
    items = tuple(_compile(n) for n in node.args)

    def or_(r):
        unknown = False
        for f in items:
            v = f(r)
            if v is True:
                return True
            if v is not False:
                unknown = True
        return None if unknown else False
    return or_


_COMPILERS = {"lit": _c_lit, "id": _c_id, "neg": _c_neg, "pos": _c_pos, "arith": _c_arith, "cmp": _c_cmp,
              "between": _c_between, "like": _c_like, "in": _c_in, "isnull": _c_isnull, "not": _c_not,
              "and": _c_and, "or": _c_or}


# ---- the public face -----------------------------------------------------------------------------
class Selector:
    """A compiled selection string.  ``resolve(name)`` gives a name's value, None for NULL."""

    __slots__ = ("text", "names", "_fn")

    def __init__(self, text: str, names: frozenset[str], fn):
        self.text = text
        self.names = names
        self._fn = fn

    def evaluate(self, resolve) -> bool | None:
        """TRUE, FALSE or UNKNOWN (None) for the message ``resolve`` describes."""
        v = self._fn(resolve)
        return v if v is True or v is False else None

    def matches(self, resolve) -> bool:
        """Whether the message is selected: the selector is TRUE for it."""
        return self._fn(resolve) is True

    def __repr__(self) -> str:
        return f"Selector({self.text!r})"


@functools.lru_cache(maxsize=1024)
def compile_selector(text: str) -> Selector:
    """Parse and compile ``text``; SelectorError if it is not a valid selector (cached by text).

    An empty or blank text is an error too: MQ treats an empty SelectionString as "no selector",
    which is for the caller to decide before compiling.
    """
    if len(text) > MQ_SELECTOR_LENGTH:
        raise SelectorError(f"selector longer than {MQ_SELECTOR_LENGTH} characters", MQ_SELECTOR_LENGTH)
    parser = _Parser(text)
    try:
        tree = parser.parse()
        fn = _compile(tree)
    except RecursionError:
        # MAX_NESTING keeps the parser far from the limit; this only guards a caller that is itself
        # already deep in its stack.
        raise SelectorError("selector too deeply nested for this caller", 0) from None
    return Selector(text, frozenset(parser.names), fn)


# ---- what a message offers -----------------------------------------------------------------------
_ROOT_MQMD = "Root.MQMD."
_MISSING = object()


def _strip(value):
    return value.rstrip(" \0") if type(value) is str else value


def _hex_id(value: bytes):
    # MQMI_NONE / MQCI_NONE / MQGI_NONE (all zero) is "no identifier": IBM MQ's JMS shows it as null.
    return None if not any(value) else "ID:" + value.hex()


def _put_millis(md):
    # PutDate YYYYMMDD and PutTime HHMMSSTH are GMT; JMS wants milliseconds since the epoch.  A date
    # or time that is not one (blank, or a hand-made MQMD's) gives NULL rather than a made-up instant.
    stamp = _strip(md.PutDate) + _strip(md.PutTime)
    if len(stamp) != 16 or not stamp.isascii() or not stamp.isdigit():
        return None
    year, month, day, hour, minute, second, hundredths = (
        int(stamp[:4]), int(stamp[4:6]), int(stamp[6:8]), int(stamp[8:10]), int(stamp[10:12]),
        int(stamp[12:14]), int(stamp[14:]))
    if not (year >= 1 and 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]
            and hour <= 23 and minute <= 59 and second <= 59):
        return None
    return calendar.timegm((year, month, day, hour, minute, second)) * 1000 + hundredths * 10


def _expiration(md, props):
    if md.Expiry == -1:  # MQEI_UNLIMITED: JMS's "never expires"
        return 0
    stamp = _put_millis(md)
    return None if stamp is None else stamp + md.Expiry * 100  # Expiry counts tenths of a second


_JMS_NAMES: dict[str, Callable] = {
    "JMSDeliveryMode": lambda md, p: "PERSISTENT" if md.Persistence == 1 else "NON_PERSISTENT",
    "JMSPriority": lambda md, p: md.Priority,
    "JMSMessageID": lambda md, p: _hex_id(md.MsgId),
    "JMSCorrelationID": lambda md, p: p["jms.Cid"] if p.get("jms.Cid") is not None else _hex_id(md.CorrelId),
    "JMSTimestamp": lambda md, p: _put_millis(md),
    "JMSExpiration": _expiration,
    "JMSType": lambda md, p: p.get("mcd.Type"),
    "JMSRedelivered": lambda md, p: md.BackoutCount > 0,
    "JMSXDeliveryCount": lambda md, p: md.BackoutCount + 1,
    "JMSXUserID": lambda md, p: _strip(md.UserIdentifier),
    "JMSXAppID": lambda md, p: _strip(md.PutApplName),
    "JMSXGroupID": lambda md, p: p["jms.Gid"] if p.get("jms.Gid") is not None else _hex_id(md.GroupId),
    "JMSXGroupSeq": lambda md, p: md.MsgSeqNumber,
}


@functools.lru_cache(maxsize=None)
def _md_fields(cls) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else frozenset()


def message_resolver(md, properties) -> Callable[[str], object]:
    """``resolve(name)`` for one message: JMS names and Root.MQMD.<Field> from ``md``, the rest from
    ``properties`` (user properties bare, other folders' with their prefix; ``usr.X`` finds ``X``).

    Values are worked out on first use and remembered, because routing evaluates every matching
    subscription's selector against the same publication.
    """
    props = properties if properties is not None else {}
    md_fields = _md_fields(type(md))
    cache: dict[str, object] = {}

    def resolve(name: str):
        value = cache.get(name, _MISSING)
        if value is not _MISSING:
            return value
        jms = _JMS_NAMES.get(name)
        if jms is not None:
            value = jms(md, props)
        elif name.startswith(_ROOT_MQMD):
            field = name[len(_ROOT_MQMD):]
            value = _strip(getattr(md, field)) if field in md_fields else None
        elif name in props:
            value = props[name]
        elif name.startswith("usr.") and name[4:] in props:
            value = props[name[4:]]
        else:
            value = None
        cache[name] = value
        return value

    return resolve
