"""The client's TLS set-up, as IBM's MQ C client makes it: a key repository (with its password or
stash), the certificate label, the channel's CipherSpec, the peer name the queue manager's certificate
must match, and the SNI sent.  ``ibmmqc`` feeds it from the MQCD/MQSCO and the environment; a CCDT or
client configuration file can feed the same function (``client_tls``).

Reasons, as IBM's C client reports them (docs/tls.md "What a client sees", docs/decisions.md X6):
2381 MQRC_KEY_REPOSITORY_ERROR (no repository, unreadable, a .kdb, a named label missing), 2393
MQRC_SSL_INITIALIZATION_ERROR (an unknown CipherSpec, the handshake failed, the queue manager refused
the channel's TLS), 2398 MQRC_SSL_PEER_NAME_MISMATCH (the queue manager's DN does not match
SSLPeerName), 2399 MQRC_SSL_PEER_NAME_ERROR (SSLPeerName is not a valid pattern).
"""

from __future__ import annotations

import dataclasses
import getpass
import ipaddress
import socket
import ssl
import threading

from qmlite.pcf import cipherspecs, dn
from qmlite.pcf import constants as C

MQRC_KEY_REPOSITORY_ERROR = C.MQRC_KEY_REPOSITORY_ERROR  # 2381
MQRC_SSL_INITIALIZATION_ERROR = C.MQRC_SSL_INITIALIZATION_ERROR  # 2393
MQRC_SSL_PEER_NAME_MISMATCH = C.MQRC_SSL_PEER_NAME_MISMATCH  # 2398
MQRC_SSL_PEER_NAME_ERROR = C.MQRC_SSL_PEER_NAME_ERROR  # 2399

OUTBOUND_SNI = ("CHANNEL", "HOSTNAME", "*")  # the SSL stanza's OutboundSNI values (default CHANNEL)


