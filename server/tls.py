"""TLS on the MQ listener: one port serves plain and TLS clients.

* ``sniff``: the first byte a client sends tells them apart (a TLS record starts 0x16, a TSH "T"); it is
  peeked (MSG_PEEK), so the bytes stay for whoever reads next.  Waiting for it, and the handshake, run
  in the connection's own task under ``tls_handshake_timeout``: a silent or half-finished client never
  holds up another accept.
* ``ServerTLS`` holds the SSL contexts made from the queue manager's key repository (SSLKEYR with
  KEYRPWD or its stash, plus a directory laid out like IBM's container's /etc/mqm/pki): one per
  certificate label.  The handshake starts with the queue manager's CERTLABL; the SNI a client sends
  (IBM's: the channel name mapped as ``pcf.cipherspecs.sni_for_channel``) switches to the channel's
  CERTLABL.  ``reload`` (REFRESH SECURITY TYPE(SSL)) reads the repository again.
* ``Negotiated``: what the handshake settled, which the channel named in the first INITIAL_DATA then
  judges (``check``): its SSLCIPH against the protocol and cipher, SSLCAUTH, SSLPEER.
"""

from __future__ import annotations

import contextvars
import dataclasses
import os
import pathlib
import socket
import ssl
import time

import trio

from qmlite.pcf import cipherspecs, dn
from qmlite.pcf import fap

DEFAULT_PKI_DIR = "/etc/mqm/pki"
TLS_RECORD_HANDSHAKE = 0x16

_sni_seen: contextvars.ContextVar[str | None] = contextvars.ContextVar("qmlite_sni", default=None)


async def sniff(stream: trio.SocketStream, timeout: float) -> str:
    """"tls", "plain", or "" (the client closed, or sent nothing in time)."""
    with trio.move_on_after(timeout):
        try:
            head = await stream.socket.recv(1, socket.MSG_PEEK)
        except OSError:
            return ""
        if not head:
            return ""
        return "tls" if head[0] == TLS_RECORD_HANDSHAKE else "plain"
    return ""


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


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    code: int  # the STATUS code sent (fap.md section 9)
    message: str  # IBM's error-log message, for the log line


def check(definition, negotiated: Negotiated | None) -> Refusal | None:
    """May a client that connected this way start this SVRCONN channel?  IBM's rules: a channel with
    SSLCIPH needs TLS whose protocol and cipher satisfy it; a channel without SSLCIPH takes no TLS client;
    SSLCAUTH(REQUIRED) needs a client certificate; SSLPEER must match its DN.  Each refusal is STATUS
    CIPHER_SPEC, SSL_CLIENT_CERTIFICATE or PEER_NAME (the codes Wireshark's packet-mq.c names)."""
    wanted = (definition.ssl_cipher_spec or "").strip()
    if negotiated is None:
        if wanted:
            return Refusal(fap.CIPHER_SPEC, f"AMQ9639E: Remote channel '{definition.name}' did not specify a CipherSpec.")
        return None
    if not wanted:
        return Refusal(fap.CIPHER_SPEC, f"AMQ9641E: Remote CipherSpec error for channel '{definition.name}': the "
                                        f"remote end used {negotiated.cipher_spec}, the channel has no SSLCIPH.")
    spec = cipherspecs.lookup(wanted)
    if spec is None or not spec.accepts(negotiated.protocol, negotiated.cipher):
        return Refusal(fap.CIPHER_SPEC, f"AMQ9631E: The CipherSpec negotiated during the TLS handshake "
                                        f"({negotiated.cipher_spec}, {negotiated.protocol}) does not match the "
                                        f"required CipherSpec {wanted!r} for channel '{definition.name}'.")
    from qmlite.registry.objects import values as V

    if negotiated.subject is None and definition.ssl_client_auth == V.MQSCA_REQUIRED:
        return Refusal(fap.SSL_CLIENT_CERTIFICATE, f"AMQ9637E: Channel '{definition.name}' is lacking a certificate.")
    peer = (definition.ssl_peer_name or "").strip()
    if peer:
        try:
            ok = negotiated.subject is not None and dn.matches(peer, negotiated.subject)
        except dn.DNError:
            ok = False
        if not ok:
            shown = dn.render(negotiated.subject or [])
            return Refusal(fap.PEER_NAME, f"AMQ9636E: TLS distinguished name {shown!r} does not match the peer "
                                          f"name {peer!r} of channel '{definition.name}'.")
    return None


