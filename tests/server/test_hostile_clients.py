"""No client takes the server down or holds it hostage (issue 30 item 7, decisions HC1-HC4): hypothesis
mixes what a hostile but ordinary client on 127.0.0.1 can do -- queue-manager names at every door,
stalled and lying headers, garbage after a valid header, oversized and nested REST bodies, malformed
HTTP/1.1 and HTTP/2, clients killed while a DELAY rule holds their MQGET or while it waits -- against a
live ``qmlite serve`` process.  After each step the process is alive and a fresh client puts and gets
on DEV.QUEUE.1; after each example its open descriptors are back at the warm-up baseline, its RSS
within RSS_GROWTH of it, nothing was created, and it logged no connection that ended in a bug.  At
the end the server is SIGKILLed and started again on the same data: what the run left behind does
not stop it, and it serves."""

from __future__ import annotations

import string
import urllib.parse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qmlite.pcf import fap
from tests.support import hostile as H
from tests.support.rawfap import client_hello, id_segment
from tests.support.served import Served

OPENING = "1"  # --opening-timeout: seconds a stalled socket keeps its slot
RSS_GROWTH = 30 * 1024  # KiB: RSS does not shrink in CPython, so what is bounded is its growth over the whole run
WARM = ("HC.WARM.A", "HC.WARM.B")  # created at warm-up by an authenticated MQCONN, filling --max-qmgrs 3
HOSTED = {"QM1", *WARM}
ARGS = ("--opening-timeout", OPENING, "--max-connections", "10", "--create-on-connect", "HC*", "--max-qmgrs", "3",
        "--http-port", "0", "--http-max-body", "65536")
SETTLE = 50  # fresh round trips the server may need to have seen every close the step made


@pytest.fixture(autouse=True)
def _reap():
    yield
    Served.reap_all()


# ---- the steps ----------------------------------------------------------------------------------------
NAME_ALPHABET = string.ascii_letters + string.digits + "._%/" + "\x00\x01\n\t\x7f é中"
names = st.one_of(
    st.text(st.sampled_from(NAME_ALPHABET), max_size=60),
    st.text(st.sampled_from(NAME_ALPHABET), max_size=58).map(lambda s: "HC" + s),  # the create-on-connect pattern's
    st.sampled_from([".", "..", "/", "QM1", "QM1\n", "HC.WARM.A", "HC.NEW", "HC." * 16, "HC" + "X" * 27,
                     "A" * 29, "HC/..", "HC\x00"]),
)
passwords = st.sampled_from(["passw0rd", "wrong", None])


@st.composite
def name_steps(draw):
    return ("name", draw(names), draw(st.sampled_from(["id", "mqconn", "rest-create", "rest-get"])), draw(passwords))


TEMPLATES = {"tsh": id_segment(fap.TSH), "tshm": id_segment(fap.TSHM), "hello": client_hello()}
stall_steps = st.lists(st.tuples(st.sampled_from(sorted(TEMPLATES)), st.integers(0, 4096)), min_size=1, max_size=4) \
    .map(lambda cuts: ("stall", cuts))
lengths = st.one_of(st.sampled_from([0, 1, 27, 28, 35, 36, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF]),
                    st.integers(0, 2**32 - 1))
garbage_steps = st.one_of(
    st.tuples(st.just("lie"), st.sampled_from(["tsh", "tshm"]), lengths, st.binary(max_size=200),
              st.sampled_from(["before", "after"])),
    st.tuples(st.just("garbage"), st.binary(min_size=1, max_size=300), st.sampled_from(["before", "after"])),
)
rest_steps = st.one_of(
    st.tuples(st.just("body"), st.sampled_from(["put", "mqsc", "pcf"]), st.sampled_from(["length", "chunked"])),
    st.tuples(st.just("nested"), st.sampled_from(["mqsc", "pcf"]), st.integers(65, 30000)),
)
http_steps = st.one_of(
    st.tuples(st.just("http-bytes"), st.binary(max_size=300)),
    st.tuples(st.just("http-flood"), st.integers(100, 20000)),
    st.tuples(st.just("http-long-line"), st.integers(1000, 200000)),
    st.tuples(st.just("h2-garbage"), st.binary(max_size=300)),
    st.tuples(st.just("h2-bad-preface"), st.binary(max_size=40)),
    st.tuples(st.just("h2-non-ascii"), st.sampled_from([b":method", b":path"]), st.binary(min_size=1, max_size=20)),
)
kill_steps = st.tuples(st.just("killed"), st.sampled_from(["sigkill", "reset"]), st.sampled_from(["delay", "wait"]))
steps = st.one_of(name_steps(), stall_steps, garbage_steps, rest_steps, http_steps, kill_steps)


