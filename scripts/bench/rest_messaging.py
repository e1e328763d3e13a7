#!/usr/bin/env python3
"""REST messaging against MQI in the same run (issue 13): requests per second over loopback.

Starts ``python -m qmlite serve --port 0 --http-port 0`` (throwaway data directory, MQ_APP_PASSWORD set,
log level warning), then, one client at a time on one connection each:

* ``rest put`` -- ``POST /ibmmq/rest/v1/messaging/qmgr/QM1/queue/DEV.QUEUE.1/message`` as ``app`` with a
  ``--size``-byte text body, for ``--seconds``; the client is a keep-alive HTTP/1.1 connection
  (the standard library's http.client: one TCP connection for the whole run, as a CI client pool keeps);
* ``rest get`` -- ``DELETE .../message`` (destructive get) of what was put, same connection;
* ``mqi put`` / ``mqi get`` -- the same operations with our sync client (``qmlite.client.sync``) on
  DEV.APP.SVRCONN: MQPUT (NO_SYNCPOINT) on a handle opened once, then MQGET (NO_WAIT) of what was put.

* ``empty post`` -- the floor of the HTTP stack, in the same run: the same POSTs to a Starlette app
  whose one handler reads the body and answers 201, served by hypercorn's trio worker in its own
  process (no queue manager behind it).

* ``layer put`` / ``layer get`` -- the REST layer without HTTP, in this process: server/http/messaging.py's
  ``Messaging.put`` and ``Messaging.get`` (domain connect, MQPUT1 or MQOPEN/MQGET/MQCLOSE, MQDISC, the
  headers and text of the answer) on a queue manager served in this process (CPU per op is this
  process's).

Messages are non-persistent unless ``--persistent``.  Each line gives the operations per second and
the CPU the server process used per operation (from /proc), so a line says which side was busy.

    python scripts/bench/rest_messaging.py --seconds 5
    python scripts/bench/rest_messaging.py --seconds 5 --persistent
"""

from __future__ import annotations

import argparse
import base64
import http.client
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
APP_PASSWORD = "bench-passw0rd"
PATH = "/ibmmq/rest/v1/messaging/qmgr/QM1/queue/DEV.QUEUE.1/message"
TICKS = os.sysconf("SC_CLK_TCK")
_READY = re.compile(r"listening on 127\.0\.0\.1:(\d+) and http://127\.0\.0\.1:(\d+) ")


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start_server(tmp: pathlib.Path) -> tuple[subprocess.Popen, int, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQ_")}
    env["MQ_APP_PASSWORD"] = APP_PASSWORD
    proc = subprocess.Popen([sys.executable, "-m", "qmlite", "serve", "--port", "0", "--http-port", "0",
                             "--data-dir", str(tmp / "data"), "--log-level", "warning"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=open(tmp / "server.log", "wb"), text=True)
    line = proc.stdout.readline()
    found = _READY.search(line)
    if not found:
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}\n{(tmp / 'server.log').read_text()[-2000:]}")
    proc.stdout.readline()  # the first of IBM's start lines (docs/errorlog.md); the rest stay unread
    return proc, int(found.group(1)), int(found.group(2))


def deepen_queue(port: int) -> None:
    """MaxQDepth of DEV.QUEUE.1 to the largest allowed, by PCF as the administrator: a put phase must
    not stop at the default 5000."""
    from qmlite.client.sync import QueueManager
    from qmlite.pcf import constants as C
    from qmlite.pcf import pcf as P

    with QueueManager.connect("127.0.0.1", port, "DEV.ADMIN.SVRCONN", "QM1", user="admin", password="passw0rd") as qm:
        qm.pcf(C.MQCMD_CHANGE_Q, [P.CFST(C.MQCA_Q_NAME, "DEV.QUEUE.1"), P.CFIN(C.MQIA_Q_TYPE, C.MQQT_LOCAL),
                                  P.CFIN(C.MQIA_MAX_Q_DEPTH, 999_999_999)])


def timed(pid: int, seconds: float, op, limit: int | None = None) -> tuple[int, float, float]:
    """(operations, elapsed seconds, server CPU seconds) of calling ``op`` for ``seconds`` (or ``limit`` times)."""
    n = 0
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    deadline = t0 + seconds
    while (limit is None and time.perf_counter() < deadline) or (limit is not None and n < limit):
        op()
        n += 1
    return n, time.perf_counter() - t0, cpu_seconds(pid) - cpu0


def report(name: str, n: int, elapsed: float, cpu: float) -> None:
    print(f"{name:10s} {n / elapsed:9,.0f} ops/s   ({n:,} in {elapsed:.2f} s; server CPU {cpu / n * 1e6:6.0f} us/op)",
          flush=True)


def rest(pid: int, port: int, args) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    auth = "Basic " + base64.b64encode(f"app:{APP_PASSWORD}".encode()).decode()
    body = ("x" * args.size).encode()
    put_headers = {"Authorization": auth, "ibm-mq-rest-csrf-token": "", "Content-Type": "text/plain;charset=utf-8",
                   "ibm-mq-md-persistence": "persistent" if args.persistent else "nonPersistent"}
    get_headers = {"Authorization": auth, "ibm-mq-rest-csrf-token": ""}

    def put():
        conn.request("POST", PATH, body, put_headers)
        r = conn.getresponse()
        r.read()
        assert r.status == 201, r.status

    def get():
        conn.request("DELETE", PATH, headers=get_headers)
        r = conn.getresponse()
        data = r.read()
        assert r.status == 200 and len(data) == args.size, (r.status, len(data))

    for _ in range(200):  # warm up: the connection, the server's code paths
        put()
        get()
    n, elapsed, cpu = timed(pid, args.seconds, put)
    report("rest put", n, elapsed, cpu)
    report("rest get", *timed(pid, args.seconds, get, limit=n))
    conn.close()


def mqi(pid: int, port: int, args) -> None:
    from qmlite.client.sync import QueueManager
    from qmlite.pcf import constants as C
    from qmlite.pcf import mqi as S

    body = ("x" * args.size).encode()
    persistence = C.MQPER_PERSISTENT if args.persistent else C.MQPER_NOT_PERSISTENT
    with QueueManager.connect("127.0.0.1", port, "DEV.APP.SVRCONN", "QM1", user="app", password=APP_PASSWORD) as qm:
        hobj, _ = qm.open(S.MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)

        def put():
            qm.put(hobj, S.MQMD(Format=C.MQFMT_STRING, CodedCharSetId=1208, Persistence=persistence),
                   S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), body)

        def get():
            _, _, data = qm.get(hobj, S.MQMD(), S.MQGMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT), 65536)
            assert len(data) == args.size

        for _ in range(200):
            put()
            get()
        n, elapsed, cpu = timed(pid, args.seconds, put)
        report("mqi put", n, elapsed, cpu)
        report("mqi get", *timed(pid, args.seconds, get, limit=n))
        qm.close(hobj)


