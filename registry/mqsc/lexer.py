"""One MQSC command's text into tokens: keywords, and parenthesised values.

IBM's rules: keywords and unquoted values are not case-sensitive and are folded to upper case;
blanks and commas separate; a value in single quotes keeps its case and blanks, ``''`` inside it
stands for one quote.  A parenthesised value may hold a list (``NAMES(A, B)``, ``AUTHADD(PUT,GET)``).
Anything else - an unbalanced parenthesis or quote, a quote outside parentheses, parentheses inside
an unquoted value - is a syntax error, reported with the text up to where it was found (AMQ8405I).
"""

from __future__ import annotations

import dataclasses
import re

_SEPARATORS = re.compile(r"[ \t,]*")
_WORD = re.compile(r"[^ \t,()']+")
_QUOTED = re.compile(r"'((?:[^']|'')*)'")


class MqscSyntaxError(Exception):
    """``segment``: the command text up to and including the point of the error."""

    def __init__(self, segment: str, why: str = "") -> None:
        super().__init__(why or segment)
        self.segment = segment
        self.why = why


@dataclasses.dataclass(frozen=True, slots=True)
class Item:
    text: str
    quoted: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Token:
    """A keyword (``word``, upper case) and its parenthesised value, if it has one (``items``)."""

    word: str
    items: tuple[Item, ...] | None = None
    end: int = 0  # offset just past the token (its value included) in the command text
    word_end: int = 0  # offset just past the keyword itself

    @property
    def value(self) -> str | None:
        return None if self.items is None else (self.items[0].text if self.items else "")


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(text)
    while True:
        i = _SEPARATORS.match(text, i).end()  # type: ignore[union-attr]
        if i >= n:
            return tokens
        ch = text[i]
        if ch == "(":
            if not tokens or tokens[-1].items is not None:  # a value with no keyword before it
                raise MqscSyntaxError(text[:i + 1], "value without a keyword")
            items, i = _paren(text, i)
            last = tokens[-1]
            tokens[-1] = Token(last.word, items, i, last.word_end)
            continue
        if ch in ")'":
            raise MqscSyntaxError(text[:i + 1], "unexpected " + ch)
        word = _WORD.match(text, i)
        j = word.end()  # type: ignore[union-attr]
        tokens.append(Token(text[i:j].upper(), None, j, j))
        i = j


def _paren(text: str, i: int) -> tuple[tuple[Item, ...], int]:
    """The items of the parenthesised value starting at ``text[i] == "("``; the offset after ")"."""
    items: list[Item] = []
    i += 1
    n = len(text)
    while True:
        i = _SEPARATORS.match(text, i).end()  # type: ignore[union-attr]
        if i >= n:
            raise MqscSyntaxError(text, "missing )")
        ch = text[i]
        if ch == ")":
            return tuple(items), i + 1
        if ch == "(":
            raise MqscSyntaxError(text[:i + 1], "unexpected (")
        if ch == "'":
            quoted = _QUOTED.match(text, i)
            if quoted is None:
                raise MqscSyntaxError(text, "missing closing quote")
            items.append(Item(quoted.group(1).replace("''", "'"), True))
            i = quoted.end()
            if i < n and text[i] not in " \t,)":
                raise MqscSyntaxError(text[:i + 1], "text after a quoted string")
            continue
        word = _WORD.match(text, i)
        j = word.end()  # type: ignore[union-attr]
        if j < n and text[j] in "('":
            raise MqscSyntaxError(text[:j + 1], "unexpected " + text[j])
        items.append(Item(text[i:j].upper()))
        i = j
