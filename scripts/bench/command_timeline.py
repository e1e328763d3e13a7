"""A PCF command's timeline: the real client's calls and the server's steps on one clock (issue 35, JN12).

IBM's ``ibmmq`` (over qmlite's ``ibmmqc``) sends ``--commands`` PCFExecute commands (Create Subscription
with a managed destination, or Ping) to a ``qmlite serve`` that this script starts in a child process with
its steps stamped: each request read, each MQI call, each reply written, the command server's batch, the
responses put, the SQLite write, the sync and the commit's completion.  The client's calls into ``ibmmqc``
and its writes to the socket are stamped here.  Both sides use ``time.perf_counter_ns`` (CLOCK_MONOTONIC:
one clock for every process on Linux), so one command's marks can be laid side by side.

Printed: every mark's median and quartiles over the commands, in µs from the server's answer to the
command's MQPUT, in the order of their medians: where a command's time goes and what waits for what.  The
stamps cost a few µs each, so the timeline is slower than an unstamped run: ``pcf_commands.py`` measures
the rate.

    python scripts/bench/command_timeline.py --commands 2000 [--command create|ping] [--json FILE]
"""

from __future__ import annotations

import argparse
import atexit
import collections
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as B  # noqa: E402
import pcf_commands  # noqa: E402

WARMUP = 300  # commands before the stamped ones (the server's and the client's code paths warm)


# ---- the served process ----------------------------------------------------------------------------------
def serve(out: str, argv: list[str]) -> None:
    """``qmlite serve`` with its steps stamped; the stamps are written to ``out`` as it exits."""
    import functools

    from qmlite.pcf import fap
    from qmlite.registry.admin import commandserver
    from qmlite.registry.storage import sqlite
    from qmlite.server import connection, durability, mqi

    stamps: list[tuple[int, str]] = []
    now = time.perf_counter_ns

    def stamp_async(cls, name: str, label: str, verb=None) -> None:
        real = getattr(cls, name)

        @functools.wraps(real)
        async def stamped(*a, **k):
            stamps.append((now(), label + ">" + (verb(*a) if verb else "")))
            try:
                return await real(*a, **k)
            finally:
                stamps.append((now(), label + "<"))
        setattr(cls, name, stamped)

    def stamp(cls, name: str, label: str) -> None:
        real = getattr(cls, name)

        @functools.wraps(real)
        def stamped(*a, **k):
            stamps.append((now(), label + ">"))
            try:
                return real(*a, **k)
            finally:
                stamps.append((now(), label + "<"))
        setattr(cls, name, stamped)

    stamp_async(connection.Connection, "_received", "read")
    stamp_async(mqi.MQI, "call", "call", lambda _mqi, _conn, _conv, seg, _call:
                fap.segment_type_name(seg.header.SegmentType))
    stamp_async(connection.Connection, "send", "write")
    stamp(commandserver.CommandServer, "run_batch", "command")
    stamp(commandserver.CommandServer, "deliver", "responses put")
    stamp(sqlite.Store, "write", "SQLite write")
    stamp(sqlite.Store, "sync", "sync")
    stamp(durability.GroupCommitter, "_finished", "commit done")

    def dump() -> None:
        with open(out, "w") as fh:
            fh.writelines(f"{t} {label}\n" for t, label in stamps)

    atexit.register(dump)
    from qmlite.cli import main

    sys.argv = ["qmlite", *argv]
    main()


# ---- the client ------------------------------------------------------------------------------------------
CALLS = pcf_commands.SPLIT_CALLS  # PCFExecute's four calls into ibmmqc


def _client_stamps(stamps: list) -> None:
    """Stamp ibmmqc's four calls and the transport's writes (what ibmmq's PCFExecute goes through)."""
    import ibmmqc

    from qmlite.client import sync

    now = time.perf_counter_ns
    for name in CALLS:
        real = getattr(ibmmqc, name)

        def stamped(*a, _real=real, _name=name, **k):
            stamps.append((now(), f"client {_name}>"))
            try:
                return _real(*a, **k)
            finally:
                stamps.append((now(), f"client {_name}<"))
        setattr(ibmmqc, name, stamped)
    real_send = sync.QueueManager._sendall

    def sendall(self, data):
        stamps.append((now(), "client sends"))
        real_send(self, data)
    sync.QueueManager._sendall = sendall


