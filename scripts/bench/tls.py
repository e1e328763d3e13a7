"""TLS on the MQ listener against plain TCP, through IBM's ``ibmmq``, one connection, measured in the same
run (issue 22): Queue.put and Queue.get per second over TLS as a share of plain, and new connections per
second (MQCONNX + MQDISC) over TLS as a share of plain.

* plain: DEV.APP.SVRCONN, as ``ibmmq.connect`` reaches it.
* TLS: the same queue manager and port, channel BENCH.TLS.SVRCONN with SSLCIPH(ANY_TLS12_OR_HIGHER),
  the client's MQSCO naming the test PKI's client key repository (``qmlite tls init``).

    python scripts/bench/tls.py [--calls 3000] [--connects 200] [--repeat 3] [--json FILE]

The server runs as ``qmlite serve`` in its own process (log level warning) with the test PKI mounted as
IBM's container mounts /etc/mqm/pki (QMLITE_PKI_DIR).  Plain and TLS take turns for ``--repeat`` rounds;
each figure is its best round.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as B  # noqa: E402

QUEUE = b"DEV.QUEUE.1"
BODY = b"x" * 100
TLS_CHANNEL = "BENCH.TLS.SVRCONN"
CIPHER = "ANY_TLS12_OR_HIGHER"


def _connect(ibmmq, port: int, made, tls: bool):
    if not tls:
        return ibmmq.connect(B.QMGR, "DEV.APP.SVRCONN", f"{B.HOST}({port})")
    cd = ibmmq.CD(ChannelName=TLS_CHANNEL.encode(), ConnectionName=f"{B.HOST}({port})".encode(),
                  SSLCipherSpec=CIPHER.encode())
    sco = ibmmq.SCO(KeyRepository=made.client_stem.encode(), CertificateLabel=made.client_label.encode())
    qm = ibmmq.QueueManager(None)
    qm.connect_with_options(B.QMGR, cd=cd, sco=sco)
    return qm


def _rate(fn, count: int) -> dict:
    t0 = time.perf_counter()
    fn(count)
    secs = time.perf_counter() - t0
    return {"count": count, "seconds": round(secs, 4), "per_s": round(count / secs, 1)}


def run_round(ibmmq, port: int, made, tls: bool, calls: int, connects: int) -> dict:
    from ibmmq import CMQC

    qm = _connect(ibmmq, port, made, tls)
    q = ibmmq.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        for _ in range(50):  # warm both ends
            q.put(BODY)
            q.get()

        def puts(n):
            for _ in range(n):
                q.put(BODY)

        def gets(n):
            for _ in range(n):
                q.get()

        out = {"put": _rate(puts, calls), "get": _rate(gets, calls)}
    finally:
        q.close()
        qm.disconnect()

    def connects_(n):
        for _ in range(n):
            _connect(ibmmq, port, made, tls).disconnect()

    out["connect"] = _rate(connects_, connects)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--connects", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)

    import ibmmq

    from qmlite import pki

    made = pki.init(tempfile.mkdtemp(prefix="qmlite-bench-pki-"))
    os.environ["QMLITE_PKI_DIR"] = str(made.pki_dir)
    server = B.ServerProcess(log_level="warning")
    try:
        admin = ibmmq.connect(B.QMGR, B.CHANNEL, f"{B.HOST}({server.port})", B.USER, B.PASSWORD)
        pcf = ibmmq.PCFExecute(admin)
        pcf.MQCMD_ESCAPE({ibmmq.CMQCFC.MQIACF_ESCAPE_TYPE: ibmmq.CMQCFC.MQET_MQSC,
                          ibmmq.CMQCFC.MQCACF_ESCAPE_TEXT:
                              f"DEFINE CHANNEL({TLS_CHANNEL}) CHLTYPE(SVRCONN) SSLCIPH({CIPHER}) "
                              "SSLCAUTH(OPTIONAL) MCAUSER('app') REPLACE".encode()})
        pcf.MQCMD_ESCAPE({ibmmq.CMQCFC.MQIACF_ESCAPE_TYPE: ibmmq.CMQCFC.MQET_MQSC,
                          ibmmq.CMQCFC.MQCACF_ESCAPE_TEXT:
                              f"SET CHLAUTH({TLS_CHANNEL}) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)".encode()})
        admin.disconnect()
        best: dict = {"plain": {}, "tls": {}}
        for _ in range(args.repeat):
            for mode in ("plain", "tls"):
                result = run_round(ibmmq, server.port, made, mode == "tls", args.calls, args.connects)
                for key, value in result.items():
                    if key not in best[mode] or value["per_s"] > best[mode][key]["per_s"]:
                        best[mode][key] = value
    finally:
        server.stop()
    ratios = {key: round(best["tls"][key]["per_s"] / best["plain"][key]["per_s"], 3) for key in best["plain"]}
    report = {"plain": best["plain"], "tls": best["tls"], "tls_over_plain": ratios,
              "targets": {"put": 0.8, "get": 0.8, "connect": 0.5},
              "met": {"put": ratios["put"] >= 0.8, "get": ratios["get"] >= 0.8, "connect": ratios["connect"] >= 0.5},
              "load_average": os.getloadavg()}
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
