"""TLS on the MQ listener: one port serves plain and TLS clients.

* ``first_bytes``/``is_tls``: the first byte a client sends tells them apart (a TLS record starts 0x16,
  a TSH "T"); what was read goes on to the TLS handshake or to the FAP connection.  Waiting for it, and
  the handshake, run in the connection's own task under ``tls_handshake_timeout``: a silent or
  half-finished client never holds up another accept.
* ``ServerTLS`` holds the queue manager's key repository (SSLKEYR with KEYRPWD or its stash, plus a
  directory laid out like IBM's container's /etc/mqm/pki).  Before the handshake it reads the client's
  ClientHello record itself (then replays it into the TLS stream) for the SNI IBM's clients send -- the
  channel name mapped as ``pcf.cipherspecs.sni_for_channel`` -- and, as a queue manager does, answers
  with that channel's certificate (its CERTLABL, else the queue manager's) and only the protocol
  versions and cipher its SSLCIPH allows: an ANY_TLS12_OR_HIGHER client on an ANY_TLS12 channel
  negotiates TLS 1.2.  The repository is read at the first TLS handshake (not at start: a queue
  manager no TLS client reaches never loads ``cryptography``) and again by ``reload`` (REFRESH SECURITY
  TYPE(SSL)), as IBM's channel process pool sets its TLS environment up at its first TLS channel.
* ``Negotiated``: what the handshake settled, which the channel named in the first INITIAL_DATA then
  judges (``check``): its SSLCIPH against the protocol and cipher, SSLCAUTH, SSLPEER.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import ssl
import time

import trio

from qmlite.pcf import cipherspecs, dn
from qmlite.pcf import fap
from qmlite.registry.objects import channels as M
from qmlite.registry.objects import values as V

from . import sockio

DEFAULT_PKI_DIR = "/etc/mqm/pki"
# The sessions a context keeps for resumption (HP13): one for each client process resuming, the oldest dropped
SESSION_CACHE = 1024
# How long after a ticket first resumed a session here the server sends no new ticket when it is offered
# again: half of the lifetime OpenSSL gives its tickets (7,200 s), so a client that keeps one ticket is sent
# a fresh one well before its own expires.
RESUMED_QUIET = 3600.0
TLS_RECORD_HANDSHAKE = 0x16


async def first_bytes(stream: trio.SocketStream, timeout: float) -> bytes:
    """What the client sends first (b"": it closed, or sent nothing within ``timeout``).  Its first byte
    tells TLS (0x16, a handshake record) from FAP ("T" of TSH); the bytes go on to whichever serves it."""
    with trio.move_on_after(timeout):
        try:
            return await stream.receive_some(65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return b""
    return b""


def is_tls(first: bytes) -> bool:
    return bool(first) and first[0] == TLS_RECORD_HANDSHAKE


@dataclasses.dataclass(slots=True)
class Negotiated:
    """A finished handshake, as the channel checks it and channel status shows it."""

    protocol: str
    cipher: str  # OpenSSL's name
    subject: list[tuple[str, str]] | None  # the client certificate's DN (IBM's SSLPEER form), None: no certificate
    issuer: list[tuple[str, str]] | None
    sni_channel: str | None
    at: float  # wall-clock time the secret key was agreed (SSLKEYDA/SSLKEYTI)

    @property
    def cipher_spec(self) -> str:
        return cipherspecs.name_of(self.protocol, self.cipher)

    def show(self, instance) -> None:
        """What channel status shows of it (SSLCIPH, SECPROT, SSLPEER, SSLCERTI, SSLKEYDA/SSLKEYTI)."""
        instance.ssl_cipher = self.cipher_spec
        instance.ssl_protocol = self.protocol
        instance.ssl_peer = dn.render(self.subject) if self.subject else ""
        instance.ssl_cert_issuer = dn.render(self.issuer) if self.issuer else ""
        instance.ssl_key_time = self.at


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    code: int  # the STATUS code sent (docs/reference/fap.md section 9)
    message: str  # IBM's error-log message, for the log line
    number: str = ""  # that message's number, and its inserts, for the error log (registry/monitoring/errorlog)
    inserts: tuple = ()  # (("c1", ...), ...)
    fix: str = ""  # the MQSC that would let this client in (the refusals list)


# The receiving message channels whose TLS ``check`` also judges (server/mca/security.py), by MQSC's name.
_RECEIVING = {M.RCVR: "RCVR", M.RQSTR: "RQSTR"}


def _chltype(definition) -> str:
    return _RECEIVING.get(definition.channel_type, "SVRCONN")


def check(definition, negotiated: Negotiated | None) -> Refusal | None:
    """May a client that connected this way start this SVRCONN channel (or a queue manager's channel
    agent this receiving channel, RCVR or RQSTR: server/mca/security.py)?  IBM's rules: a channel with
    SSLCIPH needs TLS whose protocol and cipher satisfy it; a channel without SSLCIPH takes no TLS client;
    SSLCAUTH(REQUIRED) needs a client certificate; SSLPEER must match its DN.  Each refusal is STATUS
    CIPHER_SPEC, SSL_CLIENT_CERTIFICATE or PEER_NAME (the codes Wireshark's packet-mq.c names)."""
    wanted = (definition.ssl_cipher_spec or "").strip()
    alter = f"ALTER CHANNEL('{definition.name}') CHLTYPE({_chltype(definition)})"  # the fix's start
    if negotiated is None:
        if wanted:
            return Refusal(fap.CIPHER_SPEC,
                           f"AMQ9639E: Remote channel '{definition.name}' did not specify a CipherSpec.", "AMQ9639E",
                           (("c1", definition.name),),
                           f"{alter} SSLCIPH(' ')")
        return None
    if not wanted:
        return Refusal(fap.CIPHER_SPEC, f"AMQ9641E: Remote CipherSpec error for channel '{definition.name}': the "
                                        f"remote end used {negotiated.cipher_spec}, the channel has no SSLCIPH.",
                       "AMQ9641E", (("c1", definition.name),),
                       f"{alter} SSLCIPH('ANY_TLS12_OR_HIGHER')")
    spec = cipherspecs.lookup(wanted)
    if spec is None or not spec.accepts(negotiated.protocol, negotiated.cipher):
        return Refusal(fap.CIPHER_SPEC, f"AMQ9631E: The CipherSpec negotiated during the TLS handshake "
                                        f"({negotiated.cipher_spec}, {negotiated.protocol}) does not match the "
                                        f"required CipherSpec {wanted!r} for channel '{definition.name}'.",
                       "AMQ9631E", (("c1", definition.name), ("c2", wanted), ("c3", negotiated.cipher_spec)),
                       f"{alter} SSLCIPH('{negotiated.cipher_spec}')")
    if negotiated.subject is None and definition.ssl_client_auth == V.MQSCA_REQUIRED:
        return Refusal(fap.SSL_CLIENT_CERTIFICATE, f"AMQ9637E: Channel '{definition.name}' is lacking a certificate.",
                       "AMQ9637E", (("c1", definition.name),),
                       f"{alter} SSLCAUTH(OPTIONAL)")
    peer = (definition.ssl_peer_name or "").strip()
    if peer:
        try:
            ok = negotiated.subject is not None and dn.matches(peer, negotiated.subject)
        except dn.DNError:
            ok = False
        if not ok:
            shown = dn.render(negotiated.subject or [])
            return Refusal(fap.PEER_NAME, f"AMQ9636E: TLS distinguished name {shown!r} does not match the peer "
                                          f"name {peer!r} of channel '{definition.name}'.",
                           "AMQ9636E", (("c1", definition.name), ("c2", shown)),
                           f"{alter} SSLPEER('{shown}')")
    return None


class ServerTLS:
    """The listener's TLS environment (see the module docstring): the queue manager's key repository and
    certificate label as they were when it was set up -- at the first TLS handshake after start, again at
    REFRESH SECURITY TYPE(SSL) -- and the contexts made from them.  As IBM's channel process pool keeps
    the environment it set up at its first TLS channel, an SSLKEYR, KEYRPWD or CERTLABL changed later is
    used from the next refresh (docs/tls.md, docs/decisions.md KR1-KR3)."""

    def __init__(self, cfg, registry, log) -> None:
        self.cfg = cfg
        self.registry = registry
        self.log = log
        self.repo = None  # qmlite.keys.repository.KeyRepository once the environment is set up
        self.cert_label = ""  # the queue manager's CERTLABL when it was set up
        self._contexts: dict[tuple[str, str], ssl.SSLContext] = {}  # (label, SSLCIPH) -> context
        self.problem = ""  # why the last attempt to set the environment up failed ("" when it did not)
        self._names: dict[bytes, tuple] = {}  # a client certificate (DER) -> its subject and issuer DNs
        # Tickets a client resumed with here (keyed with their context, whose keys sealed them) -> when first
        # (time.monotonic).  Offered again within RESUMED_QUIET, the handshake sends no new ticket (docs/decisions.md
        # HP11): the client keeps resuming with the one it has, and a ticket made and sent per connection was a
        # third of OpenSSL's server work in a resumed handshake.
        self._resumed: dict[tuple[int, bytes], float] = {}
        self.loaded_at = 0.0

    # ---- reading the repository ------------------------------------------------------------------------
    def pki_dir(self) -> pathlib.Path | None:
        chosen = self.cfg.pki_dir or DEFAULT_PKI_DIR  # QMLITE_PKI_DIR reaches it through the configuration
        p = pathlib.Path(chosen)
        return p if (p / "keys").is_dir() or (p / "trust").is_dir() else None

    def reload(self) -> str:
        """Set the environment up now from SSLKEYR, KEYRPWD, CERTLABL and the PKI directory (REFRESH
        SECURITY TYPE(SSL)); "" when done, else why not, logged as an error (IBM's AMQ9657E): an
        environment set up before then stays in use, and with none the next TLS handshake tries again."""
        repo, why = self._read()
        if repo is None:
            self.problem = why
            self.log.error("key_repository_error", reason="MQRC_KEY_REPOSITORY_ERROR",
                           message="AMQ9657E: The key repository could not be opened.", why=why)
            if self.registry.diagnostics is not None:  # the error log's AMQ9657E, and the refusals list
                self.registry.diagnostics.key_repository_failed(why)
            return why
        self.repo, self._contexts, self.problem = repo, {}, ""
        self._resumed = {}  # new contexts, new ticket keys: every ticket out there is refused now
        self.cert_label = (self.registry.qmgr.cert_label or "").strip()
        self.loaded_at = time.time()
        self.log.info("key_repository_loaded", labels=repo.labels, cert_label=self.cert_label,
                      sources=[(self.registry.qmgr.ssl_key_repository or "").strip(), str(self.pki_dir() or "")])
        return ""

    def environment(self) -> str:
        """At a TLS handshake: "" when the environment is set up -- now, if this is the first handshake
        since start (or since an attempt that failed) -- else why not."""
        return "" if self.repo is not None else self.reload()

    def _read(self):
        """(the repository, "") or (None, why not)."""
        from qmlite.keys import paths as keypaths

        qmgr = self.registry.qmgr
        stem = (qmgr.ssl_key_repository or "").strip()
        pki = self.pki_dir()
        problems: list[str] = []
        readable = bool(stem)
        if stem:
            try:
                keypaths.resolve(stem)
            except keypaths.KeyRepositoryError as exc:
                if exc.missing:  # nothing there (a new queue manager's SSLKEYR): nothing to read
                    problems.append(exc.detail)
                    readable = False
        if not readable and pki is None:  # cryptography loads only when there is something to read (issue 24)
            return None, self._why(problems)
        from qmlite.keys import repository as keyrepo  # cryptography loads only here

        repo = keyrepo.KeyRepository("")
        unreadable = ""
        if readable:
            try:
                repo.merge(keyrepo.load(stem, qmgr.ssl_key_repo_password or None))
            except keyrepo.KeyRepositoryError as exc:
                problems.append(exc.detail)
                unreadable = "" if exc.missing else exc.detail
        if pki is not None:
            repo.merge(keyrepo.load_pki_dir(pki))
        if not repo.entries:
            return None, self._why(problems)
        if unreadable:  # the PKI directory serves; a .kdb, a wrong KEYRPWD at SSLKEYR is still the administrator's
            self.log.error("key_repository_error", reason="MQRC_KEY_REPOSITORY_ERROR", why=unreadable)
        return repo, ""

    @staticmethod
    def _why(problems: list[str]) -> str:
        return "; ".join(problems) or "no key repository: set SSLKEYR (or mount keys under /etc/mqm/pki)"

    def context(self, definition) -> ssl.SSLContext | None:
        """The context for a handshake on ``definition`` (None: no channel known): its CERTLABL or the
        queue manager's certificate, limited to what its SSLCIPH allows."""
        from qmlite.keys import repository as keyrepo

        label = ((definition.cert_label if definition is not None else "") or self.cert_label).strip()
        wanted = (definition.ssl_cipher_spec or "").strip().upper() if definition is not None else ""
        spec = cipherspecs.lookup(wanted) if wanted else None
        key = (label.lower(), spec.name if spec is not None else "")
        ctx = self._contexts.get(key)
        if ctx is not None:
            return ctx
        entry = self.repo.entry(label) or self.repo.entry(self.cert_label)
        if entry is None:
            # IBM's container makes the first keys/<label> the queue manager's certificate; qmlite takes
            # the first personal certificate whenever the labels name none (docs/decisions.md X4).
            entry = self.repo.entries[0]
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # IBM's list starts at TLS 1.2 (TLS 1.0/1.1 are off)
        ctx.num_tickets = 1  # a client resumes with its latest session; one ticket is enough
        # Sessions kept here, a ticket naming one (TLS 1.3's stateful tickets, TLS 1.2's session IDs),
        # rather than sealed into the ticket: a resumed handshake finds its session instead of decrypting
        # and decoding it, the client's certificate included, which halves the server's CPU for it
        # (docs/decisions.md HP13).  Only with the cache held to SESSION_CACHE sessions (about 11 KB each).
        if keyrepo.bound_session_cache(ctx, SESSION_CACHE):
            ctx.options |= ssl.OP_NO_TICKET
        trusted = self.repo.trusted_pem()
        if trusted:
            ctx.load_verify_locations(cadata=trusted)
            ctx.verify_mode = ssl.CERT_OPTIONAL  # SSLCAUTH is the channel's: checked once it is known
        if spec is not None:
            try:
                keyrepo.apply_cipher_spec(ctx, spec)
            except ValueError as exc:
                self.log.warning("cipher_spec_unavailable", channel=definition.name, why=str(exc))
        keyrepo.load_entry(ctx, entry)
        self._contexts[key] = ctx
        return ctx

    # ---- a handshake -----------------------------------------------------------------------------------
    def tickets(self, ctx: ssl.SSLContext, hello: ClientHello) -> int:
        """How many TLS 1.3 session tickets a handshake on ``ctx`` sends: none when the client offers a
        ticket it resumed with here within the last RESUMED_QUIET seconds, else one."""
        if hello.ticket is None:
            return 1
        first = self._resumed.get((id(ctx), hello.ticket))
        return 0 if first is not None and time.monotonic() - first < RESUMED_QUIET else 1

    def handshake_done(self, ctx: ssl.SSLContext, hello: ClientHello, tickets: int, reused: bool) -> None:
        """Remember a ticket that resumed a session (``tickets``: what ``tickets`` said for it)."""
        if hello.ticket is None:
            return
        seen = (id(ctx), hello.ticket)
        if not reused:
            self._resumed.pop(seen, None)  # refused after all (another cipher offered): a new ticket next time
        elif tickets:
            if len(self._resumed) >= 4096:
                self._resumed.clear()
            self._resumed.setdefault(seen, time.monotonic())  # from its first resumption: never prolonged

    def _handshake_failed(self, stream, cause: BaseException, channel: str) -> None:
        """The error log's entry and the refusals list's for a handshake that failed (EL11)."""
        if self.registry.diagnostics is None:
            return
        try:
            address = stream.socket.getpeername()[0]
        except (OSError, AttributeError, IndexError):
            address = ""
        self.registry.diagnostics.tls_handshake_failed(address=address, number=handshake_message(cause),
                                                       why=str(cause), channel=channel)

    async def handshake(self, stream: trio.SocketStream, first: bytes,
                        timeout: float) -> tuple[TLSStream | None, Negotiated | None, str]:
        """(the TLS stream, what was negotiated, "") or (None, None, why).  ``first``: the bytes already read."""
        why = self.environment()
        if why:
            return None, None, why
        with trio.move_on_after(timeout) as scope:
            record = await _read_record(stream, first)
            if record is None:
                return None, None, "the client closed before its ClientHello"
            hello = client_hello(record)
            channel = cipherspecs.channel_for_sni(hello.sni)
            definition = self.registry.objects(M.KIND).get(channel) if channel else None
            ctx = self.context(definition)
            tickets = self.tickets(ctx, hello)
            tls = TLSStream(stream, ctx, record, tickets)
            try:
                await tls.do_handshake()
            except (trio.BrokenResourceError, ssl.SSLError, OSError) as exc:
                await tls.send_alert()
                cause = exc.__cause__ or exc
                self._handshake_failed(stream, cause, channel or "")
                return None, None, f"handshake failed: {cause}"
        if scope.cancelled_caught:
            return None, None, f"no TLS handshake within {timeout:g} s"
        self.handshake_done(ctx, hello, tickets, tls.session_reused)
        from qmlite.keys import repository as keyrepo

        der = tls.getpeercert(binary_form=True)
        subject = issuer = None
        if der:
            names = self._names.get(der)
            if names is None:  # a certificate seen before (a resumed session's) is not parsed again
                cert = keyrepo.from_der(der)
                names = self._names[der] = (keyrepo.subject_pairs(cert), keyrepo.name_pairs(cert.issuer))
                if len(self._names) > 1024:
                    self._names.clear()
            subject, issuer = names
        cipher = tls.cipher()
        return tls, Negotiated(tls.version() or "", cipher[0] if cipher else "", subject, issuer, channel,
                               time.time()), ""


# What a failed handshake's ssl error says -> IBM's message for it (docs/errorlog.md); any other: AMQ9665E.
_HANDSHAKE_MESSAGES = (("PEER_DID_NOT_RETURN_A_CERTIFICATE", "AMQ9637E"), ("CERTIFICATE_VERIFY_FAILED", "AMQ9633E"),
                       ("NO_SHARED_CIPHER", "AMQ9616E"), ("UNSUPPORTED_PROTOCOL", "AMQ9616E"),
                       ("VERSION_TOO_LOW", "AMQ9616E"), ("NO_PROTOCOLS_AVAILABLE", "AMQ9616E"))


def handshake_message(cause: BaseException) -> str:
    """IBM's error-log message for a TLS handshake that failed with ``cause``."""
    text = f"{getattr(cause, 'reason', '') or ''} {cause}".upper()
    return next((number for key, number in _HANDSHAKE_MESSAGES if key in text), "AMQ9665E")


_MAX_RECORD = 16384 + 2048  # a TLS record's largest length (RFC 8446 section 5.2)


async def _read_record(stream, first: bytes) -> bytes | None:
    """``first`` completed to hold the client's first TLS record whole (and whatever followed it);
    None when the client closes first."""
    buf = bytearray(first)
    while True:
        if len(buf) >= 5 and len(buf) >= 5 + min(int.from_bytes(buf[3:5], "big"), _MAX_RECORD):
            return bytes(buf)
        chunk = await stream.receive_some(65536)
        if not chunk:
            return None
        buf += chunk


@dataclasses.dataclass(frozen=True, slots=True)
class ClientHello:
    """What the server reads in a ClientHello before the handshake (None where absent or unreadable)."""

    sni: str | None = None  # the host name of the server_name extension (RFC 6066)
    ticket: bytes | None = None  # the first identity of pre_shared_key (RFC 8446 4.2.11): a session ticket


def client_hello(record: bytes) -> ClientHello:
    """The SNI and the first offered PSK identity of a ClientHello record (a field this parser cannot
    read is None: the handshake then decides)."""
    sni = ticket = None
    try:
        if record[0] != TLS_RECORD_HANDSHAKE or record[5] != 1:  # handshake record, ClientHello
            return ClientHello()
        body = record[9:]
        i = 2 + 32  # client_version, random
        i += 1 + body[i]  # session_id
        i += 2 + int.from_bytes(body[i:i + 2], "big")  # cipher_suites
        i += 1 + body[i]  # compression_methods
        end = i + 2 + int.from_bytes(body[i:i + 2], "big")
        i += 2
        while i + 4 <= end:
            ext_type, ext_len = int.from_bytes(body[i:i + 2], "big"), int.from_bytes(body[i + 2:i + 4], "big")
            if i + 4 + ext_len > len(body):
                break  # cut short
            data = body[i + 4:i + 4 + ext_len]
            if ext_type == 0 and sni is None:  # server_name: list length, then (type 0 host_name, length, name)...
                j = 2
                while j + 3 <= len(data):
                    name_type, name_len = data[j], int.from_bytes(data[j + 1:j + 3], "big")
                    if j + 3 + name_len > len(data):
                        break
                    if name_type == 0:
                        sni = data[j + 3:j + 3 + name_len].decode("ascii", "replace") or None
                        break
                    j += 3 + name_len
            elif ext_type == 41 and len(data) >= 4:  # pre_shared_key: identities length, then (length, identity, age)
                size = int.from_bytes(data[2:4], "big")
                if 0 < size and 4 + size + 4 <= len(data):
                    ticket = bytes(data[4:4 + size])
            i += 4 + ext_len
    except IndexError:
        pass
    return ClientHello(sni, ticket)


def wrap_server_bio(ctx: ssl.SSLContext, incoming: ssl.MemoryBIO, outgoing: ssl.MemoryBIO,
                    tickets: int = 1) -> ssl.SSLObject:
    """``ctx.wrap_bio`` for the server side, its handshake sending ``tickets`` TLS 1.3 session tickets:
    OpenSSL copies the context's number into the SSL object as it makes it (``SSL_new``), and Python has
    no setter on the object, so the context's is set around the call (one thread: nothing runs between)."""
    if tickets == ctx.num_tickets:
        return ctx.wrap_bio(incoming, outgoing, server_side=True)
    usual, ctx.num_tickets = ctx.num_tickets, tickets
    try:
        return ctx.wrap_bio(incoming, outgoing, server_side=True)
    finally:
        ctx.num_tickets = usual


class TLSStream(trio.abc.Stream):
    """TLS over a socket stream, lean: an SSLObject over memory BIOs driven directly, which costs a
    fraction of trio.SSLStream per message (docs/benchmarks.md, issue 22).  It serves what a channel
    needs and no more: one reader (the connection's read loop) and senders that the connection already
    serialises; data OpenSSL produces while reading (a TLS 1.3 KeyUpdate answer) goes out with the next
    send, or at once when no send is in progress."""

    def __init__(self, transport: trio.SocketStream, ctx: ssl.SSLContext, head: bytes = b"", tickets: int = 1) -> None:
        self.transport = transport
        self._in, self._out = ssl.MemoryBIO(), ssl.MemoryBIO()
        self._obj = wrap_server_bio(ctx, self._in, self._out, tickets)
        if head:
            self._in.write(head)  # the ClientHello already read for its SNI
        self._sending = False
        self._send_turn = trio.lowlevel.ParkingLot()
        self._hold = False  # output held back to go with the next send
        # The socket under a plain trio stream is read and written directly, as a plain channel's is
        # (decisions HP1, HP7): trio's stream passes through the scheduler before and after every
        # receive and send, a dozen times in a TLS connection's opening alone.  Anything else (a test's
        # memory stream) keeps the transport's own methods.
        self._sock = transport.socket if type(transport) is trio.SocketStream and sockio.POSIX else None
        self._run = 0  # reads in a row that found bytes without waiting (a checkpoint every sockio.FAIR_RUN)

    @property
    def socket(self):
        return self.transport.socket

    def getpeercert(self, binary_form: bool = False):
        return self._obj.getpeercert(binary_form)

    def cipher(self):
        return self._obj.cipher()

    @property
    def session_reused(self) -> bool:
        return self._obj.session_reused

    def version(self):
        return self._obj.version()

    async def _fill(self) -> None:
        if not self._hold:
            await self._flush()
        chunk = await self._receive()
        if not chunk:
            raise trio.BrokenResourceError("the client closed the connection")
        self._in.write(chunk)

    async def _receive(self) -> bytes:
        """What the socket has (b"" at its end), waiting for it if need be."""
        sock = self._sock
        if sock is None:
            return await self.transport.receive_some(65536)
        while True:
            fd = sock.fileno()
            if fd < 0:
                raise trio.ClosedResourceError("the socket was closed")
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                self._run = 0
                await trio.lowlevel.wait_readable(sock)  # a checkpoint: cancellable, fair
                continue
            except OSError as exc:  # a reset: the client is gone, as the stream would say
                raise trio.BrokenResourceError(str(exc)) from exc
            self._run += 1
            if self._run >= sockio.FAIR_RUN:  # a client whose bytes are always there does not hold the loop
                self._run = 0
                await trio.lowlevel.checkpoint()
            return data

    async def _send(self, data) -> None:
        """All of ``data`` onto the socket, waiting for room if need be (one sender at a time)."""
        sock = self._sock
        if sock is None:
            await self.transport.send_all(data)
            return
        sent = sockio.write(sock, data)
        if sent < len(data):
            await sockio.send_rest(sock, memoryview(data)[sent:])

    async def _flush(self) -> None:
        if self._out.pending and not self._sending:
            self._sending = True
            try:
                await self._send(self._out.read())
            finally:
                self._sending = False
                self._send_turn.unpark()

    async def send_alert(self) -> None:
        """Send what OpenSSL wrote as the handshake failed -- its alert (bad certificate, unknown CA,
        certificate expired) -- so the client learns the queue manager refused its TLS rather than
        seeing the socket just close.  Under TLS 1.3 the client has finished its side of the handshake
        by then and reads the alert where it waits for the ID exchange (decision CX4)."""
        if self._out.pending:
            try:
                await self._send(self._out.read())
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass  # the client is gone: nobody to tell

    async def do_handshake(self) -> None:
        while True:
            try:
                self._obj.do_handshake()
                break
            except ssl.SSLWantReadError:
                await self._fill()
        if self._obj.version() == "TLSv1.3":
            # What the handshake left to send -- TLS 1.3 session tickets, which the client does not wait
            # for -- goes out with the first reply (the INITIAL_DATA answer): one send and one client
            # wake-up fewer per connection.
            self._hold = bool(self._out.pending)
        else:
            await self._flush()  # TLS 1.2: the server's Finished, which the client waits for

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        while True:
            try:
                data = self._obj.read(max_bytes or 65536)
            except ssl.SSLWantReadError:
                try:
                    await self._fill()
                except trio.BrokenResourceError:
                    return b""  # closed without close_notify: an end of stream all the same
                continue
            except ssl.SSLZeroReturnError:
                return b""
            except ssl.SSLError as exc:
                raise trio.BrokenResourceError(f"TLS error: {exc}") from exc
            if self._out.pending:
                await self._flush()
            return data

    async def send_all(self, data) -> None:
        while self._sending:  # the reader is flushing what OpenSSL produced while reading
            await self._send_turn.park()
        try:
            self._obj.write(data)
        except ssl.SSLError as exc:
            raise trio.BrokenResourceError(f"TLS error: {exc}") from exc
        self._hold = False
        await self._flush()  # no one is sending (waited above): what the write made goes now

    async def wait_send_all_might_not_block(self) -> None:
        await self.transport.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        try:
            self._obj.unwrap()  # close_notify, best effort: the client may be gone
        except (ssl.SSLError, ValueError):
            pass
        try:
            if self._out.pending:
                with trio.move_on_after(1):
                    await self._send(self._out.read())
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        await self.transport.aclose()
