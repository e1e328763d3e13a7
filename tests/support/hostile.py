"""A hostile but ordinary client of a live ``qmlite serve`` (tests/server/test_hostile_clients.py): each
function below does one thing a client on 127.0.0.1 may do -- a queue-manager name at some door, a
stalled or lying header, garbage, an oversized or nested REST body, malformed HTTP, a client killed
in a held call -- and returns only once the server has visibly dealt with it (answered, or closed the
socket: EOF is the event waited for, bounded by PATIENCE, never a sleep).  Plus what the suite checks
after each: a fresh client's put and get, and the server's open descriptors and RSS from /proc."""

from __future__ import annotations

import base64
import contextlib
import json
import errno
import os
import select
import socket
import struct
import subprocess
import sys
import textwrap

import h2.config
import h2.connection
import h2.events
import httpx
import trio

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO

from .rawfap import RawPeer, handshake, id_naming, mqconn_naming, mqi_call, open_q, send_call
from .served import ADMIN_PASSWORD, ADMIN_USER, ROOT, Served

PATIENCE = 30.0  # seconds: how long a step may wait for the server's answer or close (a bound, not a delay)
ADMIN = (ADMIN_USER, ADMIN_PASSWORD)
APP = ("app", "hostile-app")  # the messaging API's user (MQWebUser), its password given to the server
ENV = {"MQ_APP_PASSWORD": APP[1]}
CSRF = {"ibm-mq-rest-csrf-token": "hostile"}
MQSC = "/ibmmq/rest/v2/admin/action/qmgr/QM1/mqsc"
PCF = "/ibmmq/rest/v1/admin/action/qmgr/QM1/pcf"
PUT = "/ibmmq/rest/v1/messaging/qmgr/QM1/queue/DEV.QUEUE.1/message"
QMGRS = "/ibmmq/rest/v1/admin/qmlite/qmgrs"


# ---- what the suite measures ------------------------------------------------------------------------
_TCP_STATES = {"01": "ESTABLISHED", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "0A": "LISTEN",
               "04": "FIN_WAIT1", "05": "FIN_WAIT2", "09": "LAST_ACK", "0B": "CLOSING"}


def fd_targets(pid: int) -> list[str]:
    """What each open descriptor is, a TCP socket as its ports and state (for a failure's message)."""
    sockets = {}
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as lines:
            for line in list(lines)[1:]:
                f = line.split()
                sockets[f"socket:[{f[9]}]"] = (f"tcp {int(f[1].rsplit(':', 1)[1], 16)}->"
                                               f"{int(f[2].rsplit(':', 1)[1], 16)} {_TCP_STATES.get(f[3], f[3])}")
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        targets.append(sockets.get(target, target))
    return sorted(targets)


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def put_and_get(served: Served, body: bytes) -> None:
    """A fresh client connects, puts ``body`` on DEV.QUEUE.1 and gets that same message back."""
    with served.connect() as qm:
        hobj, _ = qm.open(MQOD(ObjectName="DEV.QUEUE.1"), C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
        md, _ = qm.put(hobj, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), body)
        got_md, _, data = qm.get(hobj, MQMD(MsgId=md.MsgId),
                                 MQGMO(Version=2, Options=C.MQGMO_NO_SYNCPOINT, MatchOptions=C.MQMO_MATCH_MSG_ID),
                                 len(body) + 16)
        assert data == body and got_md.MsgId == md.MsgId
        qm.close(hobj)


def rest(served: Served) -> httpx.Client:
    return httpx.Client(base_url=f"http://127.0.0.1:{served.http_port}", timeout=PATIENCE)


def mqsc(served: Served, command: str) -> dict:
    with rest(served) as client:
        r = client.post(MQSC, auth=ADMIN, headers=CSRF, json={"type": "runCommand", "parameters": {"command": command}})
    assert r.status_code == 200, r.text
    return r.json()


def fault_fired(served: Served, name: str) -> int:
    [item] = mqsc(served, f"DISPLAY QMLITE FAULT({name})")["commandResponse"]
    fired = [line for line in item["text"] if "FIRED(" in line]
    return int(fired[0].split("FIRED(")[1].split(")")[0])


