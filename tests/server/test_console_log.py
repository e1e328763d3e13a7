"""``qmlite serve``'s standard output as IBM's container's: the ready line, then the error log mirrored in
MQ_LOGGING_CONSOLE_FORMAT's format, IBM's start lines in IBM's order, and a refusal's entry as it happens
(registry/monitoring/errorlog/consolelog.py, docs/errorlog.md)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from qmlite.client.errors import MQIError
from qmlite.client.sync import QueueManager

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


def _serve(tmp_path, env: dict, *args: str) -> subprocess.Popen:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MQ_", "LOG_FORMAT"))}
    return subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--data-dir",
                             str(tmp_path / "data"), "--log-level", "warning", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**base, **env})


def _port(ready: str) -> int:
    return int(re.search(r"listening on 127\.0\.0\.1:(\d+)", ready).group(1))


def _refuse_a_client(port: int) -> None:
    with pytest.raises(MQIError):
        QueueManager.connect("127.0.0.1", port, "NO.SUCH.SVRCONN", "QM1", user="app").close()


def _stop(proc: subprocess.Popen) -> list[str]:
    proc.send_signal(signal.SIGTERM)
    rest, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    return rest.splitlines()


def test_basic_the_start_lines_in_ibms_order_then_a_refusal_then_the_end(tmp_path):
    proc = _serve(tmp_path, {}, "--http-port", "0")
    try:
        ready = proc.stdout.readline()
        assert ready.startswith("qmlite ready: queue manager QM1")
        start = [proc.stdout.readline().rstrip("\n") for _ in range(5)]
        _refuse_a_client(_port(ready))
        refused = proc.stdout.readline().rstrip("\n")  # mirrored as it is written
        after = _stop(proc)
    finally:
        proc.kill()
    for line in start + [refused] + after:
        assert re.match(STAMP + " ", line), line  # every line begins with the container's datetime
    texts = [line.split(" ", 1)[1] for line in start]
    assert texts[0] == "AMQ8003I: IBM MQ queue manager 'QM1' started using V9.1.2.0. " \
                       "[CommentInsert1(9.1.2.0), CommentInsert3(QM1)]"  # IBM's 9.4.4.0 container: the same
    assert re.fullmatch(r"AMQ5026I: The listener '([A-Z.0-9]+)' has started\. ProcessId\((\d+)\)\. "
                        r"\[ArithInsert1\(\2\), CommentInsert1\(\1\)\]", texts[1]), texts[1]
    assert texts[2:] == ["AMQ5806I: Queued Publish/Subscribe Daemon started for queue manager QM1. "
                         "[CommentInsert1(QM1)]", "Started queue manager", "Started web server"]
    assert refused.split(" ", 1)[1] == "AMQ9519E: Channel 'NO.SUCH.SVRCONN' not found. " \
                                       "[CommentInsert1(NO.SUCH.SVRCONN)]"
    assert [line.split(" ", 1)[1] for line in after] == ["AMQ8004I: IBM MQ queue manager 'QM1' ended. "
                                                         "[CommentInsert3(QM1)]"]


def test_json_every_line_parses_and_carries_ibms_fields(tmp_path):
    proc = _serve(tmp_path, {"MQ_LOGGING_CONSOLE_FORMAT": "json"})
    try:
        ready = proc.stdout.readline()
        start = [json.loads(proc.stdout.readline()) for _ in range(4)]
        _refuse_a_client(_port(ready))
        after = [json.loads(proc.stdout.readline())] + [json.loads(line) for line in _stop(proc)]
    finally:
        proc.kill()
    assert [r.get("ibm_messageId", r["message"]) for r in start] == ["AMQ8003I", "AMQ5026I", "AMQ5806I",
                                                                      "Started queue manager"]
    assert [r["ibm_messageId"] for r in after] == ["AMQ9519E", "AMQ8004I"]
    for record in start[:3] + after:
        assert record["type"] == "mq_log" and record["ibm_serverName"] == "QM1" and record["host"]
        assert re.fullmatch(STAMP, record["ibm_datetime"]) and record["message"].startswith(record["ibm_messageId"])
    assert start[1]["ibm_arithInsert1"] == start[1]["ibm_processId"] == proc.pid
    assert after[0]["loglevel"] == "ERROR" and after[0]["ibm_commentInsert1"] == "NO.SUCH.SVRCONN"
    assert after[0]["ibm_remoteHost"] == "127.0.0.1"
    assert start[3]["type"] == "mq_containerlog" and list(start[3]) == sorted(start[3])


def test_source_web_alone_mirrors_no_queue_manager_line(tmp_path):
    proc = _serve(tmp_path, {"MQ_LOGGING_CONSOLE_SOURCE": "web"})
    try:
        proc.stdout.readline()
        assert proc.stdout.readline().split(" ", 1)[1] == "Started queue manager\n"
        assert _stop(proc) == []
    finally:
        proc.kill()
    # the error log on disk has it all the same
    log = (tmp_path / "data" / "errors" / "AMQERR01.LOG").read_text()
    assert "AMQ8003I" in log and "AMQ8004I" in log
