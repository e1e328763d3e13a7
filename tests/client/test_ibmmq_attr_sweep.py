"""Every Change command, every documented attribute, through IBM's ``ibmmq``: for each object type but
the queue manager (queues of every type, topics, subscriptions, channels of every non-cluster type,
authentication information of every type, namelists, processes, listeners, services, communication
information) the sweep creates an object, changes each attribute of tests/support/attrsweep.py to a
non-default valid value, reads each back with Inquire, copies the object and reads the copy, restarts
the server and reads both again; every invalid value is refused with IBM's reason, and every attribute
of another subtype with the reason IBM gives for it."""

from __future__ import annotations

import pytest

ibmmq = pytest.importorskip("ibmmq")

from ibmmq import CMQCFC  # noqa: E402

from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402
from qmlite.pcf import constants as C  # noqa: E402
from qmlite.registry.admin.commands import channels as CH  # noqa: E402
from qmlite.registry.admin.commands import endpoints, namelists, processes, queues, subscriptions, topics  # noqa: E402
from tests.support import attrsweep as W  # noqa: E402
from tests.support.ibmmqkit import raises  # noqa: E402

ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
_COMMAND_NAMES = {v: k for k, v in vars(CMQCFC).items() if k.startswith("MQCMD_") and isinstance(v, int)}


def _applies(chltype: int, pid: int) -> bool:
    spec = next((s for s in CH.SPECS if s.param.id == pid), None)
    return spec is not None and spec.applies(chltype)


CHANNELS = W.channels(_applies)
SWEEPS = (*W.QUEUES, W.TOPIC, W.SUBSCRIPTION, *CHANNELS, *W.AUTHINFOS, *W.SIMPLE)