class ServerTLS:
    """The listener's TLS contexts, from the queue manager's key repository (see the module docstring)."""

    def __init__(self, cfg, registry, log) -> None:
        self.cfg = cfg
        self.registry = registry
        self.log = log
        self.contexts: dict[str, ssl.SSLContext] = {}  # label (lower case) -> context
        self.default: ssl.SSLContext | None = None
        self.problem = "not loaded"  # why TLS clients are refused; "" when contexts are ready
        self.loaded_at = 0.0

    # ---- reading the repository ------------------------------------------------------------------------
    def pki_dir(self) -> pathlib.Path | None:
        chosen = self.cfg.pki_dir or os.environ.get("QMLITE_PKI_DIR", "") or DEFAULT_PKI_DIR
        p = pathlib.Path(chosen)
        return p if (p / "keys").is_dir() or (p / "trust").is_dir() else None

    def reload(self) -> str:
        """Read the repository again; "" when done, else why not (the previous contexts stay)."""
        from qmlite import keyrepo  # cryptography loads only here

        qmgr = self.registry.qmgr
        repo = keyrepo.KeyRepository("")
        problems = []
        stem = (qmgr.ssl_key_repository or "").strip()
        if stem:
            try:
                repo.merge(keyrepo.load(stem, qmgr.ssl_key_repo_password or None))
            except keyrepo.KeyRepositoryError as exc:
                problems.append(exc.detail)
        pki = self.pki_dir()
        if pki is not None:
            repo.merge(keyrepo.load_pki_dir(pki))
        if not repo.entries:
            why = "; ".join(problems) or "no key repository: set SSLKEYR (or mount keys under /etc/mqm/pki)"
            if not self.contexts:
                self.problem = why
            return why
        for problem in problems:
            self.log.warning("key_repository_problem", reason="MQRC_KEY_REPOSITORY_ERROR", why=problem)
        trusted = repo.trusted_pem()
        contexts: dict[str, ssl.SSLContext] = {}
        for entry in repo.entries:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # IBM's list starts at TLS 1.2 (TLS 1.0/1.1 are off)
            if trusted:
                ctx.load_verify_locations(cadata=trusted)
                ctx.verify_mode = ssl.CERT_OPTIONAL  # SSLCAUTH is the channel's: checked once it is known
            keyrepo.load_entry(ctx, entry)
            ctx.sni_callback = self._sni
            contexts.setdefault(entry.label.lower(), ctx)
        label = (qmgr.cert_label or "").lower()
        default = contexts.get(label)
        if default is None:
            # IBM's container makes the first keys/<label> the queue manager's certificate; qmlite takes
            # the first personal certificate whenever CERTLABL names none (docs/decisions.md X4).
            default = next(iter(contexts.values()))
            self.log.info("cert_label_defaulted", cert_label=qmgr.cert_label, used=next(iter(contexts)))
        self.contexts, self.default = contexts, default
        self.problem = ""
        self.loaded_at = time.time()
        self.log.info("key_repository_loaded", labels=sorted(contexts), source=repo.source or str(pki))
        return ""

    def _sni(self, sslobj, server_name: str | None, _ctx) -> None:
        """Per-channel certificates: the SNI names the channel; its CERTLABL picks the context."""
        _sni_seen.set(server_name)
        channel = cipherspecs.channel_for_sni(server_name)
        if channel is None:
            return None
        from qmlite.registry.objects import channels as M

        definition = self.registry.objects(M.KIND).get(channel)
        label = (definition.cert_label or "").strip().lower() if definition is not None else ""
        ctx = self.contexts.get(label) if label else None
        if ctx is not None:
            sslobj.context = ctx
        return None

    # ---- a handshake -----------------------------------------------------------------------------------
    async def handshake(self, stream: trio.SocketStream, timeout: float) -> tuple[trio.SSLStream | None, Negotiated | None, str]:
        """(the TLS stream, what was negotiated, "") or (None, None, why)."""
        if self.default is None:
            return None, None, self.problem or "no key repository"
        tls = trio.SSLStream(stream, self.default, server_side=True, https_compatible=True)
        _sni_seen.set(None)
        with trio.move_on_after(timeout) as scope:
            try:
                await tls.do_handshake()
            except (trio.BrokenResourceError, ssl.SSLError, OSError) as exc:
                return None, None, f"handshake failed: {getattr(exc, '__cause__', None) or exc}"
        if scope.cancelled_caught:
            return None, None, f"no TLS handshake within {timeout:g} s"
        from qmlite import keyrepo

        der = tls.getpeercert(binary_form=True)
        subject = issuer = None
        if der:
            cert = keyrepo.from_der(der)
            subject, issuer = keyrepo.subject_pairs(cert), keyrepo.name_pairs(cert.issuer)
        cipher = tls.cipher()
        negotiated = Negotiated(tls.version() or "", cipher[0] if cipher else "", subject, issuer,
                                cipherspecs.channel_for_sni(_sni_seen.get()), time.time())
        return tls, negotiated, ""