def run(command: str, commands: int) -> tuple[list, list]:
    """(client stamps, server stamps) of ``commands`` commands after the warm-up."""
    client: list = []
    _client_stamps(client)
    with tempfile.TemporaryDirectory(prefix="qmlite-timeline-", dir="/tmp") as tmp:
        out = os.path.join(tmp, "stamps")
        # pcf_commands.py's server, connection and commands, the server started by this script's --serve
        with B.ServerProcess(log_level="warning", launcher=(os.path.abspath(__file__), "--serve", out, "--")) as server:
            qm, pcf = pcf_commands.connect(server.port)
            one = pcf_commands.commands_of(pcf, b"TIMELINE.")[command]
            for _ in range(WARMUP):
                one()
            del client[:]
            for _ in range(commands):
                client.append((time.perf_counter_ns(), "client command>"))
                one()
            client.append((time.perf_counter_ns(), "client command>"))  # closes the last command
            pcf.disconnect()
            qm.disconnect()
        with open(out) as fh:  # written as the server exited
            server_stamps = [(int(t), label) for t, label in (line.rstrip("\n").split(" ", 1) for line in fh)]
    return client, server_stamps


# ---- the timeline ----------------------------------------------------------------------------------------
def marks_of(events: list) -> dict[str, int]:
    """One command's events (time-ordered) -> {mark: ns}: the first of each, named for the call it belongs to."""
    marks: dict[str, int] = {}
    verb = ""
    seen: collections.Counter = collections.Counter()
    for t, label in events:
        if label.startswith("call>"):
            verb = label[len("call>"):]
            name = f"server {verb} read"
        elif label == "write>":
            if not verb:
                continue  # the end of the command before's last answer
            name = f"server {verb} answers"  # the reply's write begins: the client may run before it returns
        elif label.startswith("client "):
            seen[label] += 1
            name = label if label != "client sends" else f"client sends #{seen[label]}"
            if name.endswith(">"):
                name = name[:-1] + " called"
            elif name.endswith("<"):
                name = name[:-1] + " returned"
        elif label in ("read>", "read<", "call<", "write<"):
            continue
        elif label.startswith("commit done") and "server sync ends" not in marks:
            continue  # a commit with nothing to sync (a call's own look at the journal): not the command's
        else:
            name = "server " + label.replace(">", " begins").replace("<", " ends")
        marks.setdefault(name, t)
    return marks


def timeline(client: list, server: list) -> dict:
    """Each mark's p25/p50/p75 in µs from the server's answer to the MQPUT (its write), over every whole command."""
    events = sorted(client + server)
    commands, current = [], None
    for t, label in events:
        if label == "client command>":
            if current is not None:
                commands.append(current)
            current = []
        elif current is not None:
            current.append((t, label))
    offsets: dict[str, list[float]] = collections.defaultdict(list)
    for events_of_one in commands:
        marks = marks_of(events_of_one)
        base = marks.get("server MQPUT answers")
        if base is None:
            continue
        for name, t in marks.items():
            offsets[name].append((t - base) / 1000)
    out = {}
    for name in sorted(offsets, key=lambda n: statistics.median(offsets[n])):
        values = offsets[name]
        if len(values) < max(1, len(commands) // 2):
            continue  # a mark most commands do not have (a fold's, a checkpoint's)
        q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
        out[name] = {"p25": round(q[0], 1), "p50": round(statistics.median(values), 1), "p75": round(q[2], 1),
                     "commands": len(values)}
    return {"commands": len(commands), "marks": out}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:  # the child: the stamped server
        serve(argv[1], argv[3:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commands", type=int, default=2000)
    ap.add_argument("--command", choices=("create", "ping"), default="create")
    ap.add_argument("--json", help="write the timeline here")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    client, server = run(args.command, args.commands)
    took = time.perf_counter() - t0
    report = {"command": args.command, **timeline(client, server),
              "load_average": os.getloadavg(), "seconds": round(took, 1)}
    print(f"{args.command}: {report['commands']} commands; µs from the server's answer to the MQPUT (p25 p50 p75)")
    for name, f in report["marks"].items():
        print(f"  {name:32} {f['p25']:8.1f} {f['p50']:8.1f} {f['p75']:8.1f}")
    B.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