# ---- how a row travels through ibmmq -------------------------------------------------------------
def wire(value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return ibmmq.ByteString(value)
    if isinstance(value, list) and value and isinstance(value[0], str):
        return [v.encode() for v in value]
    return value


def seen(value):
    """An Inquire value as the table writes it: strings stripped of MQ's blank padding."""
    if isinstance(value, bytes):
        return value.decode("latin-1").rstrip(" \x00")
    if isinstance(value, list):
        return [seen(v) for v in value]
    return value


def expected(row: W.Row):
    value = row.expected
    return value.hex() if isinstance(value, bytes) else value


def actual(obj: dict, row: W.Row):
    value = obj[row.pid]
    if isinstance(row.expected, bytes):
        return bytes(value).hex()
    return seen(value)


def call(pcf, command: int, params: dict) -> list[dict]:
    return getattr(pcf, _COMMAND_NAMES[command])({k: wire(v) for k, v in params.items()})


# ---- the sweep's steps ---------------------------------------------------------------------------
def object_name(sweep: W.Sweep, suffix: str) -> str:
    name = f"SW.{sweep.id.split('-')[-1].upper()}.{suffix}"
    assert len(name) <= sweep.name_length
    return name


def prerequisites(pcf, sweep: W.Sweep) -> None:
    if sweep is W.SUBSCRIPTION:
        call(pcf, C.MQCMD_CREATE_Q, {C.MQCA_Q_NAME: "SWEEP.SUB.DEST", C.MQIA_Q_TYPE: C.MQQT_LOCAL,
                                     C.MQIACF_REPLACE: C.MQRP_YES})
        call(pcf, C.MQCMD_CREATE_TOPIC, {C.MQCA_TOPIC_NAME: "SWEEP.SUB.TOPIC", C.MQCA_TOPIC_STRING: "sweep",
                                         C.MQIACF_REPLACE: C.MQRP_YES})


def per_object(sweep: W.Sweep, name: str) -> dict:
    """The Create parameters that name the object (a topic object's string is unique per object)."""
    return {k: v.format(name=name.lower()) for k, v in sweep.on_create.items()
            if isinstance(v, str) and "{name}" in v}


def create(pcf, sweep: W.Sweep, name: str) -> None:
    params = {sweep.name_pid: name, **sweep.fixed, **sweep.on_create, **per_object(sweep, name)}
    params.update({r.pid: r.valid for r in sweep.rows if r.create_only})
    call(pcf, sweep.create, params)


def change(pcf, sweep: W.Sweep, name: str, pid: int, value) -> None:
    call(pcf, sweep.change, {sweep.name_pid: name, **sweep.fixed, pid: value})


def copy(pcf, sweep: W.Sweep, source: str, target: str) -> None:
    call(pcf, sweep.copy, {sweep.from_pid: source, sweep.to_pid: target, **sweep.fixed, **per_object(sweep, target)})


def inquire(pcf, sweep: W.Sweep, name: str) -> dict:
    params = {sweep.name_pid: name, **sweep.fixed}
    if sweep is W.SUBSCRIPTION:
        params = {sweep.name_pid: name}
    [obj] = call(pcf, sweep.inquire, params)
    return obj


def check_all(obj: dict, sweep: W.Sweep, *, skip=()) -> None:
    wrong = {r.pid: (actual(obj, r), expected(r))
             for r in sweep.rows if r.pid not in skip and actual(obj, r) != expected(r)}
    assert not wrong, wrong


@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda s: s.id)
def test_change_every_attribute_copy_and_restart(sweep, tmp_path):
    data = tmp_path / "qm"
    first, copied = object_name(sweep, "A"), object_name(sweep, "B")
    with running_qmlite(data) as srv:
        qm = ibmmq.connect("QM1", ADMIN_CHANNEL, srv.conn_name, "admin", "passw0rd")
        pcf = ibmmq.PCFExecute(qm)
        try:
            prerequisites(pcf, sweep)
            create(pcf, sweep, first)
            for row in sweep.rows:
                if not row.create_only:
                    change(pcf, sweep, first, row.pid, row.valid)
            check_all(inquire(pcf, sweep, first), sweep)  # each change kept, none undone by a later one
            copy(pcf, sweep, first, copied)
            topic_string = {C.MQCA_TOPIC_STRING} if sweep is W.SUBSCRIPTION else set()
            check_all(inquire(pcf, sweep, copied), sweep, skip=topic_string)
        finally:
            pcf.disconnect()
            qm.disconnect()
    with running_qmlite(data) as srv:  # persisted: the same after a restart
        qm = ibmmq.connect("QM1", ADMIN_CHANNEL, srv.conn_name, "admin", "passw0rd")
        pcf = ibmmq.PCFExecute(qm)
        try:
            check_all(inquire(pcf, sweep, first), sweep)
            check_all(inquire(pcf, sweep, copied), sweep, skip=topic_string)
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
    name = object_name(sweep, "BAD")
    prerequisites(pcf, sweep)
    create(pcf, sweep, name)
    before = inquire(pcf, sweep, name)
    swept = 0
    for row in sweep.rows:
        if not row.has_invalid:
            continue
        swept += 1
        if row.create_only:
            other = object_name(sweep, "BAD2")
            params = {sweep.name_pid: other, **sweep.fixed, **sweep.on_create, **per_object(sweep, other), row.pid: row.invalid}
            raises(row.reason, call, pcf, sweep.create, params)
        else:
            raises(row.reason, change, pcf, sweep, name, row.pid, row.invalid)
    assert swept
    assert inquire(pcf, sweep, name) == before  # a refused Change changes nothing


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
    name = object_name(sweep, "TYPE")
    create(pcf, sweep, name)
    for row in _other_type_rows(sweep):
        raises(_wrong_type_reason(sweep, row), change, pcf, sweep, name, row.pid, row.valid)


# ---- the table covers every attribute qmlite accepts ---------------------------------------------
def _settable(sweep: W.Sweep) -> set[int]:
    if sweep.keywords_type == "QUEUE":
        return {p.id for p in queues.SETTABLE[sweep.fixed[C.MQIA_Q_TYPE]]}
    if sweep is W.TOPIC:
        return set(topics.FIELDS)
    if sweep is W.SUBSCRIPTION:
        return set(subscriptions.FIELD)
    if sweep.keywords_type == "CHANNEL":
        return {s.param.id for s in CH.SPECS if s.applies(sweep.fixed[C.MQIACH_CHANNEL_TYPE])}
    if sweep.keywords_type == "AUTHINFO":
        return {s.param.id for s in endpoints.AUTHINFO_SPECS if s.applies(sweep.fixed[C.MQIA_AUTH_INFO_TYPE])}
    kind = {"NAMELIST": namelists.KIND, "PROCESS": processes.KIND, "LISTENER": endpoints.LISTENER,
            "SERVICE": endpoints.SERVICE, "COMMINFO": endpoints.COMMINFO}[sweep.keywords_type]
    return {p.id for p, _ in kind.definition}


@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda s: s.id)
def test_the_sweep_covers_every_attribute_qmlite_accepts(sweep):
    assert {r.pid for r in sweep.rows} == _settable(sweep)