def run_step(served: Served, step: tuple) -> None:
    kind = step[0]
    if kind == "name":
        _, name, door, password = step
        raw = name.encode()
        if door in ("id", "mqconn"):
            how, reason = H.name_over_fap(served, raw, at_id=door == "id", password=password)
            assert how == "refused-at-id" or reason in H.NAME_REASONS, (how, reason)
            if reason == 0:  # only a hosted queue manager (blank: the default), only with the password
                assert password == "passw0rd" and (raw[:48].rstrip(b" \x00").decode() or "QM1") in HOSTED
        else:
            auth = H.ADMIN if password == "passw0rd" else ("admin", "wrong")
            with H.rest(served) as client:
                if door == "rest-create":
                    r = client.post(H.QMGRS, auth=auth, headers=H.CSRF, json={"name": name})
                else:
                    r = client.get(f"{H.QMGRS}/{urllib.parse.quote(name, safe='')}", auth=auth)
            assert r.status_code < 500 and r.status_code != 201, (r.status_code, r.text)
    elif kind == "stall":
        H.stall(served.port, [TEMPLATES[t][:cut % len(TEMPLATES[t])] for t, cut in step[1]])
    elif kind in ("lie", "garbage"):
        if kind == "lie":
            _, template, length, tail, when = step
            data = H.lying_segment(TEMPLATES[template], length, tail)
        else:
            _, data, when = step
        if when == "before":
            H.garbage_before_agreement(served.port, data)
        else:
            H.garbage_after_mqconn(served, data)
    elif kind == "body":
        _, endpoint, framing = step
        path = {"put": H.PUT, "mqsc": H.MQSC, "pcf": H.PCF}[endpoint]
        over = 4 * 1024 * 1024 + 1 if endpoint == "put" else 65536 + 1  # DEV.QUEUE.1's MAXMSGL, --http-max-body
        ctype, auth = ("text/plain", H.APP) if endpoint == "put" else ("application/json", H.ADMIN)
        if framing == "length":
            head = H.body_head("POST", path, length=300 * 1024 * 1024, content_type=ctype, auth=auth)
            pieces = (b"x" * 65536 for _ in range(4800))
        else:
            head = H.body_head("POST", path, length=None, content_type=ctype, auth=auth)
            pieces = H.chunked(b"x" * (over + 65536))
        assert H.http_request(served.http_port, head, pieces) == 413
    elif kind == "nested":
        _, endpoint, depth = step
        body = H.nested(depth)
        head = H.body_head("POST", {"mqsc": H.MQSC, "pcf": H.PCF}[endpoint], length=len(body))
        assert H.http_request(served.http_port, head, [body]) == 400
    elif kind.startswith(("http", "h2")):
        H.garbage_before_agreement(served.http_port, http_bytes(step))
    elif kind == "killed":
        _, how, held = step
        queue, wait = ("HC.DELAYED", 0) if held == "delay" else ("HC.WAIT", 600000)
        fired = H.fault_fired(served, "HCHOLD")
        until_held = (lambda: wait_fired(served, fired + 1)) if held == "delay" else None
        if how == "sigkill":
            with H.process_in_get(served, queue, wait):
                if until_held:
                    until_held()
        else:
            H.raw_get_then_reset(served, queue, wait, held=until_held)
    else:  # pragma: no cover - a step the strategies above do not make
        raise AssertionError(step)


def http_bytes(step: tuple) -> bytes:
    kind = step[0]
    if kind == "http-bytes":
        return step[1] + b"\r\n\r\n"
    if kind == "http-flood":
        return b"GET /ibmmq/rest/v1/admin/qmgr HTTP/1.1\r\nHost: x\r\n" + b"X-Flood: y\r\n" * step[1] + b"\r\n"
    if kind == "http-long-line":
        return b"GET /" + b"a" * step[1] + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    if kind == "h2-garbage":
        return b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + step[1]
    if kind == "h2-bad-preface":
        return b"PRI * HTTP/2.0\r\n\r\n" + step[1]
    _, which, value = step  # h2-non-ascii: a request whose :method or :path carries these bytes
    headers = [(name, value + b"\xff" if name == which else v) for name, v in H.h2_headers()]
    return H.h2_request(headers)


def wait_fired(served: Served, count: int) -> None:
    """Until the DELAY rule has fired ``count`` times: each try is a REST round trip, bounded in number."""
    for _ in range(1000):
        if H.fault_fired(served, "HCHOLD") >= count:
            return
    raise AssertionError(f"HCHOLD never fired {count} times")


# ---- the run --------------------------------------------------------------------------------------------
class Server:
    def __init__(self, data_dir):
        self.data_dir = data_dir
        self.served = Served(data_dir, *ARGS, env=H.ENV)
        self.round = 0

    def fresh_client(self) -> None:
        assert self.served.proc.poll() is None, f"the server ended\n{self.served.stderr_tail()}"
        self.round += 1
        H.put_and_get(self.served, b"hostile round %d" % self.round)

    def settled_fds(self, baseline: int) -> list[str]:
        """Fresh round trips until the server has seen every close a step made (each orders the
        closes before it), at most SETTLE; what its descriptors are then."""
        for _ in range(SETTLE):
            self.fresh_client()
            with H.rest(self.served) as client:  # an HTTP round trip orders the HTTP closes
                assert client.get("/ibmmq/rest/v1/admin/qmgr", auth=H.ADMIN).status_code == 200
            fds = H.fd_targets(self.served.proc.pid)
            if len(fds) <= baseline:
                return fds
        return fds

    def qmgr_dirs(self) -> set[str]:
        qmgrs = self.data_dir / "qmgrs"
        return {p.name for p in qmgrs.iterdir()} if qmgrs.exists() else set()


