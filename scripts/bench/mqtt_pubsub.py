#!/usr/bin/env python3
"""MQTT publications per second through qmlite against Debian's mosquitto broker, same machine, same
run (issue 33); and MQTT-in/MQI-out against MQI-in/MQI-out through qmlite.

Two brokers, each in its own process on a free loopback port: ``qmlite`` (a queue manager with an
MQTT listener, this script run with ``--serve``) and ``mosquitto`` (``/usr/sbin/mosquitto`` with a
configuration allowing anonymous clients).  For each broker, alternating:

* ``qos0/1``, ``qos0/10`` -- one paho-mqtt publisher sends ``--count`` 64-byte QoS 0 publications
  to a topic that 1 (10) paho subscribers, each its own client and network thread, subscribe to at
  QoS 0; the rate is publications/s from the first publish to the last subscriber's last message;
* ``qos1/1``, ``qos1/10`` -- the same at QoS 1 (publisher and subscribers), paho's default in-flight
  window of 20.

Then through qmlite alone, an ibmmq managed subscription getting what is published:
``mqtt-in`` (paho QoS 0 publishes) against ``mqi-in`` (ibmmq ``Topic.pub`` of non-persistent
messages), publications/s at the getter.  Goals: qmlite >= half of mosquitto at QoS 0 and QoS 1;
MQTT-in within 20% of MQI-in.

    python scripts/bench/mqtt_pubsub.py
    python scripts/bench/mqtt_pubsub.py --count 2000 --rounds 1
"""

from __future__ import annotations

import argparse
import json
import pathlib
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HOST = "127.0.0.1"
PAYLOAD = b"x" * 64
WAIT = 120


# ---- the qmlite broker process ---------------------------------------------------------------------
def serve(data_dir: str) -> None:
    import trio

    from qmlite.server import config
    from qmlite.server.listener import running

    async def main() -> None:
        # DEV.MQTT on a port the system picks, started by SYSTEM.MQXR.SERVICE as qmlite serve --mqtt-port 0 does
        cfg = config.load(environ={}, overrides={"host": HOST, "port": 0, "mqtt_port": 0,
                                                  "data_dir": pathlib.Path(data_dir)})
        async with running(cfg) as server:
            print(f"PORTS {server.port} {server.mqtt_port}", flush=True)
            await trio.sleep_forever()

    import structlog
    import logging

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    trio.run(main)


class Broker:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.tmp = tempfile.mkdtemp(prefix=f"mqtt-bench-{kind}-")
        if kind == "qmlite":
            cmd = [sys.executable, __file__, "--serve", self.tmp]
            self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            line = self.proc.stdout.readline()
            while line and not line.startswith("PORTS "):
                line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("qmlite did not start")
            self.mq_port, self.port = (int(p) for p in line.split()[1:])
            threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        else:
            binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
            import socket

            with socket.socket() as s:
                s.bind((HOST, 0))
                self.port = s.getsockname()[1]
            conf = pathlib.Path(self.tmp) / "mosquitto.conf"
            conf.write_text(f"listener {self.port} {HOST}\nallow_anonymous true\npersistence false\n"
                            "max_queued_messages 0\nmax_inflight_messages 20\n")
            self.proc = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 10
            while True:  # mosquitto prints nothing when ready: connect until it answers
                try:
                    socket.create_connection((HOST, self.port), 0.2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise SystemExit("mosquitto did not start") from None
                    time.sleep(0.05)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


# ---- paho clients ------------------------------------------------------------------------------------
def _client(port: int, name: str, on_message=None):
    from paho.mqtt import client as paho

    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=name, clean_session=True)
    connected = threading.Event()
    subscribed = threading.Event()
    c.on_connect = lambda *a: connected.set()
    c.on_subscribe = lambda *a: subscribed.set()
    if on_message is not None:
        c.on_message = on_message
    c.connect(HOST, port, 60)
    c.loop_start()
    if not connected.wait(WAIT):
        raise SystemExit(f"{name} did not connect")
    return c, subscribed


