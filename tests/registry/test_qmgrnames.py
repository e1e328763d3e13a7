"""Queue-manager names (registry/qmgrnames.py) and the hosting rules built on them (registry/hosting.py):
the one validator, IBM's directory transformation, a QMID that fits 48 bytes, and the caps on what
create-on-connect may create -- over names hypothesis draws, and with stand-in queue managers."""

from __future__ import annotations

import re
import string
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qmlite.registry import hosting, qmgrnames

NAME_CHARS = string.ascii_letters + string.digits + "./_%"
names = st.text(alphabet=NAME_CHARS, min_size=1, max_size=48).filter(lambda n: n not in (".", ".."))
anything = st.text(max_size=60)


@given(names)
def test_every_name_of_ibms_characters_is_valid(name):
    assert qmgrnames.is_name(name)


@given(anything)
def test_the_validator_is_ibms_rule_exactly(text):
    expected = 1 <= len(text) <= 48 and all(c in NAME_CHARS for c in text) and text not in (".", "..")
    assert qmgrnames.is_name(text) is expected
    if not expected:
        assert qmgrnames.why_not(text)  # every refusal says why


@pytest.mark.parametrize("bad", [".", "..", "QM3\n", "QM3\r", "\nQM3", "QM\x003", "QM 3", "A" * 49, "", "QM-3",
                                 "QM\u00c93", "QM*", None, 3, b"QM3"])
def test_what_no_door_may_take(bad):
    assert not qmgrnames.is_name(bad)
    with pytest.raises(hosting.HostingError) as err:
        hosting.check_name(bad)
    assert err.value.reason == hosting.MQRC_Q_MGR_NAME_ERROR
    assert err.value.command_reason == hosting.MQRCCF_Q_MGR_NAME_ERROR


@given(names)
def test_a_directory_name_is_safe_and_gives_its_name_back(name):
    directory = qmgrnames.directory_name(name)
    assert "/" not in directory and directory not in (".", "..") and not directory.startswith(".")
    assert qmgrnames.name_of_directory(directory) == name


def test_ibms_transformation():
    assert qmgrnames.directory_name("queue.manager") == "queue!manager"  # IBM's own example
    assert qmgrnames.directory_name("QM/A.B") == "QM&A!B"
    assert qmgrnames.name_of_directory("QM3\n") is None
    assert qmgrnames.name_of_directory("!") is None  # "." is no queue manager's
    assert qmgrnames.name_of_directory("OLD.NAME") == "OLD.NAME"  # a directory from before NM2


@given(names, st.floats(min_value=0, max_value=4_000_000_000))
def test_a_qmid_always_fits_its_48_bytes(name, created):
    qmid = qmgrnames.identifier(name, created)
    assert len(qmid) <= 48
    assert qmid.startswith(name[:28] + "_")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d_\d\d\.\d\d\.\d\d", qmid[-19:])
    if len(name) <= 28:
        assert qmid[:-20] == name


# ---- the hosting rules, with stand-in queue managers ---------------------------------------------------
def _qm(name: str):
    registry = types.SimpleNamespace(qmgr=types.SimpleNamespace(name=name, created=0.0), created=None)
    registry.set_created = lambda t: setattr(registry, "created", t)
    return types.SimpleNamespace(registry=registry, hosting=None, shutdown=lambda: None)


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _hosting(tmp_path, **kw):
    opened = []

    def opener(name, path):
        opened.append((name, path))
        (path / "qmlite.db").write_bytes(b"")
        return _qm(name)

    return hosting.QueueManagers(tmp_path, _qm("QM1"), opener=opener, **kw), opened


def test_create_on_connect_needs_the_pattern(tmp_path):
    qmgrs, opened = _hosting(tmp_path, create_pattern="TEST*")
    with pytest.raises(hosting.HostingError) as err:
        qmgrs.create_on_connect("OTHER")
    assert err.value.reason == hosting.MQRC_Q_MGR_NAME_ERROR and not opened
    qm = qmgrs.create_on_connect("TEST.A/B", created=1234.0)
    assert opened == [("TEST.A/B", tmp_path / "qmgrs" / "TEST!A&B")]
    assert qm.registry.created == 1234.0  # the QMID the ID exchange gave
    assert qmgrs.create_on_connect("TEST.A/B") is qm