# ---- raw sockets --------------------------------------------------------------------------------------
def dial(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    return sock


# What a send or a shutdown raises once the server has closed or reset the socket: EPIPE, ECONNRESET, and
# ENOTCONN (shutdown after a reset has arrived).
_PEER_CLOSED = (errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN)


def until_closed(sock: socket.socket) -> bytes:
    """Everything the server still says, up to its close (EOF or a reset); then our side is closed too."""
    said = b""
    try:
        while data := sock.recv(65536):
            said += data
    except ConnectionResetError:
        pass  # closed all the same
    except TimeoutError:
        raise AssertionError(f"the server left the socket open for {PATIENCE} s; it said {said[:200]!r}") from None
    finally:
        sock.close()
    return said


def closed_by_server(socks: list[socket.socket]) -> None:
    """Wait, all at once, until the server has closed every one of ``socks`` (read to EOF each)."""
    open_ = {s.fileno(): s for s in socks}
    try:
        while open_:
            ready, _, _ = select.select(list(open_.values()), [], [], PATIENCE)
            assert ready, f"{len(open_)} socket(s) still open after {PATIENCE} s"
            for sock in ready:
                try:
                    if sock.recv(65536):
                        continue
                except ConnectionResetError:
                    pass
                del open_[sock.fileno()]
                sock.close()
    finally:
        for sock in open_.values():
            sock.close()


def reset(sock: socket.socket) -> None:
    """Close with SO_LINGER 0: the peer gets a reset, not an orderly FIN."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


# ---- queue-manager names at the ID exchange and MQCONN ------------------------------------------------
NAME_REASONS = {0, C.MQRC_Q_MGR_NAME_ERROR, C.MQRC_Q_MGR_NOT_AVAILABLE, C.MQRC_NOT_AUTHORIZED}


def name_over_fap(served: Served, raw: bytes, *, at_id: bool, password: str | None) -> tuple[str, int | None]:
    """Name ``raw`` in the ID exchange (``at_id``) or only in MQCONN, then UID, CAUT with ``password``
    (none: no CAUT) and MQCONN naming it.  Returns how it ended: ("refused-at-id", None) or
    ("mqconn", reason); the connection is closed by us after."""

    async def exchange():
        with trio.fail_after(PATIENCE):
            peer = await RawPeer.connect(served)
            try:
                await peer.send(id_naming(raw if at_id else b"QM1"))
                seg = await peer.receive()
                if seg is None or seg.header.SegmentType != fap.INITIAL_DATA \
                        or seg.header.ControlFlags1 & fap.CF1_ERROR:
                    return "refused-at-id", None
                theirs = fap.decode_body(seg)
                peer.sid = fap.TSHM if theirs.SharingConversations else fap.TSH
                conv = 1 if peer.sid == fap.TSHM else 0
                await peer.send(fap.encode_segment(fap.USERID_DATA, fap.UserIdData(UserIdentifier=ADMIN_USER)
                                                   .pack(fap.LITTLE), struct_id=peer.sid, conversation_id=conv))
                if password is not None:
                    caut = fap.ConAuthInfo(UserIdMaxLength=1024, PasswordMaxLength=1024, UserId=ADMIN_USER,
                                           Password=password.encode())
                    await peer.send(fap.encode_segment(fap.CONAUTH_INFO, caut.pack(fap.LITTLE), struct_id=peer.sid,
                                                       conversation_id=conv))
                    status = await peer.receive()
                    assert status is not None and status.header.SegmentType == fap.STATUS_DATA
                api, _ = await mqi_call(peer, fap.MQCONN, mqconn_naming(raw))
                return "mqconn", api.Reason
            finally:
                await peer.aclose()

    return trio.run(exchange)


# ---- stalls, lies and garbage ---------------------------------------------------------------------------
def stall(port: int, prefixes: list[bytes]) -> None:
    """Open one socket per prefix, send it and nothing more: the server must close each (its opening
    deadline)."""
    socks = []
    for prefix in prefixes:
        sock = dial(port)
        if prefix:
            sock.sendall(prefix)
        socks.append(sock)
    closed_by_server(socks)


def lying_segment(template: bytes, length: int, tail: bytes) -> bytes:
    """``template``'s header with its segment length replaced by ``length`` (any 32-bit value: huge,
    zero, shorter than the header, "negative"), then ``tail`` instead of its body."""
    header_length = fap.TSHM_LENGTH if template.startswith(b"TSHM") else fap.TSH_LENGTH
    return template[:4] + struct.pack(">I", length) + template[8:header_length] + tail


def garbage_before_agreement(port: int, data: bytes) -> bytes:
    """Send ``data`` as a new connection's first bytes, end our sending, and read to the server's close."""
    sock = dial(port)
    try:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
    except OSError as exc:
        if exc.errno not in _PEER_CLOSED:
            raise
        # the server closed first (an HTTP server answers a line too long and resets): what the test waits for
    return until_closed(sock)


def garbage_after_mqconn(served: Served, data: bytes) -> None:
    """An authenticated connection (MQCONN done) that then sends ``data``, then EOF: the server must
    close it (with or without a STATUS), having served nothing wrong."""

    async def exchange():
        with trio.fail_after(PATIENCE):
            peer = await RawPeer.connect(served)
            try:
                await handshake(peer)
                api, _ = await mqi_call(peer, fap.MQCONN, mqconn_naming(b"QM1"))
                assert api.Reason == 0
                try:
                    await peer.send(data)
                    await peer.stream.send_eof()
                except trio.BrokenResourceError:
                    return  # the server closed first
                try:
                    while await peer.stream.receive_some(65536):
                        pass
                except trio.BrokenResourceError:
                    pass  # reset: closed
            finally:
                await peer.aclose()

    trio.run(exchange)


# ---- clients killed in a held call ------------------------------------------------------------------------
_GET_CLIENT = textwrap.dedent("""
    import sys
    from qmlite.client.sync import QueueManager
    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQGMO, MQMD, MQOD
    port, queue, wait = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    qm = QueueManager.connect("127.0.0.1", port, "DEV.ADMIN.SVRCONN", "QM1", user="admin", password="passw0rd")
    hobj, _ = qm.open(MQOD(ObjectName=queue), C.MQOO_INPUT_SHARED)
    print("opened", flush=True)
    qm.get(hobj, MQMD(), MQGMO(Options=C.MQGMO_WAIT if wait else C.MQGMO_NO_WAIT, WaitInterval=wait), 100)
