"""Every fenced block in README.md and docs/*.md says what it is, so tests/docs runs it or says why not
(the convention: tests/support/docexamples.py)."""

from __future__ import annotations

import re

from tests.support import docexamples as D

BLOCKS = D.blocks()
MARKERS = re.compile(r"skip: \S.*|POST /\S+|response")


def test_every_block_names_its_language():
    unnamed = [b.where for b in BLOCKS if b.language not in D.LANGUAGES]
    assert not unnamed, f"give these blocks one of {D.LANGUAGES}: {unnamed}"


def test_every_example_comment_is_one_the_tests_know():
    odd = [f"{b.where}: {b.marker}" for b in BLOCKS if b.marker and not MARKERS.fullmatch(b.marker)]
    assert not odd


def test_a_response_follows_a_request():
    for before, block in zip(BLOCKS, BLOCKS[1:]):
        if block.marker == "response":
            assert before.marker.startswith("POST ") and before.path == block.path, block.where


def test_skipped_blocks_are_few_and_say_why():
    skipped = [b for b in BLOCKS if b.skip_reason is not None]
    assert all(len(b.skip_reason) > 10 for b in skipped)
    assert len(skipped) <= len(BLOCKS) // 4, [b.where for b in skipped]  # examples are run, not excused


def test_the_docs_have_examples_of_every_kind_run():
    kinds = {b.language for b in BLOCKS if b.skip_reason is None}
    assert {"mqsc", "runmqsc", "python", "sh", "json"} <= kinds
