#!/usr/bin/env python3
"""What one PCF command costs the server, through IBM's ``ibmmq`` (issue 35, the PCFExecute rows): Ping
Q Mgr and Create Subscription (managed destination) one after the other on one connection, as
``ibmmq_mqi.py`` sends them, with the server's CPU per command read from /proc beside the rate.

The server's CPU moves far less with the machine's load than the rate does, so it is what this prints
first; compare trees by running the script in each checkout in turn (``--rounds`` alternates Ping and
Create inside one run; each figure is the median of the rounds, the best beside it).

``--steps`` then counts what the event loop does per Ping (task steps, tasks spawned, waits for I/O)
with the server in this process: figures no neighbour's load changes.

``--ceilings N`` (issue 35) measures, in turns over ``--rounds`` rounds of N commands each, what bounds
the PCFExecute targets (>= 40% of ibmmq against an instantly answering server) on this machine: ibmmq
alone (``ibmmq_mqi.py``'s instant bound), ibmmq with each of a command's four calls a round trip of its
real sizes to a blocking-socket echo (that bench's ceiling), to a bare trio server answering the same
sizes, and to that trio server when it also makes a Create Subscription durable the least a server
can -- one record of the command's size written to a preallocated file and ``fdatasync``-ed on a worker
thread while the MQCLOSE is answered, the MQGET's answer waiting for it -- beside qmlite through ibmmq.
A trio server on CPython that keeps what it acknowledges cannot make ibmmq faster than the last.

``--split N`` (issue 35) says where a command's time goes in the client, through qmlite: each of
PCFExecute's four calls into the transport (``ibmmqc.MQOPEN``, ``MQPUT``, ``MQCLOSE``, ``MQGET``) timed
as it runs -- the client thread's CPU inside it (qmlite's transport, its system calls included) and its
wall time, the rest of which is the wait for the server's answer -- and ibmmq's own CPU around them.
No profiler: a clock read before and after each call.

``--replay N`` (issue 35) measures, in turns over ``--rounds`` rounds of N commands, ibmmq through qmlite,
the same client against a bare trio server that answers it the bytes qmlite answered one command of the
kind (``replay_server.py``; a Create's MQGET answered once a record of its size is synced, its MQCLOSE
meanwhile), and ibmmq alone.  Unlike ``--ceilings`` this keeps qmlite's transport (``ibmmqc``) and its
real answers in the client: the most a trio server on CPython can give ibmmq over this transport.  A third
figure replays the Create to a bare server that also spends the command's own work on its event loop after
the MQPUT's answer, before the sync (``command_work``: the engine, the responses and the SQLite write timed
warm in this process, no socket; decision BD12): the most a server with one loop doing this command's work
can give ibmmq.

    python scripts/bench/pcf_commands.py [--commands 2000] [--rounds 3] [--steps 300] [--ceilings 500]
                                         [--split 2000] [--replay 500] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as B  # noqa: E402


def connect(port: int):
    """(the connection, its PCFExecute) through ibmmq, as the admin user."""
    import ibmmq

    qm = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({port})", B.USER, B.PASSWORD)
    return qm, ibmmq.PCFExecute(qm)


def commands_of(pcf, prefix: bytes) -> dict:
    """{"ping": ..., "create": ...}: the two commands on ``pcf``, each Create a new managed subscription
    named ``prefix`` and a counter of fixed width (``replay_server.py`` counts each request's bytes)."""
    from ibmmq import CMQC, CMQCFC

    names = iter(range(10**9))

    def ping() -> None:
        pcf.MQCMD_PING_Q_MGR()

    def create() -> None:
        pcf.MQCMD_CREATE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: prefix + b"%09d" % next(names),
                                       CMQC.MQCA_TOPIC_STRING: b"bench/topic",
                                       CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED})
    return {"ping": ping, "create": create}


