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


def drain_admin(qmgr, name: str) -> list:
    """Every message on a queue of PCF admin messages (statistics, accounting, activity trace), taken
    off it: ``[(md, cfh, params)]``, each parsed by ibmmq's own ``PCFExecute.unpack``."""
    import ibmmq
    from ibmmq import CMQC

    queue = ibmmq.Queue(qmgr, name, CMQC.MQOO_INPUT_SHARED)
    out = []
    try:
        while True:
            md = ibmmq.MD()
            try:
                data = queue.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
            except ibmmq.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            assert md.Format == CMQC.MQFMT_ADMIN
            params, cfh = ibmmq.PCFExecute.unpack(data)
            out.append((md, cfh, params))
    finally:
        queue.close()
