"""``qmlite trace``: a live, readable tail of every MQI call a running qmlite serves.

It reads qmlite's call log (registry/monitoring/activity.py) through the REST API's
``/admin/qmgr/{qm}/qmlite/calls`` (the server needs ``--http-port``): switches recording on, then asks
for the calls after the last one it printed, every ``--interval`` seconds, one line per call
(time, connection, application, verb, object, options by name, reason by name, message id, length,
microseconds).  REST requests are not MQI calls, so the tail never shows itself.  docs/decisions.md AT5.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class _Rest:
    def __init__(self, host: str, port: int, qmgr: str, user: str, password: str) -> None:
        self.url = f"http://{host}:{port}/ibmmq/rest/v2/admin/qmgr/{qmgr}/qmlite/calls"
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self.headers = {"Authorization": "Basic " + token, "ibm-mq-rest-csrf-token": "qmlite-trace",
                        "Content-Type": "application/json"}

    def request(self, method: str, query: dict | None = None, body: dict | None = None) -> dict:
        url = self.url + ("?" + urllib.parse.urlencode(query) if query else "")
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method, headers=self.headers)
        with urllib.request.urlopen(req, timeout=10) as reply:
            return json.loads(reply.read() or b"{}")


def run(args) -> int:
    password = args.password if args.password is not None else os.environ.get("MQ_ADMIN_PASSWORD", "passw0rd")
    rest = _Rest(args.host, args.http_port, args.qmgr, args.user, password)
    try:
        state = rest.request("POST", body={"record": True})
        after = 0 if args.all else state["last"]
        while True:
            query = {"after": after}
            if args.conn:
                query["connectionId"] = args.conn
            if args.appl:
                query["applName"] = args.appl
            for call in rest.request("GET", query)["calls"]:
                print(_line(call), flush=True)
                after = max(after, call["seq"])
            if args.once:
                return 0
            time.sleep(args.interval)  # a polling tail: the CLI's own pace, nothing to synchronise with
    except urllib.error.HTTPError as exc:
        print(f"qmlite trace: {exc.code} {exc.read().decode(errors='replace')}", file=sys.stderr)
        return 20
    except (urllib.error.URLError, OSError) as exc:
        print(f"qmlite trace: no qmlite REST API at {args.host}:{args.http_port} ({exc})", file=sys.stderr)
        return 20
    except KeyboardInterrupt:
        return 0


def _line(call: dict) -> str:
    stamp = time.strftime("%H:%M:%S", time.localtime(call["time"])) + f".{int(call['time'] * 1000) % 1000:03d}"
    parts = [stamp, call["connectionId"][-16:], call["applName"] or "-", call["verb"]]
    if call["object"]:
        parts.append(call["object"])
    if call["optionNames"]:
        parts.append(call["optionNames"])
    parts.append(call["reasonName"] if call["reason"] else "OK")
    if call["msgId"] and call["msgId"].strip("0"):
        parts.append("msgid=" + call["msgId"])
    if call["msgLength"] is not None:
        parts.append(f"len={call['msgLength']}")
    parts.append(f"{call['micros']}us")
    return " ".join(parts)


def add_parser(sub) -> None:
    tr = sub.add_parser("trace", help="a live tail of every MQI call (qmlite's call trace, over the REST API)")
    tr.add_argument("--host", default="127.0.0.1")
    tr.add_argument("--http-port", type=int, default=9443, help="the server's --http-port (default 9443)")
    tr.add_argument("--qmgr", default=os.environ.get("MQ_QMGR_NAME", "QM1"))
    tr.add_argument("--user", default="admin")
    tr.add_argument("--password", help="default MQ_ADMIN_PASSWORD or passw0rd")
    tr.add_argument("--conn", help="only this connection (ConnectionId in hex, or its end)")
    tr.add_argument("--appl", help="only this application name")
    tr.add_argument("--all", action="store_true", help="start with the calls already recorded")
    tr.add_argument("--once", action="store_true", help="print what is recorded and exit")
    tr.add_argument("--interval", type=float, default=0.5, help="seconds between polls (default 0.5)")
    tr.set_defaults(func=run)