def measure(port: int, server_pid: int, commands: int, rounds: int) -> dict:
    qm, pcf = connect(port)
    by_kind = commands_of(pcf, b"PCF.BENCH.")
    runs: dict[str, list[dict]] = {"ping": [], "create": []}
    try:
        for _ in range(50):  # warm-up: both paths, the managed queues' model included
            by_kind["ping"](), by_kind["create"]()
        for _ in range(rounds):
            for name, command in by_kind.items():
                cpu0, client0, t0 = B.cpu_seconds(server_pid), time.process_time(), time.perf_counter()
                for _ in range(commands):
                    command()
                took = time.perf_counter() - t0
                runs[name].append({"per_s": commands / took,
                                   "server_cpu_us": (B.cpu_seconds(server_pid) - cpu0) / commands * 1e6,
                                   "client_cpu_us": (time.process_time() - client0) / commands * 1e6})
    finally:
        pcf.disconnect()
        qm.disconnect()
    out = {}
    for name, done in runs.items():
        out[name] = {key: {"median": round(statistics.median(r[key] for r in done), 1),
                           "best": round((max if key == "per_s" else min)(r[key] for r in done), 1)}
                     for key in ("per_s", "server_cpu_us", "client_cpu_us")}
    return out


def ceilings(port: int, commands: int, rounds: int, data_dir: str) -> dict:
    """ibmmq's PCFExecute rates against its bounds, every figure of a round measured in turn (see the
    module's docstring); each the best of its rounds, with the spread."""
    import ibmmq_mqi

    _, sizes = ibmmq_mqi.run_replay(port, 200, 50, 1, 0)
    blocking, bare = ibmmq_mqi.Echo(), ibmmq_mqi.TrioEcho(data_dir)
    kinds = (("ibmmq alone", None, False), ("over a blocking echo", blocking, False),
             ("over a trio echo", bare, False), ("over a trio echo, Create synced", bare, True))
    seen: dict[str, dict[str, list[float]]] = {}
    try:
        for rnd in range(rounds):
            for n, (kind, echo, durable) in enumerate(kinds):
                t = ibmmq_mqi.EchoTrips(echo.port, sizes, durable_create=durable) if echo is not None else None
                try:
                    got = ibmmq_mqi.run_pcf_alone(port, commands, 1, 100 + rnd * len(kinds) + n, t)
                finally:
                    if t is not None:
                        t.close()
                for label, r in got.items():
                    seen.setdefault(label, {}).setdefault(kind, []).append(r["per_s"])
            for label, r in ibmmq_mqi.run_ibmmq(port, 10, commands, 1, 50 + rnd).items():
                if label.startswith("PCF"):
                    seen[label].setdefault("qmlite", []).append(r["per_s"])
    finally:
        blocking.close()
        bare.close()
    return {label: {kind: {"best": round(max(v), 1), "rounds": [round(x, 1) for x in v]} for kind, v in by.items()}
            for label, by in seen.items()}


SPLIT_CALLS = ("MQOPEN", "MQPUT", "MQCLOSE", "MQGET")  # PCFExecute's calls, in the order it makes them


def split(port: int, commands: int, rounds: int) -> dict:
    """Per command (median of the rounds, µs): the wall time, the client's CPU, ibmmq's CPU outside the
    transport, and for each transport call its CPU, its wall time and the difference (the wait)."""
    import ibmmqc

    qm, pcf = connect(port)
    cpu = dict.fromkeys(SPLIT_CALLS, 0.0)
    wall = dict.fromkeys(SPLIT_CALLS, 0.0)
    saved = {name: getattr(ibmmqc, name) for name in SPLIT_CALLS}

    def timed(name: str):
        real, clock, thread_clock = saved[name], time.perf_counter, time.thread_time

        def call(*args):
            c0, w0 = thread_clock(), clock()
            try:
                return real(*args)
            finally:
                cpu[name] += thread_clock() - c0
                wall[name] += clock() - w0
        return call

    commands_by_kind = commands_of(pcf, b"PCF.SPLIT.")
    runs: dict[str, list[dict]] = {kind: [] for kind in commands_by_kind}
    try:
        for name in SPLIT_CALLS:
            setattr(ibmmqc, name, timed(name))
        for command in commands_by_kind.values():  # warm-up, the managed queues' model included
            for _ in range(50):
                command()
        for _ in range(rounds):
            for kind, command in commands_by_kind.items():
                for name in SPLIT_CALLS:
                    cpu[name] = wall[name] = 0.0
                c0, w0 = time.thread_time(), time.perf_counter()
                for _ in range(commands):
                    command()
                took, used = time.perf_counter() - w0, time.thread_time() - c0
                run = {"wall_us": took, "client_cpu_us": used, "ibmmq_cpu_us": used - sum(cpu.values())}
                for name in SPLIT_CALLS:
                    run[f"{name} cpu_us"], run[f"{name} wall_us"] = cpu[name], wall[name]
                    run[f"{name} waited_us"] = wall[name] - cpu[name]
                runs[kind].append({key: value / commands * 1e6 for key, value in run.items()})
    finally:
        for name, real in saved.items():
            setattr(ibmmqc, name, real)
        pcf.disconnect()
        qm.disconnect()
    return {kind: {key: round(statistics.median(r[key] for r in done), 1) for key in done[0]}
            for kind, done in runs.items()}