""")


@contextlib.contextmanager
def process_in_get(served: Served, queue: str, wait_ms: int):
    """A client process that connects, opens ``queue`` and calls MQGET (waiting ``wait_ms``); yields
    once it has opened the queue (its line read), and is SIGKILLed and reaped on leaving."""
    proc = subprocess.Popen([sys.executable, "-c", _GET_CLIENT, str(served.port), queue, str(wait_ms)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout.readline() == "opened\n"
        yield proc
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def raw_get_then_reset(served: Served, queue: str, wait_ms: int, held=None) -> None:
    """A raw connection that opens ``queue``, sends MQGET (waiting ``wait_ms``) and, once ``held()``
    (if given) is true, resets its socket: the server must end the connection and its call."""

    async def exchange():
        with trio.fail_after(PATIENCE):
            peer = await RawPeer.connect(served)
            await handshake(peer)
            assert (await mqi_call(peer, fap.MQCONN, mqconn_naming(b"QM1")))[0].Reason == 0
            api, _ = await open_q(peer, queue, C.MQOO_INPUT_SHARED)
            assert api.CompCode == 0
            gmo = MQGMO(Version=4, Options=C.MQGMO_WAIT if wait_ms else C.MQGMO_NO_WAIT, WaitInterval=wait_ms)
            await send_call(peer, fap.MQGET, calls.MQGetRequest(mqi.MQMD(Version=2), gmo, 100).pack(fap.LITTLE),
                            hobj=api.Hobj)
            return socket.socket(fileno=peer.stream.socket.detach())  # out of trio, to reset after it ran

    sock = trio.run(exchange)
    if held is not None:
        held()
    reset(sock)


# ---- REST and HTTP ---------------------------------------------------------------------------------------
def _status(head: bytes) -> int:
    assert head.startswith(b"HTTP/1.1 "), head[:100]
    return int(head[9:12])


def http_request(port: int, head: bytes, pieces, *, shut: bool = True) -> int:
    """Send ``head`` and then the byte strings of ``pieces`` for as long as the server reads them and
    has not answered; returns the status it answers (the connection is read to its close or dropped)."""
    sock = dial(port)
    sock.sendall(head)
    answer = b""
    try:
        for piece in pieces:
            while piece:
                readable, writable, _ = select.select([sock], [sock], [], PATIENCE)
                assert readable or writable, "the server neither read nor answered"
                if readable:
                    answer = sock.recv(65536)
                    break
                piece = piece[sock.send(piece):]
            if answer:
                break
        if not answer:
            if shut:
                sock.shutdown(socket.SHUT_WR)
            answer = sock.recv(65536)
    except OSError as exc:
        if exc.errno not in _PEER_CLOSED:
            raise
        # Reset while we sent: an answer it wrote before closing is still ours to read (a reset purges the
        # receiving end's write queue, not its read queue), as a client reading the response after a broken pipe
        # does (urllib3).  None there: closed before answering (asserted below).
        if not answer:
            answer = _answered(sock)
    finally:
        sock.close()
    return _status(answer)


def _answered(sock: socket.socket) -> bytes:
    """What the peer sent before its reset, once a send has failed with it (the error is then consumed)."""
    sock.settimeout(PATIENCE)  # after a reset the read returns at once; a bound all the same
    try:
        return sock.recv(65536)
    except OSError as exc:
        if exc.errno not in _PEER_CLOSED:
            raise
        return b""


def body_head(method: str, path: str, *, length: int | None, content_type: str = "application/json",
              auth: tuple[str, str] = ADMIN) -> bytes:
    """A request head for a body of ``length`` bytes (None: chunked), as ``auth``."""
    token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
    framing = f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic {token}\r\n"
            f"ibm-mq-rest-csrf-token: x\r\nContent-Type: {content_type}\r\n{framing}\r\n\r\n").encode()


def chunked(data: bytes, size: int = 65536):
    for at in range(0, len(data), size):
        piece = data[at:at + size]
        yield b"%x\r\n%s\r\n" % (len(piece), piece)
    yield b"0\r\n\r\n"


def h2_request(headers: list[tuple[bytes, bytes]]) -> bytes:
    """An HTTP/2 prior-knowledge connection's first bytes: the preface, SETTINGS and one request on
    stream 1, headers sent as given (no client-side validation)."""
    conn = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, validate_outbound_headers=False, normalize_outbound_headers=False))
    conn.initiate_connection()
    conn.send_headers(1, headers, end_stream=True)
    return conn.data_to_send()


def h2_exchange(port: int, requests: list[list[tuple[bytes, bytes]]]) -> dict[int, object]:
    """Send ``requests`` on streams 1, 3, 5 ... of one HTTP/2 prior-knowledge connection; returns for each
    stream its status, or ``("reset", error code)``.  Raises if the server closes first."""
    conn = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, validate_outbound_headers=False, normalize_outbound_headers=False,
        validate_inbound_headers=False))
    conn.initiate_connection()
    for n, headers in enumerate(requests):
        conn.send_headers(1 + 2 * n, headers, end_stream=True)
    sock = dial(port)
    outcome: dict[int, object] = {}
    try:
        sock.sendall(conn.data_to_send())
        while len(outcome) < len(requests):
            data = sock.recv(65536)
            assert data, f"the server closed the HTTP/2 connection with streams unanswered: {outcome}"
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    outcome[event.stream_id] = int(dict(event.headers)[b":status"])
                elif isinstance(event, h2.events.StreamReset):
                    outcome[event.stream_id] = ("reset", event.error_code)
            sock.sendall(conn.data_to_send())
    finally:
        sock.close()
    return outcome


def h2_headers(method: bytes = b"GET", path: bytes = b"/ibmmq/rest/v1/admin/qmgr") -> list[tuple[bytes, bytes]]:
    return [(b":method", method), (b":path", path), (b":scheme", b"http"), (b":authority", b"127.0.0.1"),
            (b"authorization", b"Basic " + base64.b64encode(f"{ADMIN[0]}:{ADMIN[1]}".encode()))]


def nested(depth: int) -> bytes:
    return json.dumps({"type": "runCommand", "parameters": {"command": "DISPLAY QMGR"}}).encode()[:-1] + \
        b', "x": ' + b"[" * depth + b"]" * depth + b"}"

