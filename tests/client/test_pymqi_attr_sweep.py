"""The attribute sweep (tests/support/attrsweep.py) through pymqi 1.12, unchanged, over qmlite's
``pymqe``: queues of every type, topics, subscriptions and channels of every non-cluster type; each
attribute changed to a non-default valid value and read back with Inquire, and each invalid value
refused with IBM's reason, as tests/client/test_ibmmq_attr_sweep.py does through ``ibmmq``."""

from __future__ import annotations

import os

import pytest

if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
    import pymqi
else:
    pymqi = pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

from pymqi import CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from tests.support import attrsweep as W  # noqa: E402

ADMIN = "DEV.ADMIN.SVRCONN"
_COMMAND_NAMES = {v: k for k, v in vars(CMQCFC).items() if k.startswith("MQCMD_") and isinstance(v, int)}
SWEEPS = (*W.QUEUES, W.TOPIC, W.SUBSCRIPTION, *W.CHANNELS)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("pymqi-attr-sweep")) as srv:
        yield srv


@pytest.fixture(scope="module")
def send(server):
    qm = pymqi.connect("QM1", ADMIN, server.conn_name, "admin", "passw0rd")
    pcf = pymqi.PCFExecute(qm)

    def call(command: int, params: dict) -> list[dict]:
        return getattr(pcf, _COMMAND_NAMES[command])({k: wire(v) for k, v in params.items()})

    yield call
    qm.disconnect()


def wire(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return pymqi.ByteString(value)
    if isinstance(value, list) and value and isinstance(value[0], str):
        return [v.encode() for v in value]
    return value


def reason_of(fn, *args, **kwargs) -> int:
    with pytest.raises(pymqi.MQMIError) as info:
        fn(*args, **kwargs)
    return info.value.reason


@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda s: s.id)
def test_pymqi_changes_every_attribute_and_reads_it_back(sweep, send):
    first, copied = W.object_name(sweep, "PA"), W.object_name(sweep, "PB")
    W.prerequisites(send, sweep)
    W.create(send, sweep, first)
    W.change_each(send, sweep, first)
    assert not W.mismatches(W.inquire(send, sweep, first), sweep)
    W.copy(send, sweep, first, copied)
    assert not W.mismatches(W.inquire(send, sweep, copied), sweep)


@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda s: s.id)
def test_pymqi_invalid_values_refused(sweep, send):
    name = W.object_name(sweep, "PX")
    W.prerequisites(send, sweep)
    W.create(send, sweep, name)
    refused = {row.pid: reason_of(W.change, send, sweep, name, row.pid, row.invalid)
               for row in sweep.rows if row.has_invalid and not row.create_only}
    assert refused == {row.pid: row.reason for row in sweep.rows if row.has_invalid and not row.create_only}
    assert refused
