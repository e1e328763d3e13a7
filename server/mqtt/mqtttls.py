"""TLS for a telemetry channel, from its SSL attributes (docs/mqtt.md, TT10).

IBM's MQTT channel names its own key store: SSLKEYR (a PKCS#12 file; qmlite also reads what
qmlite.keys reads: PEM, a CMS stem with its stash, a /etc/mqm/pki directory) and SSLKEYP (its
password); SSLCIPH set and SSLKEYR blank uses the queue manager's key repository (server/tls.py's
environment, as the MQ port does).  SSLCAUTH(REQUIRED) asks the client for a certificate the key
store trusts.  No SSL attribute: plain TCP.
"""

from __future__ import annotations

import ssl

from qmlite.pcf import cipherspecs
from qmlite.registry.objects import values as V
from qmlite.registry.objects.channels import Channel


def server_context(server, definition: Channel) -> ssl.SSLContext | None:
    """The context for the channel's listener, None for plain TCP.  Raises KeyRepositoryError (the
    key store cannot be read) or RuntimeError (the queue manager's environment is not set up)."""
    keyr = definition.ssl_key_repository.strip()
    cipher = definition.ssl_cipher_spec.strip().upper()
    if not keyr and not cipher:
        return None
    from qmlite.keys import repository as keyrepo

    if keyr:
        repo = keyrepo.load(keyr, definition.ssl_key_passphrase or None)
    else:
        why = server.tls.environment()
        if why:
            raise RuntimeError(why)
        repo = server.tls.repo
    entry = repo.entry(definition.cert_label.strip()) or repo.entries[0]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # as the MQ port: TLS 1.0 and 1.1 are off
    trusted = repo.trusted_pem()
    if trusted:
        ctx.load_verify_locations(cadata=trusted)
    if definition.ssl_client_auth == V.MQSCA_REQUIRED:
        ctx.verify_mode = ssl.CERT_REQUIRED
    elif definition.ssl_client_auth == V.MQSCA_OPTIONAL:
        ctx.verify_mode = ssl.CERT_OPTIONAL
    spec = cipherspecs.lookup(cipher) if cipher else None
    if spec is not None:
        keyrepo.apply_cipher_spec(ctx, spec)
    keyrepo.load_entry(ctx, entry)
    return ctx
