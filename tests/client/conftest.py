"""Fixtures the ibmmq test modules share: an admin connection and a PCFExecute on the module's own
``server`` (each module starts its server with the settings it needs)."""

from __future__ import annotations

import pytest

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"


@pytest.fixture(scope="module")
def conn_name(server):
    return server.conn_name


@pytest.fixture(scope="module")
def qmgr(conn_name):
    ibmmq = pytest.importorskip("ibmmq")
    qm = ibmmq.connect("QM1", ADMIN_CHANNEL, conn_name, "admin", "passw0rd")
    yield qm
    qm.disconnect()


@pytest.fixture(scope="module")
def pcf(qmgr):
    ibmmq = pytest.importorskip("ibmmq")
    p = ibmmq.PCFExecute(qmgr)
    yield p
    p.disconnect()
