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

from qmlite.pcf import cipherspecs, dn

MQRC_KEY_REPOSITORY_ERROR = 2381  # cmqc.h
MQRC_SSL_INITIALIZATION_ERROR = 2393
MQRC_SSL_PEER_NAME_MISMATCH = 2398
MQRC_SSL_PEER_NAME_ERROR = 2399

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

    def wrap(self, sock: socket.socket, host: str, timeout: float) -> ssl.SSLSocket:
        """The TLS handshake on a connected socket, then the peer-name check; TLSSetupError otherwise."""
        sock.settimeout(timeout)
        try:
            tls = self.context.wrap_socket(sock, server_hostname=self.server_hostname(host))
        except (ssl.SSLError, OSError) as exc:
            sock.close()
            raise TLSSetupError(MQRC_SSL_INITIALIZATION_ERROR, f"TLS handshake failed: {exc}") from exc
        if self.peer_name:
            from qmlite import keyrepo

            der = tls.getpeercert(binary_form=True)
            subject = keyrepo.subject_pairs(keyrepo.from_der(der)) if der else []
            if not dn.matches(self.peer_name, subject):
                tls.close()
                raise TLSSetupError(MQRC_SSL_PEER_NAME_MISMATCH,
                                    f"the queue manager's DN {dn.render(subject)!r} does not match {self.peer_name!r}")
        return tls


def client_tls(*, channel: str, cipher_spec: str, key_repository: str | None, password: str | None = None,
               cert_label: str | None = None, peer_name: str | None = None, outbound_sni: str = "CHANNEL",
               user: str | None = None) -> ClientTLS:
    """The TLS set-up for a client channel (every argument as IBM's client takes it; ``key_repository``
    None or blank is an error, as on IBM's client with no MQSCO, MQSSLKEYR or SSLKeyRepository)."""
    spec = cipherspecs.lookup(cipher_spec)
    if spec is None:
        raise TLSSetupError(MQRC_SSL_INITIALIZATION_ERROR, f"unknown CipherSpec {cipher_spec!r}")
    peer = (peer_name or "").strip()
    if peer and not dn.valid(peer):
        raise TLSSetupError(MQRC_SSL_PEER_NAME_ERROR, f"SSLPeerName {peer!r} is not a valid DN pattern")
    if not key_repository or not key_repository.strip():
        raise TLSSetupError(MQRC_KEY_REPOSITORY_ERROR, "no key repository (MQSCO KeyRepository or MQSSLKEYR)")
    from qmlite import keyrepo  # cryptography loads only when TLS is asked for

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
    if outbound_sni.upper() not in OUTBOUND_SNI:
        outbound_sni = "CHANNEL"  # IBM: a value that is not valid is taken as the default
    return ClientTLS(ctx, spec.name, channel, peer, outbound_sni.upper())


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in this environment
        return ""
