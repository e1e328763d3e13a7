"""apache-airflow-providers-ibm-mq (docs/ecosystem.md), installed unchanged from the package index with
Airflow itself in a fresh virtual environment (Airflow's pins are its own: it is kept out of the dev
environment), then its hook and trigger against a qmlite server this test starts.

No Airflow deployment is needed for them: the connection comes from an ``AIRFLOW_CONN_*`` environment
variable, as Airflow reads connections before any metadata database.  Slow (a new environment and
Airflow's install: about 1.5 min with a warm pip cache), so marked ``slow``; the suite and CI run it."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from qmlite.client.pytest_plugin import running_qmlite

REPO = pathlib.Path(__file__).resolve().parents[2]
PROVIDER = ["apache-airflow-providers-ibm-mq[ibmmq]==0.1.0", "apache-airflow==3.3.2"]  # the versions tested

SCRIPT = textwrap.dedent('''
    import asyncio, json, os, sys
    os.environ["AIRFLOW_CONN_MQ_QMLITE"] = json.dumps({
        "conn_type": "ibmmq", "host": "127.0.0.1", "port": int(sys.argv[1]), "login": "admin",
        "password": "passw0rd", "extra": {"queue_manager": "QM1", "channel": "DEV.ADMIN.SVRCONN",
                                          "open_options": "MQOO_INPUT_SHARED | MQOO_FAIL_IF_QUIESCING"}})
    import ibmmq
    from airflow.providers.ibm.mq.hooks.mq import IBMMQHook
    from airflow.providers.ibm.mq.triggers.mq import AwaitMessageTrigger

    out = {"transport": ibmmq.ibmmqc.__file__}
    hook = IBMMQHook(conn_id="mq_qmlite")
    asyncio.run(hook.aproduce("DEV.QUEUE.1", "hello airflow"))
    asyncio.run(hook.aproduce("DEV.QUEUE.1", "second"))
    out["consumed"] = [asyncio.run(hook.aconsume("DEV.QUEUE.1", poll_interval=1)) for _ in range(2)]
    with hook.get_conn() as qmgr:  # the hook's own connection, for a look at what is left
        q = ibmmq.Queue(qmgr, "DEV.QUEUE.1", ibmmq.CMQC.MQOO_INQUIRE)
        out["depth"] = q.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH)
        q.close()
    asyncio.run(hook.aproduce("DEV.QUEUE.2", "for the trigger"))

    async def first_event():
        trigger = AwaitMessageTrigger(mq_conn_id="mq_qmlite", queue_name="DEV.QUEUE.2", poll_interval=1)
        async for event in trigger.run():
            return event.payload

    out["event"] = asyncio.run(first_event())
    try:
        asyncio.run(hook.aproduce("DEV.NO.SUCH.QUEUE", "x"))
    except ibmmq.MQMIError as exc:
        out["unknown_queue"] = exc.reason
    try:
        asyncio.run(IBMMQHook(conn_id="mq_qmlite", channel="NO.SUCH.CHANNEL").aproduce("DEV.QUEUE.1", "x"))
    except ConnectionError as exc:
        out["unknown_channel"] = exc.__cause__.reason
    print(json.dumps(out))
''')


@pytest.mark.slow
def test_airflow_ibm_mq_provider_hook_and_trigger(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "QMLITE_", "MQIPY_"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    subprocess.run([python, "-m", "pip", "install", "-q", str(REPO), *PROVIDER], check=True, env=env, timeout=600)
    script = tmp_path / "dag_parts.py"
    script.write_text(SCRIPT)
    env["AIRFLOW_HOME"] = str(tmp_path / "airflow")
    with running_qmlite(tmp_path / "data") as server:
        out = subprocess.run([python, str(script), str(server.port)], capture_output=True, text=True, env=env,
                             timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-4000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    # ibmmq's own extension cannot load without IBM's library: qmlite's transport, from the venv, carries it.
    assert pathlib.Path(result["transport"]).is_relative_to(venv)
    assert result["transport"].endswith(os.path.join("ibmmqc", "__init__.py"))
    assert result["consumed"] == ["hello airflow", "second"] and result["depth"] == 0
    assert result["event"] == "for the trigger"
    assert result["unknown_queue"] == 2085  # MQRC_UNKNOWN_OBJECT_NAME
    assert result["unknown_channel"] == 2540  # MQRC_UNKNOWN_CHANNEL_NAME
