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


@pytest.fixture(scope="session")
def checkout_wheel(tmp_path_factory):
    """The wheel ``pip install .`` builds from this working tree (built once a session, from a copy:
    setuptools writes build/ and *.egg-info beside the sources).  For the slow packaging tests."""
    from tests.support import wheelkit

    top = tmp_path_factory.mktemp("checkout-wheel")
    src = wheelkit.copy_files(wheelkit.checkout_files(), wheelkit.REPO, top / "src")
    return wheelkit.build_wheel(src, top)