def test_the_cap_on_hosted_queue_managers(tmp_path):
    qmgrs, opened = _hosting(tmp_path, create_pattern="*", max_qmgrs=3)
    qmgrs.create("QM2")
    qmgrs.create_on_connect("QM3")
    for create in (lambda: qmgrs.create("QM4"), lambda: qmgrs.create_on_connect("QM4")):
        with pytest.raises(hosting.HostingError) as err:
            create()
        assert err.value.reason == hosting.MQRC_Q_MGR_NOT_AVAILABLE
        assert err.value.command_reason == hosting.MQRCCF_OBJECT_LIMIT_EXCEEDED
    assert len(qmgrs) == 3 and not (tmp_path / "qmgrs" / "QM4").exists()


def test_the_rate_of_creations_by_mqconn(tmp_path):
    clock = _Clock()
    qmgrs, opened = _hosting(tmp_path, create_pattern="*", create_rate=2, clock=clock)
    qmgrs.create_on_connect("A1")
    qmgrs.create_on_connect("A2")
    with pytest.raises(hosting.HostingError) as err:
        qmgrs.create_on_connect("A3")
    assert err.value.reason == hosting.MQRC_Q_MGR_NOT_AVAILABLE
    qmgrs.create("BY.ADMIN")  # administrators' creations are not rated
    assert qmgrs.create_on_connect("A1") is not None  # finding one creates nothing
    clock.now += hosting.RATE_WINDOW  # a minute later the window is empty again
    qmgrs.create_on_connect("A3")
    assert [name for name, _ in opened] == ["A1", "A2", "BY.ADMIN", "A3"]


def test_an_opener_failure_is_2059_names_no_path_and_leaves_nothing(tmp_path):
    def opener(name, path):
        raise RuntimeError(f"{path} is in use by another qmlite")

    qmgrs = hosting.QueueManagers(tmp_path, _qm("QM1"), opener=opener, create_pattern="*")
    with pytest.raises(hosting.HostingError) as err:
        qmgrs.create("QM2")
    assert err.value.reason == hosting.MQRC_Q_MGR_NOT_AVAILABLE
    assert str(tmp_path) not in str(err.value) and "in use" in str(err.value.__cause__)
    assert not (tmp_path / "qmgrs" / "QM2").exists() and len(qmgrs) == 1


def test_directories_of_an_earlier_run(tmp_path):
    root = tmp_path / "qmgrs"
    for directory in ("QM3\n", "TEST!A", "OLD.NAME", "GOOD", "BAD", "bad name"):
        (root / directory).mkdir(parents=True)
    (root / "qmlite.db").write_bytes(b"")  # what "." once left in qmgrs/ itself: not a directory
    skipped = []
    qmgrs, opened = _hosting(tmp_path)
    found = qmgrs.open_existing(report=lambda d, why: skipped.append(d))
    assert sorted(found) == ["BAD", "GOOD", "OLD.NAME", "TEST.A"]
    assert sorted(skipped) == ["QM3\n", "bad name"]
    assert qmgrs.data_dir_of("OLD.NAME") == root / "OLD.NAME"  # a directory before NM2 keeps serving

    def opener(name, path):
        if name == "BAD":
            raise OSError("unreadable")
        return _qm(name)

    qmgrs._opener = opener
    reported = []
    qmgrs.create_many(["QM2"], found=found, report=lambda n, why: reported.append(n))
    assert qmgrs.names() == ["QM1", "GOOD", "OLD.NAME", "QM2", "TEST.A"]
    assert reported == ["BAD"]
    assert (root / "BAD").is_dir()  # an earlier run's directory is never removed
    with pytest.raises(OSError):  # a configured one that will not open stops the start
        qmgrs.create_many(["BAD"])
