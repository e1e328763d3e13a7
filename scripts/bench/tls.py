"""TLS on the MQ listener against plain TCP, through IBM's ``ibmmq``, one connection, measured in the same
run (issue 22): Queue.put and Queue.get per second over TLS as a share of plain, and new connections per
second (MQCONNX + MQDISC) over TLS as a share of plain.

* plain: DEV.APP.SVRCONN, as ``ibmmq.connect`` reaches it.
* TLS: the same queue manager and port, channel BENCH.TLS.SVRCONN with SSLCIPH(ANY_TLS12_OR_HIGHER),
  the client's MQSCO naming the test PKI's client key repository (``qmlite tls init``).

    python scripts/bench/tls.py [--calls 3000] [--connects 200] [--batches 20] [--steps 100] [--replay 10]
                                [--awake] [--json FILE]

``event_loop_per_connection`` (issue 35, ``--steps``): the event loop's work per new connection, plain and
TLS, counted with the server in this process -- task steps, tasks spawned, waits for I/O.  ``--awake``
keeps every CPU busy while measuring (decision BD9: what idle wake-ups cost, a diagnostic).

``connect_ceiling`` (issue 35): the handshake alone -- qmlite's server context and ibmmqc's client context
handshaking in one process over memory BIOs, resumed as the client resumes -- and what it leaves possible:
plain's connection time over plain's plus the handshake's CPU (``ceiling``; ``out_of_reach`` when that is
below the 0.5 target: no transport can then meet it with these handshakes on this machine).

``replay_ceiling`` (issue 35, ``--replay N``): the same client's new connections against a bare trio server
that answers each with the bytes qmlite answered one of its kind (``replay_server.py``; plain and TLS, the
TLS one with qmlite's certificate, CipherSpec and ticket rule), alternated with qmlite's in ``--batches``
batches of N.  What TLS adds there is the least any trio server on CPython pays for a TLS connection with
this client (its handshake, its extra round trip, its records, its close); qmlite's plain connection
plus that is the shortest a qmlite TLS connection can be, and plain over it the ``ceiling``.

The server runs as ``qmlite serve`` in its own process (log level warning) with the test PKI mounted as
IBM's container mounts /etc/mqm/pki (QMLITE_PKI_DIR).  Plain and TLS take turns in ``--batches``
batches (calls/batches puts, then gets, then connects/batches new connections, each way); a ratio is
the median over the batch pairs of plain time / TLS time (robust to a machine whose load swings), and
the best batch of each is shown beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as B  # noqa: E402
import replay_server  # noqa: E402

QUEUE = b"DEV.QUEUE.1"
BODY = b"x" * 100
TLS_CHANNEL = "BENCH.TLS.SVRCONN"
CIPHER = "ANY_TLS12_OR_HIGHER"  # --cipher changes it (the channel's SSLCIPH and the client's)


def _connect(ibmmq, port: int, made, tls: bool):
    if not tls:
        return ibmmq.connect(B.QMGR, "DEV.APP.SVRCONN", f"{B.HOST}({port})")
    cd = ibmmq.CD(ChannelName=TLS_CHANNEL.encode(), ConnectionName=f"{B.HOST}({port})".encode(),
                  SSLCipherSpec=CIPHER.encode())
    sco = ibmmq.SCO(KeyRepository=made.client_stem.encode(), CertificateLabel=made.client_label.encode())
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options(B.QMGR, cd=cd, sco=sco)
    return qm


def _timed(fn, n: int) -> float:
    t0 = time.perf_counter()
    fn(n)
    return time.perf_counter() - t0


def _connect_batch(ibmmq, port: int, made, tls: bool, n: int, server_pid: int, cpu: dict) -> float:
    """``n`` new connections (MQCONNX + MQDISC); the CPU the server and this client spent on them is
    added to ``cpu`` (seconds): on a loaded machine CPU per connection moves far less than the rate."""
    s0, c0 = B.cpu_seconds(server_pid), B.cpu_seconds(os.getpid())
    took = _timed(lambda k: [_connect(ibmmq, port, made, tls).disconnect() for _ in range(k)], n)
    cpu["server"].append(B.cpu_seconds(server_pid) - s0)
    cpu["client"].append(B.cpu_seconds(os.getpid()) - c0)
    return took


def measure(ibmmq, port: int, made, calls: int, connects: int, batches: int, server_pid: int) -> dict:
    """Plain and TLS in alternating batches on two open connections (and alternating batches of new
    connections): on a machine whose load swings, each TLS batch is compared with the plain batch run
    just before it, and the figures are the medians of those pairs."""
    from ibmmq import CMQC

    conns = {mode: _connect(ibmmq, port, made, mode == "tls") for mode in ("plain", "tls")}
    queues = {mode: ibmmq.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF) for mode, qm in conns.items()}
    per = max(1, calls // batches)
    per_conn = max(1, connects // batches)
    times: dict = {op: {"plain": [], "tls": []} for op in ("put", "get", "connect")}
    cpu: dict = {mode: {"server": [], "client": []} for mode in ("plain", "tls")}
    try:
        for q in queues.values():  # warm both ends
            for _ in range(50):
                q.put(BODY)
                q.get()
        for _ in range(batches):
            for mode in ("plain", "tls"):
                q = queues[mode]
                times["put"][mode].append(_timed(lambda n: [q.put(BODY) for _ in range(n)], per))
                times["get"][mode].append(_timed(lambda n: [q.get() for _ in range(n)], per))
                times["connect"][mode].append(_connect_batch(ibmmq, port, made, mode == "tls", per_conn, server_pid,
                                                             cpu[mode]))
    finally:
        for mode in conns:
            queues[mode].close()
            conns[mode].disconnect()
    out: dict = {}
    for op, by_mode in times.items():
        n = per if op != "connect" else per_conn
        pairs = sorted(p / t for p, t in zip(by_mode["plain"], by_mode["tls"]))
        out[op] = {
            "batch": n, "batches": batches,
            "plain_per_s": {"median": round(n / statistics.median(by_mode["plain"]), 1),
                            "best": round(n / min(by_mode["plain"]), 1)},
            "tls_per_s": {"median": round(n / statistics.median(by_mode["tls"]), 1),
                          "best": round(n / min(by_mode["tls"]), 1)},
            "tls_over_plain": {"median_of_pairs": round(statistics.median(pairs), 3),
                               "of_best": round(min(by_mode["plain"]) / min(by_mode["tls"]), 3)},
        }
    # CPU per new connection over all batches, µs (/proc counts in ticks: the total is the precise
    # figure): a connection is a ping-pong between the two processes, so on a quiet machine its time is
    # about their CPU added up, plus the wake-ups.
    per_us = {mode: {side: round(sum(v) / (per_conn * batches) * 1e6, 1) for side, v in sides.items()}
              for mode, sides in cpu.items()}
    out["connect"]["cpu_us_per_connection"] = per_us
    tls_cpu = sum(per_us["tls"].values())  # 0 when a short run's TLS batches fell between two clock ticks
    out["connect"]["cpu_plain_over_tls"] = round(sum(per_us["plain"].values()) / tls_cpu, 3) if tls_cpu else None
    return out


def record(ibmmq, port: int, made, tls: bool) -> list[list]:
    """One new connection (MQCONNX + MQDISC) through ibmmq against qmlite, as ``replay_server.py`` replays it."""
    with replay_server.Recorder() as recorder:
        _connect(ibmmq, port, made, tls).disconnect()
    return recorder.steps()


def replay_ceiling(ibmmq, port: int, made, per_batch: int, batches: int) -> dict:
    """qmlite's new connections, plain and TLS, alternated with a bare trio server's (``replay_server.py``)
    answering the same client the same bytes; medians of the batches, µs a connection."""
    script = {"plain": record(ibmmq, port, made, False), "tls": record(ibmmq, port, made, True)}
    bare = replay_server.Replaying([{"name": kind, "tls": kind == "tls", "setup": steps}
                                    for kind, steps in script.items()], str(made.pki_dir), CIPHER, TLS_CHANNEL)
    try:
        bare_plain, bare_tls = bare.ports
        targets = {"qmlite plain": (port, False), "qmlite TLS": (port, True),
                   "bare plain": (bare_plain, False), "bare TLS": (bare_tls, True)}
        times: dict[str, list[float]] = {kind: [] for kind in targets}
        for at, tls in targets.values():  # warm: each kind's first TLS connection is a full handshake
            for _ in range(5):
                _connect(ibmmq, at, made, tls).disconnect()
        for _ in range(batches):
            for kind, (at, tls) in targets.items():
                times[kind].append(_timed(lambda n: [_connect(ibmmq, at, made, tls).disconnect() for _ in range(n)],
                                          per_batch) / per_batch * 1e6)
    finally:
        done, resumed = bare.stop()
    # The ceiling stands on resumed handshakes, as qmlite's are (its first TLS connection's full one aside).
    if resumed < done - 1 or done == 0:
        raise SystemExit(f"the bare server resumed {resumed} of {done} TLS handshakes: no ceiling from it")
    us = {kind: round(statistics.median(v), 1) for kind, v in times.items()}
    tls_adds = us["bare TLS"] - us["bare plain"]
    return {"us_per_connection": us, "steps": {kind: len(v) for kind, v in script.items()},
            "bare_handshakes": done, "bare_resumed": resumed,
            "tls_adds_at_least_us": round(tls_adds, 1),
            "qmlite_tls_over_plain": round(us["qmlite plain"] / us["qmlite TLS"], 3),
            "bare_tls_over_plain": round(us["bare plain"] / us["bare TLS"], 3),
            "ceiling": round(us["qmlite plain"] / (us["qmlite plain"] + tls_adds), 3)}


def _pump(src: ssl.MemoryBIO, dst: ssl.MemoryBIO) -> None:
    data = src.read()
    if data:
        dst.write(data)


def handshake_cpu(made, rounds: int) -> dict:
    """The TLS part of a new connection alone (issue 35): qmlite's server context for the bench's channel
    and ibmmqc's client context, handshaking in this process over memory BIOs -- no sockets, no MQ --
    first a full handshake, then ``rounds`` resumed ones, each offering the session of the full one (as
    ibmmqc does: it keeps the ticket it resumed with), the server sending the tickets its rule says
    (``ServerTLS.tickets``: none once that ticket has resumed a session).  CPU µs per handshake, both
    ends together (one process: CPU is its time)."""
    from qmlite.client.tls import client_tls
    from qmlite.server.tls import client_hello, wrap_server_bio

    server = replay_server.server_tls(str(made.pki_dir))
    sctx = replay_server.server_context(server, CIPHER, TLS_CHANNEL)
    client = client_tls(channel=TLS_CHANNEL, cipher_spec=CIPHER, key_repository=made.client_stem,
                        cert_label=made.client_label)
    hostname = client.server_hostname(B.HOST)

    def one(session):
        c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
        c = client.context.wrap_bio(c_in, c_out, server_hostname=hostname, session=session)
        try:
            c.do_handshake()
        except ssl.SSLWantReadError:
            pass
        first = c_out.read()  # the ClientHello, read before the handshake as the server reads it
        s_in.write(first)
        hello = client_hello(first)
        tickets = server.tickets(sctx, hello)
        s = wrap_server_bio(sctx, s_in, s_out, tickets)
        done = [False, False]
        while not all(done):
            for k, (obj, out, peer_in) in enumerate(((c, c_out, s_in), (s, s_out, c_in))):
                if not done[k]:
                    try:
                        obj.do_handshake()
                        done[k] = True
                    except ssl.SSLWantReadError:
                        pass
                _pump(out, peer_in)
        server.handshake_done(sctx, hello, tickets, s.session_reused)
        try:  # TLS 1.3: the server's ticket, if any, arrives after the handshake; the client reads it
            c.read(1)
        except ssl.SSLWantReadError:
            pass
        try:  # the server's close_notify, as qmlite ends every connection: its session stays resumable (HP13)
            s.unwrap()
        except ssl.SSLError:
            pass
        return c  # its session is read only after the full handshake, as ibmmqc reads it (client/tls.py)

    first = one(None)
    session, version = first.session, first.version()
    t0 = time.process_time()
    reused = 0
    for _ in range(rounds):
        reused += one(session).session_reused
    took = time.process_time() - t0
    return {"version": version, "rounds": rounds, "resumed": reused,
            "cpu_us_per_resumed_handshake": round(took / rounds * 1e6, 1)}


def _define_tls_channel(ibmmq, port: int) -> None:
    """The bench's TLS channel and its CHLAUTH rule, defined through PCF as an administrator would."""
    admin = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({port})", B.USER, B.PASSWORD)
    pcf = ibmmq.PCFExecute(admin)
    for command in (f"DEFINE CHANNEL({TLS_CHANNEL}) CHLTYPE(SVRCONN) SSLCIPH({CIPHER}) "
                    "SSLCAUTH(OPTIONAL) MCAUSER('app') REPLACE",
                    f"SET CHLAUTH({TLS_CHANNEL}) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)"):
        pcf.MQCMD_ESCAPE({ibmmq.CMQCFC.MQIACF_ESCAPE_TYPE: ibmmq.CMQCFC.MQET_MQSC,
                          ibmmq.CMQCFC.MQCACF_ESCAPE_TEXT: command.encode()})
    admin.disconnect()


