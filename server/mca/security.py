"""TLS on message channels (docs/channels.md "Security", docs/decisions.md MCX7-MCX8).

* The sending end (SDR, SVR with a CONNAME): a channel with SSLCIPH goes TLS as soon as it is connected
  (:func:`secure`).  Its certificate is its queue manager's, from the key repository that queue
  manager's listener reads (server/tls.py ``ServerTLS``: SSLKEYR with KEYRPWD or its stash, and the PKI
  directory; set up at the first TLS use, again at REFRESH SECURITY TYPE(SSL)), under the channel's
  CERTLABL, else the queue manager's CERTLABL, else IBM's default label ``ibmwebspheremq<qmgr>`` (lower
  case); with no certificate under that label none is sent, as IBM's channel sends none.  It sends the
  SNI IBM's channels send (the channel name, ``pcf.cipherspecs.sni_for_channel``), offers only what its
  SSLCIPH allows, requires the partner's certificate to chain to a CA the repository trusts, and with
  SSLPEER requires the partner's DN to match it.
* The receiving end (RCVR, RQSTR): the listener's handshake and ``server.tls.check`` against the channel
  the first ID names, as for a SVRCONN (server/connection.py ``_message_channel`` calls :func:`refused`).

A failure at either end raises the Channel SSL Error event there (CHLEV) with IBM's qualifier, and the
error log gets IBM's message; the sender then retries as for any failure (SHORTRTY/LONGRTY).
"""

from __future__ import annotations

import ssl
import time

import trio

from qmlite.pcf import cipherspecs, dn
from qmlite.pcf import fap

from qmlite.registry.channels.sendingend import ChannelFailure
from qmlite.registry.monitoring import events as E
from qmlite.server.tls import Negotiated, handshake_message

# The receiving end's STATUS refusal (server/tls.py check) -> the Channel SSL Error event's qualifier.
QUALIFIER = {fap.CIPHER_SPEC: E.MQRQ_SSL_CIPHER_SPEC_ERROR, fap.SSL_CLIENT_CERTIFICATE: E.MQRQ_SSL_CLIENT_AUTH_ERROR,
             fap.PEER_NAME: E.MQRQ_SSL_PEER_NAME_ERROR}


def wanted(channel) -> str:
    return (channel.ssl_cipher_spec or "").strip()


def sender_context(server_tls, channel, qmgr_name: str) -> ssl.SSLContext:
    """The client-side context of a sending channel (see the module docstring); ChannelFailure when its
    queue manager has no key repository to read or the SSLCIPH is no CipherSpec."""
    why = server_tls.environment()
    if why:
        raise ChannelFailure(0, f"AMQ9657E: the key repository could not be opened for channel "
                                f"'{channel.name}': {why}")
    spec = cipherspecs.lookup(wanted(channel).upper())
    if spec is None:
        raise ChannelFailure(0, f"AMQ9635E: channel '{channel.name}' did not specify a valid CipherSpec "
                                f"({wanted(channel)!r})")
    from qmlite.keys import repository as keyrepo  # cryptography loads only for a TLS channel

    repo = server_tls.repo
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False  # IBM checks the partner's DN (SSLPEER), not a host name
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    trusted = repo.trusted_pem()
    if trusted:
        ctx.load_verify_locations(cadata=trusted)
    try:
        keyrepo.apply_cipher_spec(ctx, spec)
    except ValueError as exc:
        raise ChannelFailure(0, f"AMQ9635E: CipherSpec {spec.name} of channel '{channel.name}': {exc}") from exc
    label = (channel.cert_label or "").strip() or server_tls.cert_label or "ibmwebspheremq" + qmgr_name.lower()
    entry = repo.entry(label)
    if entry is not None:
        keyrepo.load_entry(ctx, entry)
    return ctx


async def secure(stream, channel, server_tls, qm, where: str, instance=None) -> trio.SSLStream:
    """``stream`` (connected to the partner at ``where``) after the TLS handshake and the SSLPEER check;
    what was agreed shown in channel status (``instance``)."""
    ctx = sender_context(server_tls, channel, qm.registry.qmgr.name)
    tls = trio.SSLStream(stream, ctx, server_hostname=cipherspecs.sni_for_channel(channel.name))
    try:
        await tls.do_handshake()
    except (trio.BrokenResourceError, ssl.SSLError) as exc:
        cause = exc.__cause__ or exc
        qm.events.channel_ssl_error(channel, qualifier=E.MQRQ_SSL_HANDSHAKE_ERROR, conn_name=where,
                                    stage="handshake", code=getattr(cause, "errno", 0) or 0)
        raise ChannelFailure(0, f"{handshake_message(cause)}: the TLS handshake for channel '{channel.name}' "
                                f"failed: {cause}") from exc
    from qmlite.keys import repository as keyrepo

    der = tls.getpeercert(binary_form=True)
    cert = keyrepo.from_der(der) if der else None
    subject = keyrepo.subject_pairs(cert) if cert is not None else []
    if instance is not None:
        cipher = tls.cipher()
        Negotiated(tls.version() or "", cipher[0] if cipher else "", subject or None,
                   keyrepo.name_pairs(cert.issuer) if cert is not None else None, None, time.time()).show(instance)
    peer = (channel.ssl_peer_name or "").strip()
    if peer:
        try:
            ok = dn.matches(peer, subject)
        except dn.DNError:
            ok = False
        if not ok:
            shown = dn.render(subject)
            qm.events.channel_ssl_error(channel, qualifier=E.MQRQ_SSL_PEER_NAME_ERROR, conn_name=where, peer=shown)
            raise ChannelFailure(0, f"AMQ9636E: TLS distinguished name {shown!r} does not match the peer name "
                                    f"{peer!r} of channel '{channel.name}'")
    return tls


def refused(qm, definition, refusal, address: str) -> None:
    """The receiving end refused a message channel's TLS (server/tls.py ``check``): its event."""
    qualifier = QUALIFIER.get(refusal.code)
    if qualifier is not None:
        peer = dict(refusal.inserts).get("c2", "") if qualifier == E.MQRQ_SSL_PEER_NAME_ERROR else ""
        qm.events.channel_ssl_error(definition, qualifier=qualifier, conn_name=address, peer=peer)