def command_work(commands: int) -> dict:
    """A Create Subscription's own work, warm, in this process (issue 35): the command server's batch (the
    engine), its responses put on the reply queue and its SQLite transaction written (not synced: the
    replay's sync stands for that), each command's pieces timed with no socket and no scheduler, the
    logging set as the served process sets it.  p50 µs of each and of their sum over ``commands``, after a
    warm-up: the least CPU a server doing this command's work spends on it."""
    import tempfile

    import registry_create
    from qmlite.pcf import constants as C
    from qmlite.pcf import mqi as S
    from qmlite.pcf import pcf as P
    from qmlite.registry.qmgr import QueueManager
    from qmlite.server import log as qlog

    qlog.configure(level="warning")
    clock = time.perf_counter_ns
    pieces: dict[str, list[int]] = {"engine": [], "responses": [], "write": [], "total": []}
    with tempfile.TemporaryDirectory(prefix="qmlite-work-") as tmp:
        qm = QueueManager.open(os.path.join(tmp, "qm"), B.QMGR, synchronous="NORMAL")
        try:
            session = qm.connect(B.QMGR, user="admin", admin=True, appl_name="pcf_commands.py",
                                 appl_type=C.MQAT_UNIX, channel=B.CHANNEL, conname="127.0.0.1")
            reply, _ = qm.open_object(session, S.MQOD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE",
                                                      DynamicQName="PCF.WORK.*"), C.MQOO_INPUT_EXCLUSIVE)
            queue, _ = qm.open_object(session, S.MQOD(ObjectName="SYSTEM.ADMIN.COMMAND.QUEUE"), C.MQOO_OUTPUT)
            server, store = qm.command_server, qm.registry.store
            for n in range(300 + commands):
                request = P.encode(registry_create.create_command(n, True, "bench/topic"), C.MQENC_NATIVE)
                md = S.MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_REQUEST, ReplyToQ=reply.name,
                            Encoding=C.MQENC_NATIVE)
                qm.put(session, queue.hobj, md, S.MQPMO(Options=C.MQPMO_NO_SYNCPOINT), request)
                t0 = clock()
                answers = server.run_batch()
                t1 = clock()
                server.deliver(answers)
                t2 = clock()
                pending, _upto = store.take()
                if pending:
                    store.write(pending)
                t3 = clock()
                got = qm.get(session, reply, S.MQMD(), S.MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT), 4096)
                if n >= 300:
                    for name, ns in zip(pieces, (t1 - t0, t2 - t1, t3 - t2, t3 - t0)):
                        pieces[name].append(ns)
            if got is None:
                raise SystemExit("the command's response was not on its reply queue")
        finally:
            qm.shutdown()
    return {f"{name}_us": round(statistics.median(ns) / 1000, 1) for name, ns in pieces.items()}


# --replay's third ceiling: the bare server spending a Create's own work (command_work) on its loop
WORK_LABEL = "PCFExecute Create Subscription, the command's work on the loop"