def scheduler_work(made, connections: int) -> dict:
    """The event loop's work per new connection, plain and TLS (issue 35, decision HP7): the server in
    this process under a trio instrument, ibmmq connecting and disconnecting from a worker thread.  Task
    steps, tasks spawned and waits for I/O (each an ``epoll_wait``) per connection: counts no neighbour's
    load changes, where the rates and CPU above move with it."""
    out: dict = {}

    def drive(port: int) -> None:
        import ibmmq

        _define_tls_channel(ibmmq, port)
        for mode in ("plain", "tls"):
            for _ in range(10):  # warm: the first TLS connection's full handshake, the first of each kind
                _connect(ibmmq, port, made, mode == "tls").disconnect()
            with B.counting(B.loop_work()) as work:
                for _ in range(connections):
                    _connect(ibmmq, port, made, mode == "tls").disconnect()
            out[mode] = work.per(connections)

    B.in_process(drive, environ={"QMLITE_PKI_DIR": str(made.pki_dir)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--connects", type=int, default=200)
    ap.add_argument("--batches", type=int, default=20, help="alternating plain/TLS batches (default 20)")
    ap.add_argument("--cipher", default=CIPHER, help="the CipherSpec of the channel and the client")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--steps", type=int, default=100, metavar="N",
                    help="new connections of each kind counted for the event loop's work (0: none)")
    ap.add_argument("--replay", type=int, default=10, metavar="N",
                    help="new connections a batch against the bare replaying server, for the ceiling (0: none)")
    B.add_awake_option(ap)
    args = ap.parse_args(argv)
    globals()["CIPHER"] = args.cipher

    import ibmmq

    from qmlite.keys import testpki as pki

    made = pki.init(tempfile.mkdtemp(prefix="qmlite-bench-pki-"))
    os.environ["QMLITE_PKI_DIR"] = str(made.pki_dir)
    awake = B.Awake(args.awake)  # stopped in the finally below, with the server
    awake.start()
    server = B.ServerProcess(log_level="warning")
    try:
        _define_tls_channel(ibmmq, server.port)
        result = measure(ibmmq, server.port, made, args.calls, args.connects, args.batches, server.pid)
        replayed = replay_ceiling(ibmmq, server.port, made, args.replay, args.batches) if args.replay else None
    finally:
        server.stop()
        awake.stop()
    targets = {"put": 0.8, "get": 0.8, "connect": 0.5}
    # The ceiling of new connections (issue 35): a TLS connection is a plain one plus its handshake, whose
    # two ends compute in turn, so TLS / plain can be at most plain's time over plain's time plus the
    # handshake's CPU alone.
    alone = handshake_cpu(made, max(50, args.connects))
    plain_us = 1e6 / result["connect"]["plain_per_s"]["median"]
    ceiling = plain_us / (plain_us + alone["cpu_us_per_resumed_handshake"])
    alone.update(plain_connection_us=round(plain_us, 1), ceiling=round(ceiling, 3),
                 out_of_reach=ceiling < targets["connect"])
    report = {"cipher_spec": args.cipher, "results": result, "targets": targets,
              "met": {op: result[op]["tls_over_plain"]["median_of_pairs"] >= t for op, t in targets.items()},
              "connect_ceiling": alone, "load_average": os.getloadavg(), "idle": B.idle_policy(),
              "awake": args.awake}
    if replayed:
        replayed["out_of_reach"] = replayed["ceiling"] < targets["connect"]
        report["replay_ceiling"] = replayed
    if args.steps:
        report["event_loop_per_connection"] = scheduler_work(made, args.steps)
    print(json.dumps(report, indent=2))
    B.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
