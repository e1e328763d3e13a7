"""The listener's one port for plain and TLS clients under bad input: garbage and half-finished TLS
handshakes (1,000 at once) never block a plain client, a TLS client, or crash the server; each is closed
once the handshake timeout passes.  And the ClientHello parser the server reads the SNI with."""

from __future__ import annotations

import os
import socket
import ssl

import pytest
from hypothesis import given, strategies as st

from qmlite.keys import testpki as pki
from qmlite.client.pytest_plugin import QmliteTLS, running_qmlite
from qmlite.pcf import cipherspecs
from qmlite.server.tls import ClientHello, client_hello as read_hello

HANDSHAKE_TIMEOUT = 2.0


def client_hello(server_name: str | None) -> bytes:
    """The first flight of a real TLS client (Python's ssl over memory)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname=server_name)
    with pytest.raises(ssl.SSLWantReadError):
        obj.do_handshake()
    return outgoing.read()


def test_the_sni_of_a_real_client_hello():
    name = cipherspecs.sni_for_channel("DEV.APP.SVRCONN")
    hello = client_hello(name)
    assert read_hello(hello).sni == name
    assert read_hello(client_hello(None)).sni is None


@given(st.binary(max_size=600), st.binary(max_size=64))
def test_any_bytes_read_as_a_client_hello_give_an_answer(tail, head):
    for record in (tail, b"\x16\x03\x01" + len(tail).to_bytes(2, "big") + b"\x01" + tail, head + tail):
        got = read_hello(record)
        assert isinstance(got, ClientHello)
        assert got.ticket is None or (0 < len(got.ticket) and got.ticket in record)


def test_every_truncation_and_corruption_of_a_client_hello_is_survived():
    hello = client_hello(cipherspecs.sni_for_channel("X"))
    for n in range(len(hello)):
        assert read_hello(hello[:n]).sni in (None, cipherspecs.sni_for_channel("X"))
    rnd = os.urandom(4096)
    for i in range(0, 4096 - 600, 97):
        mangled = hello[:9] + rnd[i:i + 500]
        read_hello(mangled)  # any answer but an exception
    assert read_hello(b"").sni is None and read_hello(b"TSH ").sni is None


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    made = pki.init(tmp_path_factory.mktemp("pki"))
    with running_qmlite(tmp_path_factory.mktemp("tls-listener"), pki_dir=str(made.pki_dir),
                        tls_handshake_timeout=HANDSHAKE_TIMEOUT, max_connections=2000) as srv:
        yield _with_tls_channel(srv, made)


def _with_tls_channel(srv, made) -> QmliteTLS:
    for result in srv.mqsc("DEFINE CHANNEL(QMLITE.TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) "
                           "SSLCAUTH(OPTIONAL) MCAUSER('app')\n"
                           "SET CHLAUTH(QMLITE.TLS.SVRCONN) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL)"):
        assert result.completion_code == 0, result.text
    return QmliteTLS(srv, made)


def _open(server, data: bytes) -> socket.socket:
    s = socket.create_connection((server.host, server.port))
    if data:
        s.sendall(data)
    return s


def test_a_thousand_bad_handshakes_block_no_one(tls_server):
    server = tls_server.server
    hello = client_hello(cipherspecs.sni_for_channel("QMLITE.TLS.SVRCONN"))
    rnd = os.urandom(1 << 16)
    kinds = {
        "tls_garbage": lambda i: b"\x16\x03\x01\x40\x00" + rnd[i:i + 200],  # a record header, then junk, stalled
        "half_hello": lambda i: hello[: 10 + i % (len(hello) - 10)],  # a ClientHello cut short
        "whole_hello": lambda i: hello,  # a handshake the client never finishes
        "plain_garbage": lambda i: b"\x00\x01" + rnd[i:i + 64],  # not TLS, not FAP
        "silent": lambda i: b"",  # connects, says nothing
    }
    sockets: list[tuple[str, socket.socket]] = []
    try:
        for i in range(1000):
            kind = list(kinds)[i % len(kinds)]
            sockets.append((kind, _open(server, kinds[kind](i))))
        # While all of them hang: a plain client and a TLS client work, on the same port.
        qm = server.connect()
        assert qm.connected
        qm.close()
        tqm = tls_server.connect()
        assert tqm.connected
        tqm.close()
        # And each bad one is closed by the server after the handshake timeout (the bound below is
        # only how long the test will wait for that).
        for kind, s in sockets:
            s.settimeout(HANDSHAKE_TIMEOUT + 60)
            try:
                while s.recv(65536):
                    pass  # a ServerHello, or a STATUS for the plain garbage
            except ConnectionResetError:
                pass
    finally:
        for _kind, s in sockets:
            s.close()
    result = server.mqsc("DISPLAY QMGR QMNAME")[0]  # the server is alive and well
    assert result.completion_code == 0 and "QMNAME(QM1)" in " ".join(result.text)


def test_a_tls_message_larger_than_the_socket_takes_at_once_goes_whole_both_ways(tls_server):
    """The TLS stream writes its records on the socket itself (decision HP7): what the socket does not
    take at once waits for room, in order, and a reply of megabytes arrives byte for byte."""
    from qmlite.pcf import constants as C
    from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO

    assert tls_server.server.mqsc("DEFINE QLOCAL(DEV.TLS.BIG) REPLACE")[0].completion_code == 0  # app may use DEV.**
    body = os.urandom(1 << 20) * 3 + b"end"  # 3 MiB: more than loopback's socket buffers take in one write
    qm = tls_server.connect()
    try:
        hobj, _ = qm.open(MQOD(ObjectName="DEV.TLS.BIG"), C.MQOO_OUTPUT | C.MQOO_INPUT_EXCLUSIVE)
        for _ in range(2):
            qm.put(hobj, MQMD(), MQPMO(Options=C.MQPMO_NO_SYNCPOINT), body)
        for _ in range(2):
            _md, _gmo, got = qm.get(hobj, MQMD(), MQGMO(Options=C.MQGMO_NO_SYNCPOINT), len(body))
            assert got == body
        qm.close(hobj)
    finally:
        qm.disc()


def test_a_tls_client_that_resets_mid_conversation_ends_its_connection_alone(tls_server):
    """A reset under a TLS connection (the client killed: an RST, no close_notify) ends that connection
    as an end of stream; the server goes on serving TLS and plain clients."""
    import struct

    server = tls_server.server
    before = server.mqsc("DISPLAY CHSTATUS(QMLITE.TLS.SVRCONN)")
    victim = tls_server.connect()
    assert victim.connected
    raw = victim._sock
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST
    raw.close()
    again = tls_server.connect()  # served on its own connection while the reset one ends
    assert again.connected
    again.disc()
    plain = server.connect()
    assert plain.connected
    plain.close()
    # the reset connection is gone from the channel status: the status the test started with comes back
    for _ in range(200):
        after = server.mqsc("DISPLAY CHSTATUS(QMLITE.TLS.SVRCONN)")
        if [r.completion_code for r in after] == [r.completion_code for r in before]:
            break
    assert [r.completion_code for r in after] == [r.completion_code for r in before]


# ---- no new session ticket for a ticket that resumed here before (decision HP11) ----------------------

def _client_tls(tls_server):
    """ibmmqc's TLS set-up for the test PKI's client on the server's TLS channel."""
    from qmlite.client.tls import client_tls

    made = tls_server.pki
    return client_tls(channel="QMLITE.TLS.SVRCONN", cipher_spec="ANY_TLS12_OR_HIGHER", key_repository=made.client_stem,
                      password=made.password, cert_label=made.client_label)


