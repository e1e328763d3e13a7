"""Topics that a topic-scheme pattern selects, drawn by hypothesis: shared by the topic-index tests
(tests/registry/pubsub) so that the reference matchers and the index see the same kind of input."""

from __future__ import annotations

from hypothesis import strategies as st


def instance_levels(draw, pattern: str, word) -> list[str]:
    """The levels of a topic ``pattern`` selects: each "+" one ``word``, each "#" zero to two, so that
    random sets of patterns have topics matching several of them at once."""
    out: list[str] = []
    for level in pattern.split("/"):
        if level == "+":
            out.append(draw(word))
        elif level == "#":
            out.extend(draw(st.lists(word, max_size=2)))
        else:
            out.append(level)
    return out
