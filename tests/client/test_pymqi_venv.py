"""The documented way to get a working pymqi with no IBM software (README "Talking to it",
docs/pymqi.md), checked end to end: a fresh virtual environment, ``pip install`` of qmlite from this
repository, then pymqi from the package index with the compiler disabled, then a pymqi script against
a qmlite server this test starts.

Slow (a new environment and two installs: ~30 s with a warm pip cache), so marked ``slow``; the suite
and CI run it (``-m "not slow"`` leaves it out locally)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import textwrap

import pytest

from qmlite.client.pytest_plugin import running_qmlite
from tests.support.wheelkit import REPO, fresh_venv

PYMQI = "pymqi==1.12.13"  # installed with CC=true LDSHARED=true, as docs/pymqi.md says

SCRIPT = textwrap.dedent('''
    import json, os, sys
    import pymqi
    from pymqi import CMQC, CMQCFC

    conn_name = sys.argv[1]
    qmgr = pymqi.connect("QM1", "DEV.ADMIN.SVRCONN", conn_name, "admin", "passw0rd")
    queue = pymqi.Queue(qmgr, "DEV.QUEUE.1", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    md = pymqi.MD(Priority=6, Format=CMQC.MQFMT_STRING)
    queue.put(b"hello from pymqi", md)
    got_md = pymqi.MD()
    body = queue.get(None, got_md)
    try:
        queue.get()
        empty = 0
    except pymqi.MQMIError as exc:
        empty = exc.reason
    pcf = pymqi.PCFExecute(qmgr)
    names = sorted(r[CMQC.MQCA_Q_NAME].strip().decode() for r in pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"DEV.*"}))
    pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"VENV.SUB", CMQC.MQCA_TOPIC_STRING: b"venv/t",
                                   CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED})
    try:
        pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"VENV.SUB", CMQC.MQCA_TOPIC_STRING: b"venv/t",
                                       CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED})
        again = 0
    except pymqi.MQMIError as exc:
        again = exc.reason
    qmgr.disconnect()
    here = os.path.dirname
    print(json.dumps({
        "pymqe": pymqi.pymqe.__file__, "compiled": [f for f in os.listdir(here(pymqi.__file__)) if "pymqe" in f],
        "body": body.decode(), "priority": got_md.Priority, "msgid_kept": got_md.MsgId == md.MsgId,
        "empty": empty, "names": names, "again": again,
    }))
''')


@pytest.mark.slow
def test_documented_install_runs_a_pymqi_script(tmp_path):
    fresh = fresh_venv(tmp_path / "venv")
    venv, python, env = fresh.root, fresh.python, fresh.env
    fresh.pip_install(str(REPO))
    fresh.pip_install(PYMQI, env={**env, "CC": "true", "LDSHARED": "true"})
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    with running_qmlite(tmp_path / "data") as server:
        out = subprocess.run([python, str(script), server.conn_name], check=True, capture_output=True, text=True,
                             env=env, timeout=120, cwd=tmp_path)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert pathlib.Path(result["pymqe"]).is_relative_to(venv)  # qmlite's pymqe, installed in the venv
    assert result["pymqe"].endswith(os.path.join("pymqe", "__init__.py"))
    assert result["compiled"] == []  # pymqi as the index serves it, with no extension built
    assert (result["body"], result["priority"], result["msgid_kept"]) == ("hello from pymqi", 6, True)
    assert result["empty"] == 2033  # MQRC_NO_MSG_AVAILABLE
    assert {"DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE"} <= set(result["names"])
    assert result["again"] == 3311  # MQRCCF_SUB_ALREADY_EXISTS

    # Where pymqi's own extension exists (built with IBM's library) it wins: pymqi imports
    # ``from . import pymqe`` first.  A stand-in module inside the pymqi package plays the built one.
    package = pathlib.Path(result["pymqe"]).parents[1] / "pymqi"
    (package / "pymqe.py").write_text("__mqlevels__ = ('7.0',)\n__mqbuild__ = 'server'\n")
    probe = "import pymqi; print(pymqi.pymqe.__file__, pymqi.__mqbuild__)"
    out = subprocess.run([python, "-c", probe], check=True, capture_output=True, text=True, env=env, cwd=tmp_path)
    path, build = out.stdout.split()
    assert pathlib.Path(path) == package / "pymqe.py" and build == "server"