def _resume(tls_server, session):
    """A raw TLS connection to the server's TLS channel offering ``session``: (the session the client holds
    once the server has closed -- a ticket sent after the handshake is read by then -- whether it resumed)."""
    ct = _client_tls(tls_server)
    sock = socket.create_connection((tls_server.server.host, tls_server.server.port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    tls = ct.context.wrap_socket(sock, server_hostname=cipherspecs.sni_for_channel("QMLITE.TLS.SVRCONN"),
                                 session=session)
    try:
        tls.sendall(b"not a TSH")  # the server ends the connection (a protocol error), after any ticket
        try:
            while tls.recv(4096):
                pass
        except (ssl.SSLError, OSError):
            pass  # no close_notify: the end of the connection is what the test waits for
        return tls.session, tls.session_reused
    finally:
        tls.close()


def test_a_client_resuming_again_with_the_same_ticket_is_sent_no_new_one(tls_server):
    first, reused = _resume(tls_server, None)
    assert not reused and first.has_ticket and first.ticket_lifetime_hint == 7200
    second, reused = _resume(tls_server, first)
    assert reused and second.id != first.id  # the ticket's first resumption: a new one sent, as before
    for _ in range(3):
        again, reused = _resume(tls_server, first)  # ibmmqc keeps the ticket it resumed with (client/tls.py)
        assert reused and again.id == first.id  # no NewSessionTicket: the client still holds the one offered
    newer, reused = _resume(tls_server, second)
    assert reused and newer.id != second.id  # another ticket, resumed for the first time: a new one sent


def test_a_ticket_refused_after_refresh_security_is_answered_with_a_new_one(tls_server):
    first, _ = _resume(tls_server, None)
    _resume(tls_server, first)
    assert _resume(tls_server, first)[0].id == first.id  # quiet now
    result = tls_server.server.mqsc("REFRESH SECURITY TYPE(SSL)")[0]
    assert result.completion_code == 0, result.text
    after, reused = _resume(tls_server, first)  # new contexts, new ticket keys: the old ticket is refused
    assert not reused and after.has_ticket and after.id != first.id
    assert _resume(tls_server, after)[1]


def test_the_ticket_rule_in_time_and_when_a_ticket_is_refused(monkeypatch):
    import types

    from qmlite.server import tls as server_tls

    now = [1000.0]
    monkeypatch.setattr(server_tls.time, "monotonic", lambda: now[0])
    server = server_tls.ServerTLS(types.SimpleNamespace(), types.SimpleNamespace(), types.SimpleNamespace())
    ctx, other = object(), object()
    hello, fresh = server_tls.ClientHello("x", b"ticket"), server_tls.ClientHello("x", None)
    assert server.tickets(ctx, fresh) == 1 and server.tickets(ctx, hello) == 1
    server.handshake_done(ctx, hello, 1, reused=True)
    assert server.tickets(ctx, hello) == 0 and server.tickets(other, hello) == 1  # sealed by its context's keys
    now[0] += server_tls.RESUMED_QUIET - 1
    assert server.tickets(ctx, hello) == 0
    now[0] += 1  # half the ticket's lifetime since its first resumption: a new ticket sent again
    assert server.tickets(ctx, hello) == 1
    server.handshake_done(ctx, hello, 1, reused=True)
    assert server.tickets(ctx, hello) == 1  # its quiet time is not started over: it ends before the ticket does
    server.handshake_done(other, hello, 1, reused=True)
    assert server.tickets(other, hello) == 0
    server.handshake_done(other, hello, 0, reused=False)  # refused after all: a full handshake, no ticket
    assert server.tickets(other, hello) == 1  # so the next one is sent one


def test_the_ticket_a_resuming_client_hello_offers(tls_server):
    """The pre_shared_key extension's first identity (RFC 8446 4.2.11), read from a real client's ClientHello
    beside its SNI; none in a ClientHello that resumes nothing; and no cut or damage of one raises."""
    session, _ = _resume(tls_server, None)
    ct = _client_tls(tls_server)
    name = cipherspecs.sni_for_channel("QMLITE.TLS.SVRCONN")

    def hello(offered) -> bytes:
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        obj = ct.context.wrap_bio(incoming, outgoing, server_hostname=name, session=offered)
        with pytest.raises(ssl.SSLWantReadError):
            obj.do_handshake()
        return outgoing.read()

    resuming, again, fresh = hello(session), hello(session), hello(None)
    assert read_hello(fresh).ticket is None and read_hello(fresh).sni == name
    ticket = read_hello(resuming).ticket
    assert ticket is not None and len(ticket) >= 32 and ticket in resuming  # a kept session's ID at least (HP13)
    assert read_hello(again) == ClientHello(name, ticket)  # the same identity each time
    for n in range(len(resuming)):
        got = read_hello(resuming[:n])
        assert got.ticket in (None, ticket) and got.sni in (None, name)
    rnd = os.urandom(4096)
    for i in range(0, 4096 - 600, 97):
        read_hello(resuming[:9] + rnd[i:i + 500])  # any answer but an exception


# ---- sessions kept by the server, a ticket naming one (decision HP13) ----------------------------------

def test_the_server_keeps_its_sessions_in_a_bounded_cache(tmp_path, monkeypatch):
    """A ticket names a session the queue manager keeps (OpenSSL's stateful tickets): the latest resumes again
    and again; the cache holds SESSION_CACHE sessions, and a dropped one's ticket brings a full handshake and a
    new ticket, not a failure.  With sealed tickets every ticket here would resume."""
    from qmlite.server import tls as server_tls

    monkeypatch.setattr(server_tls, "SESSION_CACHE", 4)
    made = pki.init(tmp_path / "pki")
    with running_qmlite(tmp_path / "qm", pki_dir=str(made.pki_dir)) as srv:
        qm = _with_tls_channel(srv, made)
        sessions = []
        for _ in range(6):  # six full handshakes, six sessions kept, the oldest dropped beyond four
            session, reused = _resume(qm, None)
            assert not reused and session.has_ticket
            sessions.append(session)
        for _ in range(3):
            assert _resume(qm, sessions[-1])[1]
        session, reused = _resume(qm, sessions[0])
        assert not reused and session.has_ticket  # dropped: a full handshake and a new ticket
        assert _resume(qm, session)[1]


def test_a_tls12_session_resumes_by_its_id(tls_server):
    """Under TLS 1.2 a kept session has no ticket, only its ID; ibmmqc keeps it (client/tls.py) and the next
    connection resumes it."""
    from qmlite.client.tls import client_tls

    made = tls_server.pki
    ct = client_tls(channel="QMLITE.TLS.SVRCONN", cipher_spec="ANY_TLS12", key_repository=made.client_stem,
                    password=made.password, cert_label=made.client_label)
    host = tls_server.server.host
    seen = []
    for _ in range(3):
        sock = socket.create_connection((host, tls_server.server.port))
        tls = ct.wrap(sock, host, 30)
        try:
            assert tls.version() == "TLSv1.2"
            seen.append(tls.session_reused)
            if not tls.session_reused:
                assert not tls.session.has_ticket and tls.session.id
            ct.remember(tls, host)
            tls.sendall(b"not a TSH")  # the server ends the connection (a protocol error) with close_notify
            try:
                while tls.recv(4096):
                    pass
            except (ssl.SSLError, OSError):
                pass
        finally:
            tls.close()
    assert seen == [False, True, True]