class TLSSetupError(Exception):
    def __init__(self, reason: int, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclasses.dataclass(slots=True)
class ClientTLS:
    """What a connection needs to go TLS: the context, the SNI and the peer-name check."""

    context: ssl.SSLContext
    cipher_spec: str
    channel: str
    peer_name: str = ""
    outbound_sni: str = "CHANNEL"

    def server_hostname(self, host: str) -> str | None:
        mode = (self.outbound_sni or "CHANNEL").upper()
        if mode == "*":
            return None
        if mode == "HOSTNAME":
            try:
                ipaddress.ip_address(host)
                return None  # an address is no host name: no SNI (as TLS requires)
            except ValueError:
                return host
        return cipherspecs.sni_for_channel(self.channel)

    def _session_key(self, sock: socket.socket, host: str) -> tuple:
        try:
            port = sock.getpeername()[1]
        except (OSError, IndexError):
            port = 0
        return (id(self.context), host, port, self.server_hostname(host))

    def wrap(self, sock: socket.socket, host: str, timeout: float) -> ssl.SSLSocket:
        """The TLS handshake on a connected socket, then the peer-name check; TLSSetupError otherwise.
        A session this process had with the same queue manager, channel and set-up is resumed (TLS
        session tickets): the certificates checked then are checked again below and by the server."""
        sock.settimeout(timeout)
        key = self._session_key(sock, host)
        with _CONTEXTS_LOCK:
            session = _SESSIONS.get(key)
        try:
            tls = self.context.wrap_socket(sock, server_hostname=self.server_hostname(host), session=session)
        except (ssl.SSLError, OSError, ValueError) as exc:
            sock.close()
            raise TLSSetupError(MQRC_SSL_INITIALIZATION_ERROR, f"TLS handshake failed: {exc}") from exc
        if self.peer_name:
            from qmlite.keys import repository as keyrepo

            der = tls.getpeercert(binary_form=True)
            subject = keyrepo.subject_pairs(keyrepo.from_der(der)) if der else []
            if not dn.matches(self.peer_name, subject):
                tls.close()
                raise TLSSetupError(MQRC_SSL_PEER_NAME_MISMATCH,
                                    f"the queue manager's DN {dn.render(subject)!r} does not match {self.peer_name!r}")
        return tls

    def remember(self, tls: ssl.SSLSocket, host: str) -> None:
        """Keep the connection's session for the next (called once the queue manager has answered, by
        when a TLS 1.3 session ticket has arrived)."""
        if tls.session_reused:
            return  # the ticket in hand serves again (reading the session back costs half a millisecond)
        session = getattr(tls, "session", None)
        # A TLS 1.3 session resumes with its ticket; a TLS 1.2 one with its ticket or, from a server that
        # keeps its sessions (qmlite's: HP13), its ID.
        if session is not None and (session.has_ticket or (tls.version() == "TLSv1.2" and session.id)):
            with _CONTEXTS_LOCK:
                if len(_SESSIONS) >= _MAX_CONTEXTS * 4:
                    _SESSIONS.clear()
                _SESSIONS[self._session_key(tls, host)] = session


# SSL contexts already made, by what they were made from (the repository file's identity included): as
# IBM's client keeps its TLS environment between connections, a process reads a repository once, and
# again when the file changes.
_CONTEXTS: dict[tuple, ssl.SSLContext] = {}
_CONTEXTS_LOCK = threading.Lock()
_SESSIONS: dict[tuple, ssl.SSLSession] = {}  # (context, host, port, SNI) -> the last session's ticket
_MAX_CONTEXTS = 32


def client_tls(*, channel: str, cipher_spec: str, key_repository: str | None, password: str | None = None,
               cert_label: str | None = None, peer_name: str | None = None, outbound_sni: str = "CHANNEL",
               user: str | None = None) -> ClientTLS:
    """The TLS set-up for a client channel (every argument as IBM's client takes it; ``key_repository``
    None or blank is an error, as on IBM's client with no MQSCO, MQSSLKEYR or SSLKeyRepository)."""
    if outbound_sni.upper() not in OUTBOUND_SNI:
        outbound_sni = "CHANNEL"  # IBM: a value that is not valid is taken as the default
    peer = (peer_name or "").strip()
    key = (cipher_spec.strip().upper(), key_repository, password, cert_label, user, _identity(key_repository))
    with _CONTEXTS_LOCK:
        ctx = _CONTEXTS.get(key) if key[-1] is not None else None
    if ctx is None:
        ctx = _context(cipher_spec, key_repository, password, cert_label, user)
        if key[-1] is not None:
            with _CONTEXTS_LOCK:
                if len(_CONTEXTS) >= _MAX_CONTEXTS:
                    _CONTEXTS.clear()
                _CONTEXTS[key] = ctx
    if peer and not dn.valid(peer):
        raise TLSSetupError(MQRC_SSL_PEER_NAME_ERROR, f"SSLPeerName {peer!r} is not a valid DN pattern")
    return ClientTLS(ctx, cipherspecs.lookup(cipher_spec).name, channel, peer, outbound_sni.upper())


def _identity(key_repository: str | None) -> tuple | None:
    """What changes when the repository does (the files it may resolve to, their sizes and times);
    None when there is nothing to cache by."""
    if not key_repository or not key_repository.strip():
        return None
    import os

    stem = key_repository.strip()
    out = []
    for path in (stem, stem + ".p12", stem + ".pem", stem + ".sth", os.path.splitext(stem)[0] + ".sth"):
        try:
            st = os.stat(path)
        except OSError:
            continue
        out.append((path, st.st_mtime_ns, st.st_size))
    return tuple(out) if out else None


def _context(cipher_spec: str, key_repository: str | None, password: str | None, cert_label: str | None,
             user: str | None) -> ssl.SSLContext:
    spec = cipherspecs.lookup(cipher_spec)
    if spec is None:
        raise TLSSetupError(MQRC_SSL_INITIALIZATION_ERROR, f"unknown CipherSpec {cipher_spec!r}")
    if not key_repository or not key_repository.strip():
        raise TLSSetupError(MQRC_KEY_REPOSITORY_ERROR, "no key repository (MQSCO KeyRepository or MQSSLKEYR)")
    from qmlite.keys import repository as keyrepo  # cryptography loads only when TLS is asked for

    try:
        repo = keyrepo.load(key_repository, password)
    except keyrepo.KeyRepositoryError as exc:
        raise TLSSetupError(exc.reason, exc.detail) from exc
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False  # IBM checks the queue manager's DN (SSLPeerName), not its host name
    ctx.verify_mode = ssl.CERT_REQUIRED
    trusted = repo.trusted_pem()
    if not trusted:
        raise TLSSetupError(MQRC_KEY_REPOSITORY_ERROR, f"{repo.source} trusts no CA certificate")
    ctx.load_verify_locations(cadata=trusted)
    try:
        keyrepo.apply_cipher_spec(ctx, spec)
    except ValueError as exc:
        raise TLSSetupError(MQRC_SSL_INITIALIZATION_ERROR, str(exc)) from exc
    label = (cert_label or "").strip() or "ibmwebspheremq" + (user or _os_user()).lower()
    entry = repo.entry(label)
    if entry is None and (cert_label or "").strip():
        raise TLSSetupError(MQRC_KEY_REPOSITORY_ERROR, f"no certificate labelled {label!r} in {repo.source}")
    if entry is not None:  # without one the client sends no certificate, as IBM's does
        keyrepo.load_entry(ctx, entry)
    return ctx


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment
        return ""
