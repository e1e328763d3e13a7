"""A minimal command server for the crash test: ``python -m tests.support.crashprobe DATA_DIR [--batch N]``.

Opens the registry (synchronous=FULL) and the engine on DATA_DIR, prints ``ready``, then reads one
JSON command per line from stdin:

    {"op": "create", "name": "S", "topic": "a/b", "managed": true, "user_data": "u", "priority": 3}
    {"op": "change", "name": "S", "user_data": "v", "priority": 4}
    {"op": "delete", "name": "S"}

Each is turned into the PCF Create/Change/Delete Subscription command and executed by the engine.
Only after the engine has returned (so after the commit) is ``ack <n> <reason>`` printed and flushed,
``n`` counting commands from 1 and ``reason`` the first non-zero Reason of the responses (0 = done).
With ``--kill-at S`` the probe SIGKILLs itself just before the S-th SQL statement the store sends
after start-up (BEGIN, an INSERT/DELETE inside a commit, or the COMMIT itself), so a commit is cut
off at a chosen point inside its transaction.  With ``--batch N`` commands are taken N at a time and run with
``execute_batch`` (one commit for the group), and the N acks follow that commit.  A parent that SIGKILLs this process
therefore knows: every acked command is durable, and at most the commands it had not seen acked yet may also be.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import pathlib
import signal
import sys

import structlog

from qmlite.pcf import constants as C
from qmlite.registry.admin.engine import Engine, Requester
from qmlite.registry.storage.catalog import Registry

from .pcfkit import command, i, st

QMGR = "QMCRASH"
PROVIDED_QUEUE = "DEV.QUEUE.1"


def to_pcf(cmd: dict):
    op = cmd["op"]
    if op == "create":
        params = [st(C.MQCACF_SUB_NAME, cmd["name"]), st(C.MQCA_TOPIC_STRING, cmd["topic"])]
        if cmd["managed"]:
            params.append(i(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED))
        else:
            params.append(st(C.MQCACF_DESTINATION, PROVIDED_QUEUE))
        params += [st(C.MQCACF_SUB_USER_DATA, cmd["user_data"]), i(C.MQIACF_PUB_PRIORITY, cmd["priority"])]
        return command(C.MQCMD_CREATE_SUBSCRIPTION, *params)
    if op == "change":
        return command(C.MQCMD_CHANGE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, cmd["name"]),
                       st(C.MQCACF_SUB_USER_DATA, cmd["user_data"]), i(C.MQIACF_PUB_PRIORITY, cmd["priority"]))
    if op == "delete":
        return command(C.MQCMD_DELETE_SUBSCRIPTION, st(C.MQCACF_SUB_NAME, cmd["name"]))
    raise ValueError(f"unknown op {op!r}")


class KillAt:
    """Stands in for the store's sqlite3 connection; dies by SIGKILL before statement ``at``."""

    def __init__(self, db, at: int) -> None:
        self._db = db
        self._left = at

    def execute(self, sql, *args):
        self._left -= 1
        if self._left == 0:
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return self._db.execute(sql, *args)

    def executemany(self, sql, rows):
        # One statement per row, so a kill can fall between any two writes of a commit.
        for params in rows:
            self.execute(sql, params)

    def __getattr__(self, name):
        return getattr(self._db, name)


def reason(responses) -> int:
    for m in responses:
        if m.header.Reason:
            return m.header.Reason
    return 0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", type=pathlib.Path)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--kill-at", type=int, default=0, metavar="S")
    args = ap.parse_args(argv)
    # stdout carries the acks and nothing else: the engine's per-command log lines go to stderr.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
                        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr))

    engine = Engine(Registry.open(args.data_dir, QMGR, synchronous="FULL"))
    if args.kill_at:
        engine.registry.store._db = KillAt(engine.registry.store._db, args.kill_at)
    requester = Requester(user="crash")
    out = sys.stdout
    out.write("ready\n")
    out.flush()
    n = 0
    pending: list = []
    for line in sys.stdin:
        if not line.strip():
            continue
        pending.append((to_pcf(json.loads(line)), requester))
        if len(pending) < args.batch:
            continue
        if args.batch == 1:
            results = [engine.execute(*pending[0])]  # commits before returning
        else:
            results = engine.execute_batch(pending)  # one commit for the group, before any ack
        pending = []
        for responses in results:
            n += 1
            out.write(f"ack {n} {reason(responses)}\n")
        out.flush()
    if pending:
        for responses in engine.execute_batch(pending):
            n += 1
            out.write(f"ack {n} {reason(responses)}\n")
        out.flush()
    engine.registry.close()


if __name__ == "__main__":
    main()
