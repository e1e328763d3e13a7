"""Every Change command, every documented attribute, through IBM's ``ibmmq``: for each object type but
the queue manager (queues of every type, topics, subscriptions, channels of every non-cluster type,
authentication information of every type, namelists, processes, listeners, services, communication
information) the sweep creates an object, changes each attribute of tests/support/attrsweep.py to a
non-default valid value, reads each back with Inquire, copies the object and reads the copy, restarts
the server and reads both again; every invalid value is refused with IBM's reason, every value sent in
the wrong PCF structure with the parameter-id error of that structure, and every attribute of another
subtype with the reason IBM gives for it."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.pcf import constants as C  # noqa: E402
from qmlite.registry.admin.commands import channels as channelcmds  # noqa: E402
from qmlite.registry.admin.commands import endpoints, namelists, processes, queues, subscriptions, topics  # noqa: E402
from tests.support import attrsweep as W  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
_COMMAND_NAMES = {v: k for k, v in vars(CMQCFC).items() if k.startswith("MQCMD_") and isinstance(v, int)}


SWEEPS = W.ALL


# ---- how a row travels through ibmmq -------------------------------------------------------------
def wire(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return ibmmq.ByteString(value)
    if isinstance(value, list) and value and isinstance(value[0], str):
        return [v.encode() for v in value]
    return value


def call(pcf, command: int, params: dict) -> list[dict]:
    return getattr(pcf, _COMMAND_NAMES[command])({k: wire(v) for k, v in params.items()})


def client(pcf):
    return lambda command, params: call(pcf, command, params)


@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda s: s.id)
def test_change_every_attribute_copy_and_restart(sweep, tmp_path):
    data = tmp_path / "qm"
    first, copied = W.object_name(sweep, "A"), W.object_name(sweep, "B")
    with running_qmlite(data) as srv:
        qm = ibmmq.connect("QM1", ADMIN_CHANNEL, srv.conn_name, "admin", "passw0rd")
        pcf = ibmmq.PCFExecute(qm)
        send = client(pcf)
        try:
            W.prerequisites(send, sweep)
            W.create(send, sweep, first)
            W.change_each(send, sweep, first)
            assert not W.mismatches(W.inquire(send, sweep, first), sweep)  # each kept, none undone by a later one
            W.copy(send, sweep, first, copied)
            assert not W.mismatches(W.inquire(send, sweep, copied), sweep)
        finally:
            pcf.disconnect()
            qm.disconnect()
    with running_qmlite(data) as srv:  # persisted: the same after a restart
        qm = ibmmq.connect("QM1", ADMIN_CHANNEL, srv.conn_name, "admin", "passw0rd")
        pcf = ibmmq.PCFExecute(qm)
        send = client(pcf)
        try:
            assert not W.mismatches(W.inquire(send, sweep, first), sweep)
            assert not W.mismatches(W.inquire(send, sweep, copied), sweep)
        finally:
            pcf.disconnect()
            qm.disconnect()


# ---- invalid values, wrong subtypes --------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("ibmmq-attr-sweep")) as srv:
        yield srv


@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda s: s.id)
def test_invalid_values_refused_with_ibms_reasons(sweep, pcf):
    send = client(pcf)
    name = W.object_name(sweep, "BAD")
    W.prerequisites(send, sweep)
    W.create(send, sweep, name)
    before = W.inquire(send, sweep, name)
    swept = 0
    for row in sweep.rows:
        if not row.has_invalid:
            continue
        swept += 1
        if row.create_only:
            other = W.object_name(sweep, "BAD2")
            raises(row.reason, W.create, send, sweep, other, params={row.pid: row.invalid})
        else:
            raises(row.reason, W.change, send, sweep, name, row.pid, row.invalid)
    assert swept
    assert W.inquire(send, sweep, name) == before  # a refused Change changes nothing


def _other_type_rows(sweep: W.Sweep) -> tuple[W.Row, ...]:
    if sweep.keywords_type == "QUEUE":
        return W.queue_rows_not_for(sweep)
    if sweep.keywords_type == "AUTHINFO":
        return W.authinfo_rows_not_for(sweep)
    if sweep.keywords_type == "CHANNEL":
        mine = {r.pid for r in sweep.rows}
        return tuple(r for r in W.channel_rows() if r.pid not in mine)
    return ()


def _wrong_type_reason(sweep: W.Sweep, row: W.Row) -> int:
    if sweep.wrong_type != -1:
        return sweep.wrong_type
    # A queue attribute of another queue type: the parameter-id error of the structure it came in.
    return C.MQRCCF_CFIN_PARM_ID_ERROR if isinstance(row.valid, int) else C.MQRCCF_CFST_PARM_ID_ERROR


@pytest.mark.parametrize("sweep", [s for s in SWEEPS if _other_type_rows(s)], ids=lambda s: s.id)
def test_attributes_of_another_type_refused(sweep, pcf):
    send = client(pcf)
    name = W.object_name(sweep, "TYPE")
    W.create(send, sweep, name)
    for row in _other_type_rows(sweep):
        raises(_wrong_type_reason(sweep, row), W.change, send, sweep, name, row.pid, row.valid)


# ---- the table covers every attribute qmlite accepts ---------------------------------------------
def _params(sweep: W.Sweep) -> dict:
    """{parameter id: Param} of every attribute the object type's Change command takes."""
    if sweep.keywords_type == "QUEUE":
        return {p.id: p for p in queues.SETTABLE[sweep.fixed[C.MQIA_Q_TYPE]]}
    if sweep is W.TOPIC:
        return {p.id: p for p, _ in topics.DEFINITION}
    if sweep is W.SUBSCRIPTION:
        return {p.id: p for p in subscriptions.DEFINITION_PARAMS}
    if sweep.keywords_type == "CHANNEL":
        return {s.param.id: s.param for s in channelcmds.SPECS if s.applies(sweep.fixed[C.MQIACH_CHANNEL_TYPE])}
    if sweep.keywords_type == "AUTHINFO":
        return {s.param.id: s.param for s in endpoints.AUTHINFO_SPECS
                if s.applies(sweep.fixed[C.MQIA_AUTH_INFO_TYPE])}
    kind = {"NAMELIST": namelists.KIND, "PROCESS": processes.KIND, "LISTENER": endpoints.LISTENER,
            "SERVICE": endpoints.SERVICE, "COMMINFO": endpoints.COMMINFO}[sweep.keywords_type]
    return {p.id: p for p, _ in kind.definition}