def replayed(port: int, commands: int, rounds: int, data_dir: str) -> dict:
    """Ping and Create Subscription through qmlite, against the bare replaying server, and ibmmq alone, each
    the best of ``rounds`` rounds taken in turns (commands/s), with the shares of ibmmq alone."""
    import ibmmq_mqi
    import replay_server

    kinds = ("ping", "create")
    warm = 50
    conversations = []
    for kind in kinds:
        with replay_server.Recorder() as recorder:
            qm, pcf = connect(port)
            begun = recorder.mark()
            commands_of(pcf, b"PCF.RECORD.")[kind]()
            ended = recorder.mark()
            pcf.disconnect()
            qm.disconnect()
        cycle = recorder.steps(begun, ended)
        if len(cycle) != 4:  # MQOPEN, MQPUT, MQCLOSE, MQGET: one answer each
            raise SystemExit(f"PCFExecute's {kind} made {len(cycle)} round trips, not 4: no replay of it")
        if kind == "create":
            cycle[1].append("sync")  # the MQPUT's answer starts the command's sync
            cycle[3].append("synced")  # the MQGET's waits for it
        conversations.append({"name": kind, "setup": recorder.steps(0, begun), "cycle": cycle,
                              "repeat": warm + rounds * commands, "teardown": recorder.steps(ended)})
    # The third: the Create's conversation, the bare server spending the command's own work on its loop
    # (measured here, warm) between the MQPUT's answer and the sync: a server with one loop that does this
    # command's work, with nothing else of qmlite's.
    work = command_work(2000)
    create = conversations[kinds.index("create")]
    cycle = [list(step) for step in create["cycle"]]
    cycle[1][2] = f"sync:{round(work['total_us'])}"
    conversations.append({**create, "name": "work", "cycle": cycle})
    bare = replay_server.Replaying(conversations, data_dir=data_dir)
    seen: dict[str, dict[str, list[float]]] = {kind: {"qmlite": [], "bare": [], "ibmmq alone": []} for kind in kinds}
    seen["work"] = {"bare": [], "ibmmq alone": []}
    labels = {"ping": "PCFExecute Ping Q Mgr", "create": "PCFExecute Create Subscription", "work": WORK_LABEL}
    try:
        ends = {kind: {"qmlite": connect(port), "bare": connect(at)} for kind, at in zip(kinds, bare.ports)}
        ends["work"] = {"bare": connect(bare.ports[len(kinds)])}
        replays = {"ping": "ping", "create": "create", "work": "create"}  # the command each conversation is
        run = {kind: {where: commands_of(pcf, b"PCF.REPLAY." if where == "qmlite" else b"PCF.RECORD.")[replays[kind]]
                      for where, (_qm, pcf) in by.items()} for kind, by in ends.items()}
        for by in run.values():
            for command in by.values():
                for _ in range(warm):
                    command()
        for rnd in range(rounds):
            alone = ibmmq_mqi.run_pcf_alone(port, commands, 1, 300 + rnd)
            for kind, by in run.items():
                seen[kind]["ibmmq alone"].append(alone[labels[replays[kind]]]["per_s"])
                for where, command in by.items():
                    t0 = time.perf_counter()
                    for _ in range(commands):
                        command()
                    seen[kind][where].append(commands / (time.perf_counter() - t0))
        for by in ends.values():
            for qm, pcf in by.values():
                pcf.disconnect()
                qm.disconnect()
    finally:
        bare.stop()
    out = {}
    for kind, by in seen.items():
        # The ratios from the figures as reported (to 0.1/s): a reader who divides them gets the same ratio.
        best = {where: round(max(v), 1) for where, v in by.items()}
        out[labels[kind]] = {where: {"best": b, "rounds": [round(x, 1) for x in by[where]]}
                             for where, b in best.items()}
        if "qmlite" in best:
            out[labels[kind]]["qmlite / alone"] = round(best["qmlite"] / best["ibmmq alone"], 3)
        out[labels[kind]]["ceiling: bare / alone"] = round(best["bare"] / best["ibmmq alone"], 3)
    out[WORK_LABEL]["command work"] = work
    return out