async def _empty_app_main() -> None:
    """``--serve-empty``: the empty app on hypercorn's trio worker; prints its port, serves until killed."""
    from hypercorn.config import Config
    from hypercorn.trio import serve
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    async def handler(request):
        await request.body()
        return Response(status_code=201)

    config = Config()
    config.bind, config.accesslog, config.errorlog = ["127.0.0.1:0"], None, None
    app = Starlette(routes=[Route("/ibmmq/rest/{version}/messaging/qmgr/{qmgr}/queue/{queue}/message", handler,
                                  methods=["POST"])])
    import trio

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(lambda task_status: serve(app, config, task_status=task_status))
        print(binds[0].rsplit(":", 1)[1], flush=True)


def empty(args) -> None:
    proc = subprocess.Popen([sys.executable, __file__, "--serve-empty"], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        conn = http.client.HTTPConnection("127.0.0.1", port)
        body = ("x" * args.size).encode()

        def post():
            conn.request("POST", PATH, body, {"Content-Type": "text/plain;charset=utf-8"})
            r = conn.getresponse()
            r.read()
            assert r.status == 201

        for _ in range(200):
            post()
        report("empty post", *timed(proc.pid, args.seconds, post))
        conn.close()
    finally:
        proc.kill()
        proc.wait()


def layer(args) -> None:
    import trio

    from qmlite.server import config
    from qmlite.server import log as qlog
    from qmlite.server.http import messaging
    from qmlite.server.listener import running

    qlog.configure(level="warning")

    class Headers(dict):
        def getlist(self, key):
            return [self[key]] if key in self else []

    headers = Headers({"content-type": "text/plain;charset=utf-8",
                       "ibm-mq-md-persistence": "persistent" if args.persistent else "nonPersistent"})
    body = ("x" * args.size).encode()

    async def run() -> None:
        with tempfile.TemporaryDirectory(prefix="qmlite-bench-layer-", dir="/tmp") as tmp:
            cfg = config.load(environ={}, overrides={"port": 0, "data_dir": pathlib.Path(tmp) / "data"})
            async with running(cfg) as server:
                server.qm.registry.queues["DEV.QUEUE.1"].max_depth = 999_999_999
                msg = messaging.Messaging(server, "QM1")
                pid = os.getpid()
                for name, op in (("layer put", lambda: msg.put("app", "", "DEV.QUEUE.1",
                                                                messaging.outgoing(headers, body, 1, "QM1"))),
                                 ("layer get", lambda: msg.get("app", "", "DEV.QUEUE.1", msg_id=None, correl_id=None,
                                                               wait_ms=0, browse=False))):
                    n, cpu0, t0 = 0, cpu_seconds(pid), time.perf_counter()
                    while time.perf_counter() - t0 < args.seconds / 2:
                        got = await op()
                        if name == "layer get":
                            if got is None:
                                break
                            messaging.response_headers(got, 1)
                            messaging.text_of(got, 1208)
                        n += 1
                    report(name, n, time.perf_counter() - t0, cpu_seconds(pid) - cpu0)

    trio.run(run)


def main() -> None:
    if sys.argv[1:] == ["--serve-empty"]:
        import trio

        trio.run(_empty_app_main)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measurement time per put phase")
    parser.add_argument("--size", type=int, default=100, help="message body bytes (default 100)")
    parser.add_argument("--persistent", action="store_true", help="persistent messages (default non-persistent)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qmlite-bench-rest-", dir="/tmp") as tmp:
        proc, mq_port, http_port = start_server(pathlib.Path(tmp))
        try:
            print(f"# {args.size}-byte {'persistent' if args.persistent else 'non-persistent'} messages, "
                  f"one connection, {os.cpu_count()} CPUs, python {sys.version.split()[0]}", flush=True)
            deepen_queue(mq_port)
            rest(proc.pid, http_port, args)
            mqi(proc.pid, mq_port, args)
            empty(args)
            layer(args)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)


if __name__ == "__main__":
    main()
