"""Fixtures shared by the engine tests: a fake clock and a registry + engine on a temporary directory."""

from __future__ import annotations

import pytest

from tests.support.pcfkit import Clock, Harness


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def h(tmp_path, clock):
    harness = Harness(tmp_path / "qm", clock=clock)
    yield harness
    harness.close()
