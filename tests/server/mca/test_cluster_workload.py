"""Cluster workload, second round (issue 34 item 4): CLWLMRUC.  The three members of
tests/server/mca/test_cluster.py's harness, hosted by one server, driven through ibmmq."""

from __future__ import annotations

import pytest
import trio

from tests.server.mca.test_cluster import ADMIN, _cluster, _spread, _stop

ibmmq = pytest.importorskip("ibmmq")
from ibmmq import CMQC  # noqa: E402


def _alter_qmgr(port: int, qmgr: str, params: dict) -> None:
    qm = ibmmq.connect(qmgr, "DEV.ADMIN.SVRCONN", f"127.0.0.1({port})", *ADMIN)
    try:
        pcf = ibmmq.PCFExecute(qm)
        pcf.MQCMD_CHANGE_Q_MGR(params)
        pcf.disconnect()
    finally:
        qm.disconnect()


async def test_clwlmruc_one_keeps_every_put_on_the_channel_used_last(tmp_path):
    async with _cluster(tmp_path) as servers:
        port = servers["QM1"].port
        await trio.to_thread.run_sync(_alter_qmgr, port, "QM3", {CMQC.MQIA_CLWL_MRU_CHANNELS: 1})
        # BIND_NOT_FIXED chooses at every put: the first goes to QM1 (equal weights, the earlier name), and
        # from then on only the most recently used channel is left
        await _spread(servers, 10, {"QM1": 10, "QM2": 0})
        # CLWLMRUC(2): both channels again, the least used (QM2) catching up first
        await trio.to_thread.run_sync(_alter_qmgr, port, "QM3", {CMQC.MQIA_CLWL_MRU_CHANNELS: 2})
        await _spread(servers, 10, {"QM1": 0, "QM2": 10})
        _stop(servers)