def warm_up(server: Server) -> None:
    served = server.served
    for name in WARM:  # authenticated: created; --max-qmgrs 3 is then full, so no step may create another
        assert H.name_over_fap(served, name.encode(), at_id=True, password="passw0rd") == ("mqconn", 0)
    H.mqsc(served, "DEFINE QLOCAL(HC.DELAYED) REPLACE")
    H.mqsc(served, "DEFINE QLOCAL(HC.WAIT) REPLACE")
    H.mqsc(served, "SET QMLITE FAULT(HCHOLD) VERB(MQGET) OBJECT(HC.DELAYED) DELAY(3600000)")
    # one step of each kind, so the baseline includes what a first use loads (TLS, HTTP/2, the client process)
    for step in [("name", "HC.NEW", "id", "wrong"), ("name", "QM1", "rest-create", "passw0rd"),
                 ("stall", [("hello", 40)]), ("lie", "tshm", 0xFFFFFFFF, b"x", "after"), ("body", "mqsc", "chunked"),
                 ("nested", "pcf", 100), ("h2-garbage", b""), ("killed", "sigkill", "delay"),
                 ("killed", "reset", "wait")]:
        run_step(served, step)
        server.fresh_client()


def test_no_hostile_client_takes_the_server_down_or_holds_it(tmp_path):
    server = Server(tmp_path / "data")
    warm_up(server)
    pid = server.served.proc.pid
    base = min((server.settled_fds(10**6) for _ in range(10)), key=len)  # once warm-up's last closes are seen
    baseline_fds = len(base)
    baseline_rss = H.rss_kib(pid)
    dirs = server.qmgr_dirs()
    assert dirs == {"HC!WARM!A", "HC!WARM!B"}  # IBM's name transformation (NM2)

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.lists(steps, min_size=1, max_size=4))
    def hostile_run(run):
        for step in run:
            run_step(server.served, step)
            server.fresh_client()
        fds = server.settled_fds(baseline_fds)
        assert len(fds) <= baseline_fds, \
            f"{len(fds)} descriptors open, {baseline_fds} at the baseline, after {run}: {fds} against {base}"
        growth = H.rss_kib(pid) - baseline_rss
        assert growth < RSS_GROWTH, f"RSS grew {growth} KiB over the baseline, after {run}"
        assert server.qmgr_dirs() == dirs
        with H.rest(server.served) as client:
            hosted = {q["name"] for q in client.get(H.QMGRS, auth=H.ADMIN).json()["qmgr"]}
        assert hosted == HOSTED

    hostile_run()
    log = server.served.stderr_tail(100000)
    assert "connection_crashed" not in log, log  # a bug confined to its connection is still a bug

    # A restart on what the run left behind: the server starts, serves, and finds only what warm-up made.
    server.served.kill()
    server.served = Served(server.data_dir, *ARGS, env=H.ENV)
    server.fresh_client()
    assert server.qmgr_dirs() == dirs
    with H.rest(server.served) as client:
        assert {q["name"] for q in client.get(H.QMGRS, auth=H.ADMIN).json()["qmgr"]} == HOSTED
    assert server.served.stop() == 0


def test_an_answer_written_before_a_reset_is_read_after_the_send_that_met_the_reset():
    # The helper behind the body steps (CI, 2026-11-30): a server that answers 413 and closes with the body unread
    # resets the connection; a send after that fails, and the answer must still be read, not taken for none.
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    answered = threading.Event()

    def answer_and_reset():
        conn, _ = listener.accept()
        conn.recv(1024)
        conn.sendall(b"HTTP/1.1 413 Payload Too Large\r\ncontent-length: 0\r\n\r\n")
        conn.close()  # unread bytes left: the kernel resets
        answered.set()

    server = threading.Thread(target=answer_and_reset)
    server.start()
    sock = socket.create_connection(listener.getsockname())
    try:
        sock.sendall(b"POST / HTTP/1.1\r\ncontent-length: 999999999\r\n\r\n" + b"x" * 4096)
        assert answered.wait(H.PATIENCE)
        with pytest.raises(OSError) as failed:
            for _ in range(10_000):  # until the reset is met (a bound: 655 MB)
                sock.send(b"x" * 65536)
        assert failed.value.errno in H._PEER_CLOSED
        assert H._status(H._answered(sock)) == 413
    finally:
        sock.close()
        server.join()
        listener.close()