def scheduler_work(commands: int) -> dict:
    """The event loop's work per Ping, counted rather than timed (the same on any machine): a server in
    this process under a trio instrument, ibmmq in a worker thread.  Task steps, tasks spawned and
    waits for I/O (each an ``epoll_wait``) per command."""
    work = B.loop_work()

    def pings(port: int) -> None:
        qm, pcf = connect(port)
        for _ in range(20):
            pcf.MQCMD_PING_Q_MGR()
        with B.counting(work):  # the commands alone, not the connection
            for _ in range(commands):
                pcf.MQCMD_PING_Q_MGR()
        pcf.disconnect()
        qm.disconnect()

    B.in_process(pings)
    return work.per(commands)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commands", type=int, default=2000, help="commands of each kind per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=300, help="Pings counted for the event loop's work (0: none)")
    ap.add_argument("--ceilings", type=int, default=0, metavar="N",
                    help="PCFExecute against its bounds and a trio server's ceiling, N commands a figure (0: not)")
    ap.add_argument("--split", type=int, default=0, metavar="N",
                    help="where a command's time goes in the client, N commands a round (0: not)")
    ap.add_argument("--replay", type=int, default=0, metavar="N",
                    help="the ceiling with qmlite's transport: a bare server replaying qmlite's answers (0: not)")
    ap.add_argument("--json", help="write the results here")
    B.add_awake_option(ap)
    args = ap.parse_args(argv)
    print(B.idle_note(B.idle_policy(), args.awake),
          flush=True)
    with B.Awake(args.awake), B.ServerProcess(log_level="warning") as server:
        result = measure(server.port, server.pid, args.commands, args.rounds)
        bounds = ceilings(server.port, args.ceilings, args.rounds, str(server.data_dir.parent)) if args.ceilings \
            else None
        where = split(server.port, args.split, args.rounds) if args.split else None
        replay = replayed(server.port, args.replay, args.rounds, str(server.data_dir.parent)) if args.replay else None
    report = {"commands": args.commands, "rounds": args.rounds, "results": result, "load_average": os.getloadavg(),
              "idle": B.idle_policy(), "awake": args.awake}
    if bounds:
        report["ceilings"] = bounds
        print("PCFExecute through ibmmq, best of the rounds, % of ibmmq alone (issue 35's target: >= 40%):")
        for label, by in bounds.items():
            alone = by["ibmmq alone"]["best"]
            print(f"  {label}")
            for kind, figure in by.items():
                spread = f"{min(figure['rounds']):.0f}-{max(figure['rounds']):.0f}"
                print(f"    {kind:34} {figure['best']:7.0f} /s ({spread:>11}) {100 * figure['best'] / alone:5.1f}%")
    if replay:
        report["replay"] = replay
        print("PCFExecute through qmlite's transport, best of the rounds (/s), and its share of ibmmq alone (target: "
              ">= 40%); the ceiling: the same client against a bare trio server replaying qmlite's answers")
        for label, f in replay.items():
            if label == WORK_LABEL:
                w = f["command work"]
                print(f"  the same Create, the bare server spending {w['total_us']:.0f} µs of CPU on its loop after "
                      f"the MQPUT's answer (the command's own work, warm, in a process of its own: engine "
                      f"{w['engine_us']:.0f}, responses {w['responses_us']:.0f}, SQLite write {w['write_us']:.0f} "
                      f"µs): bare {f['bare']['best']:.0f}  alone {f['ibmmq alone']['best']:.0f}   ceiling "
                      f"{f['ceiling: bare / alone']:.1%}")
                continue
            print(f"  {label:32} qmlite {f['qmlite']['best']:7.0f}  bare {f['bare']['best']:7.0f}  "
                  f"alone {f['ibmmq alone']['best']:7.0f}   qmlite {f['qmlite / alone']:.1%}  "
                  f"ceiling {f['ceiling: bare / alone']:.1%}")
    if where:
        report["split"] = where
        print("a command through qmlite, µs (median of the rounds): the client's CPU in each transport call, its wall "
              "time and the wait (wall - CPU); ibmmq's own CPU around them")
        for kind, f in where.items():
            calls = "  ".join(f"{name} " + "/".join(f"{f[f'{name} {key}_us']:.0f}" for key in ("cpu", "wall", "waited"))
                              for name in SPLIT_CALLS)
            print(f"  {kind:7} wall {f['wall_us']:7.1f}  client CPU {f['client_cpu_us']:7.1f}  "
                  f"ibmmq {f['ibmmq_cpu_us']:6.1f}  {calls}")
    if args.steps:
        report["event_loop_per_ping"] = work = scheduler_work(args.steps)
        print(f"per Ping: {work['task_steps']} task steps, {work['tasks_spawned']} tasks spawned, "
              f"{work['io_waits']} waits for I/O")
    for name, figures in result.items():
        print(f"{name:7} server CPU {figures['server_cpu_us']['median']:7.1f} µs a command (best "
              f"{figures['server_cpu_us']['best']:.1f}), {figures['per_s']['median']:7.1f} /s (best "
              f"{figures['per_s']['best']:.1f}), client CPU {figures['client_cpu_us']['median']:.1f} µs")
    print(json.dumps(report))
    B.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