def fan_out(port: int, qos: int, subscribers: int, count: int, tag: str) -> float:
    topic = f"dev/bench/{tag}"
    done = threading.Barrier(subscribers + 1)
    subs = []
    for i in range(subscribers):
        seen = [0]

        def on_message(_c, _u, _m, seen=seen):
            seen[0] += 1
            if seen[0] == count:
                threading.Thread(target=done.wait, daemon=True).start()

        c, subscribed = _client(port, f"s{tag}{i}", on_message)
        c.subscribe(topic, qos)
        if not subscribed.wait(WAIT):
            raise SystemExit("no SUBACK")
        subs.append(c)
    pub, _ = _client(port, f"p{tag}")
    start = time.perf_counter()
    infos = [pub.publish(topic, PAYLOAD, qos) for _ in range(count)]
    if qos:
        for info in infos:
            info.wait_for_publish(WAIT)
    done.wait(WAIT)
    elapsed = time.perf_counter() - start
    for c in subs + [pub]:
        c.disconnect()
        c.loop_stop()
    return count / elapsed


# ---- MQTT-in/MQI-out against MQI-in/MQI-out ----------------------------------------------------------
def into_mqi(broker: Broker, count: int, via: str, tag: str) -> float:
    import ibmmq
    from ibmmq import CMQC

    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"{HOST}({broker.mq_port})", "admin", "passw0rd")
    topic = f"dev/mqi/{tag}"
    sd = ibmmq.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    sub = ibmmq.Subscription(qm)
    sub.sub(sub_desc=sd)
    got = queue.Queue()

    def getter() -> None:
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=WAIT * 1000)
        for _ in range(count):
            sub.get(None, ibmmq.MD(), gmo)
        got.put(time.perf_counter())

    thread = threading.Thread(target=getter)
    if via == "mqtt":
        pub, _ = _client(broker.port, f"m{tag}")
        thread.start()
        start = time.perf_counter()
        for _ in range(count):
            pub.publish(topic, PAYLOAD, 0)
        end = got.get(timeout=WAIT)
        pub.disconnect()
        pub.loop_stop()
    else:
        pqm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", f"{HOST}({broker.mq_port})", "admin", "passw0rd")
        t = ibmmq.Topic(pqm, topic_string=topic)
        t.open(open_opts=CMQC.MQOO_OUTPUT)
        thread.start()
        start = time.perf_counter()
        md = ibmmq.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
        pmo = ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
        for _ in range(count):
            t.pub(PAYLOAD, md, pmo)
        end = got.get(timeout=WAIT)
        t.close()
        pqm.disconnect()
    thread.join()
    sub.close()
    qm.disconnect()
    return count / (end - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serve", help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=5000, help="publications per measurement (default 5000)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; each figure keeps its best (default 3)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.serve:
        serve(args.serve)
        return
    brokers = {"qmlite": Broker("qmlite"), "mosquitto": Broker("mosquitto")}
    best: dict[str, float] = {}
    try:
        for r in range(args.rounds):
            for qos in (0, 1):
                for subs in (1, 10):
                    count = args.count if qos == 0 else max(args.count // 2, 1)
                    for name, broker in brokers.items():
                        rate = fan_out(broker.port, qos, subs, count, f"{name[0]}{r}{qos}{subs}")
                        key = f"{name} qos{qos}/{subs}"
                        best[key] = max(best.get(key, 0.0), rate)
            for via in ("mqtt", "mqi"):
                rate = into_mqi(brokers["qmlite"], args.count, via, f"{via}{r}")
                key = f"{via}-in/mqi-out"
                best[key] = max(best.get(key, 0.0), rate)
    finally:
        for broker in brokers.values():
            broker.stop()
    if args.json:
        print(json.dumps(best, indent=1))
        return
    print(f"{'measurement':<24}{'pub/s':>10}")
    for key, rate in best.items():
        print(f"{key:<24}{rate:>10.0f}")
    for qos in (0, 1):
        for subs in (1, 10):
            ratio = best[f"qmlite qos{qos}/{subs}"] / best[f"mosquitto qos{qos}/{subs}"]
            print(f"qmlite/mosquitto qos{qos}/{subs}: {ratio:.2f} (goal >= 0.50)")
    print(f"mqtt-in / mqi-in: {best['mqtt-in/mqi-out'] / best['mqi-in/mqi-out']:.2f} (goal >= 0.80)")


if __name__ == "__main__":
    main()
