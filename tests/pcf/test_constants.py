"""Our constant tables must agree with IBM's published ones, and name lookups must be exact."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

from qmlite.pcf import constants as C

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _ibm_tables() -> dict:
    spec = importlib.util.find_spec("ibmmq")
    assert spec is not None, "ibmmq (a dev dependency) must be installed"
    root = pathlib.Path(spec.submodule_search_locations[0])
    values: dict = {}
    for fname in ("_CMQC_linux_x64.py", "CMQCFC.py", "CMQXC.py"):
        mspec = importlib.util.spec_from_file_location(f"_ibm_{fname[:-3]}", root / fname)
        module = importlib.util.module_from_spec(mspec)
        mspec.loader.exec_module(module)
        for k, v in vars(module).items():
            values.setdefault(k, v)
    return values


def test_every_constant_matches_ibmmq():
    ibm = _ibm_tables()
    mismatched = []
    for name in C._ORDER:
        theirs = ibm[name]
        if isinstance(theirs, bytes) and name.startswith("MQFMT_"):
            theirs = theirs.decode("ascii")
        if getattr(C, name) != theirs:
            mismatched.append(name)
    assert mismatched == []
    assert len(C._ORDER) > 3000


def test_generated_file_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_constants.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    "family, value, name",
    [
        ("MQRC", 2432, "MQRC_SUB_ALREADY_EXISTS"),
        ("MQRC", 2428, "MQRC_NO_SUBSCRIPTION"),
        ("MQRCCF", 3311, "MQRCCF_SUB_ALREADY_EXISTS"),
        ("MQRCCF", 3008, "MQRCCF_COMMAND_FAILED"),
        ("MQCMD", 177, "MQCMD_CREATE_SUBSCRIPTION"),
        ("MQCMD", 181, "MQCMD_COPY_SUBSCRIPTION"),
        ("MQCFT", 16, "MQCFT_COMMAND_XR"),
        ("MQCACF", 3152, "MQCACF_SUB_NAME"),
        ("MQBACF", 7016, "MQBACF_SUB_ID"),
        ("MQIACF", 1009, "MQIACF_ALL"),
        ("MQCFOP", 18, "MQCFOP_LIKE"),
        ("MQDC", 1, "MQDC_MANAGED"),
        ("MQSUBTYPE", -2, "MQSUBTYPE_USER"),
        ("MQSUB_DURABLE", -1, "MQSUB_DURABLE_ALL"),
    ],
)
def test_name_lookup_by_family(family, value, name):
    assert C.name_of(family, value) == name
    assert C.value_of(name) == value


def test_reference_values_used_by_the_project():
    # Values the reference states outright (docs/reference/pcf.md section 6); a regeneration must never move them.
    assert (C.MQCMD_INQUIRE_SUBSCRIPTION, C.MQCMD_CHANGE_SUBSCRIPTION, C.MQCMD_DELETE_SUBSCRIPTION) == (176, 178, 179)
    assert (C.MQCMD_INQUIRE_SUB_STATUS, C.MQCMD_INQUIRE_TOPIC_STATUS, C.MQCMD_INQUIRE_Q_MGR) == (182, 183, 2)
    assert (C.MQCACF_LAST_MSG_DATE, C.MQCACF_LAST_MSG_TIME) == (3168, 3167)
    assert (C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQEI_UNLIMITED, C.MQWS_TOPIC) == (-3, -1, 2)
    assert C.MQFMT_ADMIN == "MQADMIN "
    assert (C.MQENC_NATIVE, C.MQ_SUB_NAME_LENGTH, C.MQ_TOPIC_NAME_LENGTH) == (546, 10240, 48)


def test_unknown_names_and_values():
    assert C.name_of("MQRC", 999_999) is None
    assert C.describe("MQRC", 999_999) == "999999"
    with pytest.raises(KeyError):
        C.value_of("MQRC_NO_SUCH_THING")
    with pytest.raises(KeyError):
        C.value_of("name_of")