def _settable(sweep: W.Sweep) -> set[int]:
    return set(_params(sweep))


def _ranges(sweep: W.Sweep) -> list[tuple[W.Row, int, int]]:
    """The rows of integer attributes with a range (not a list of values), with its two ends."""
    params = _params(sweep)
    return [(r, params[r.pid].low, params[r.pid].high) for r in sweep.rows
            if not r.create_only and params[r.pid].values is None
            and params[r.pid].low is not None and params[r.pid].high is not None]


@pytest.mark.parametrize("sweep", [s for s in SWEEPS if _ranges(s)], ids=lambda s: s.id)
def test_integer_ranges_hold_at_both_ends(sweep, pcf):
    """Each end of an integer attribute's range is taken and reads back; one past either end is refused
    with MQRCCF_PARM_VALUE_ERROR (the ranges are IBM's: the table's invalid values check those)."""
    send = client(pcf)
    name = W.object_name(sweep, "RANGE")
    W.prerequisites(send, sweep)
    W.create(send, sweep, name)
    for row, low, high in _ranges(sweep):
        for end in (low, high):
            W.change(send, sweep, name, row.pid, end)
            assert W.inquire(send, sweep, name)[row.pid] == end
        for outside in (low - 1, high + 1):
            raises(C.MQRCCF_PARM_VALUE_ERROR, W.change, send, sweep, name, row.pid, outside)


@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda s: s.id)
def test_the_sweep_covers_every_attribute_qmlite_accepts(sweep):
    assert {r.pid for r in sweep.rows} == _settable(sweep)


def _in_wrong_structure(row: W.Row) -> tuple[object, int]:
    """The row's attribute sent in the other structure (an integer as a string, a string as an
    integer), and the reason: the parameter-id error of the structure it came in."""
    if isinstance(row.valid, int) or (isinstance(row.valid, list) and isinstance(row.valid[0], int)):
        return "1", C.MQRCCF_CFST_PARM_ID_ERROR
    return 1, C.MQRCCF_CFIN_PARM_ID_ERROR


@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda s: s.id)
def test_values_in_the_wrong_structure_refused(sweep, pcf):
    send = client(pcf)
    name = W.object_name(sweep, "STRUC")
    W.prerequisites(send, sweep)
    W.create(send, sweep, name)
    for row in sweep.rows:
        if row.create_only:
            continue
        value, reason = _in_wrong_structure(row)
        raises(reason, W.change, send, sweep, name, row.pid, value)
