#!/usr/bin/env python3
"""Durable Create Subscription commands per second through the engine, on top of N existing ones.

A registry with ``--existing`` subscriptions is built once under /tmp (large transactions, see
registry_load.py), copied to a temporary directory, reopened with synchronous=FULL, then ``--count`` Create Subscription
commands (decoded PCF, built before the clock starts) are executed: one ``Engine.execute`` per command (one commit +
fsync each) with ``--batch 1``, or ``Engine.execute_batch`` over groups of ``--batch`` commands (group commit:
one fsync per group, no response before it).  Every response is checked to be a success.

    python scripts/bench/registry_create.py --existing 10000 --count 20000 --batch 16
"""

from __future__ import annotations

import argparse
import logging
import os
import pathlib
import shutil
import sys
import tempfile
import time

import structlog

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from registry_load import QMGR, cached_dir  # noqa: E402

from qmlite.pcf import constants as C  # noqa: E402
from qmlite.pcf import pcf as P  # noqa: E402
from qmlite.registry.admin.engine import Engine, Requester  # noqa: E402
from qmlite.registry.storage.catalog import Registry  # noqa: E402


def create_command(n: int, managed: bool, topic: str | None = None) -> P.PCFMessage:
    """Create Subscription ``n``; on a topic of its own unless ``topic`` names one (pcf_commands.py's
    ``command_work``: PCFExecute's command, every one on "bench/topic")."""
    params = [P.CFST(C.MQCACF_SUB_NAME, f"NEW.SUB.{n:08d}", 0),
              P.CFST(C.MQCA_TOPIC_STRING, topic or f"new/b{n % 1000}/leaf{n}", 0)]
    if managed:
        params.append(P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_MANAGED))
    else:
        params.append(P.CFST(C.MQCACF_DESTINATION, "DEV.QUEUE.1", 0))
    header = P.CFH(Type=C.MQCFT_COMMAND_XR, StrucLength=36, Version=3, Command=C.MQCMD_CREATE_SUBSCRIPTION,
                   MsgSeqNumber=1, Control=C.MQCFC_LAST, CompCode=0, Reason=0, ParameterCount=len(params))
    return P.PCFMessage(header, params)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--existing", type=int, default=10_000, help="subscriptions already in the registry")
    ap.add_argument("--count", type=int, default=20_000, help="Create Subscription commands to time")
    ap.add_argument("--batch", type=int, default=1, help="commands per commit (1 = execute, else execute_batch)")
    ap.add_argument("--managed", action="store_true", help="DestinationClass MANAGED (a queue per create)")
    ap.add_argument("--wire", action="store_true", help="also decode each command from bytes (little-endian)")
    ap.add_argument("--log", default="warning", help="engine log level (info logs one line per command)")
    ap.add_argument("--dir", help="data directory (default: a fresh temporary one)")
    args = ap.parse_args()

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, args.log.upper())),
                        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr))
    tmp = None
    if args.dir:
        data_dir = pathlib.Path(args.dir)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="qmlite-bench-create-", dir="/tmp")
        data_dir = pathlib.Path(tmp.name)
    t0 = time.perf_counter()
    source = cached_dir(args.existing)  # built once (large transactions), then copied for each run
    shutil.copytree(source, data_dir, dirs_exist_ok=True)
    build_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    registry = Registry.open(data_dir, QMGR, synchronous="FULL")
    load_s = time.perf_counter() - t0
    engine = Engine(registry)
    requester = Requester(user="bench")
    commands = [create_command(n, args.managed) for n in range(args.count)]
    if args.wire:
        encoding = C.MQENC_NATIVE
        commands = [P.encode(cmd, encoding) for cmd in commands]

    def run(cmd):
        if args.wire:
            return engine.execute_bytes(cmd, encoding, 0, requester)
        return engine.execute(cmd, requester)

    results = []
    t0 = time.perf_counter()
    if args.batch == 1:
        for cmd in commands:
            results.append(run(cmd))
    else:
        for start in range(0, len(commands), args.batch):
            group = commands[start:start + args.batch]
            if args.wire:
                group = [engine.decode(cmd, encoding, 0) for cmd in group]
            results.extend(engine.execute_batch([(cmd, requester) for cmd in group]))
    seconds = time.perf_counter() - t0

    failed = [r for r in results if r[0].header.CompCode != C.MQCC_OK]
    if failed:
        sys.exit(f"{len(failed)} creates failed, first reason {failed[0][0].header.Reason}")
    assert len(registry.subs) == args.existing + args.count + 1
    registry.close()
    check = Registry.open(data_dir, QMGR)  # the creates are on disk
    assert len(check.subs) == args.existing + args.count + 1
    check.close()
    if tmp is not None:
        tmp.cleanup()
    print(f"registry_create: existing={args.existing} count={args.count} batch={args.batch} "
          f"dest={'managed' if args.managed else 'provided'}{' wire' if args.wire else ''} log={args.log} "
          f"creates_per_s={args.count / seconds:,.0f} commits_per_s={-(-args.count // args.batch) / seconds:,.0f} "
          f"elapsed_s={seconds:.2f} (prefill/copy {build_s:.1f} s, open {load_s:.2f} s)")


if __name__ == "__main__":
    main()
