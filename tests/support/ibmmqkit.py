"""Helpers for tests that drive IBM's ``ibmmq`` through our transport."""

from __future__ import annotations

import pytest


def raises(reason: int, fn, *args, **kwargs):
    """Call ``fn``; it must fail with ``reason`` (an ibmmq MQMIError); returns the error."""
    import ibmmq

    with pytest.raises(ibmmq.MQMIError) as info:
        fn(*args, **kwargs)
    assert info.value.reason == reason, info.value
    return info.value
