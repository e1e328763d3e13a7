"""Key repositories as IBM MQ 9.3+ reads them, for both ends: the queue manager's SSLKEYR (and IBM's
container layout under /etc/mqm/pki) and a client's MQSCO KeyRepository / MQSSLKEYR.

A key repository holds personal certificates, each under a label (the queue manager's CERTLABL, a
channel's CERTLABL, a client's CertificateLabel), and the CA certificates it trusts.  What qmlite reads
(docs/tls.md "Key repositories", docs/decisions.md X3-X5):

* ``NAME.p12`` / ``NAME.pfx`` (PKCS#12): its personal certificate's friendly name is its label; the
  other certificates in it are trusted.  Password: the one given (KEYRPWD, MQSCO KeyRepoPassword,
  MQKEYRPWD), else the stash ``NAME.sth`` beside it (GSKit's classic stash: the password's bytes XOR
  0xF5, NUL-terminated), else none.
* ``NAME.pem``: certificates and at most one private key; the key answers to any label asked for.
* a directory laid out as IBM's developer container's ``/etc/mqm/pki``: ``keys/<label>/tls.key``,
  ``tls.crt`` (its chain may follow), ``ca.crt``; ``trust/<n>/*.crt`` (every file trusted).
* a stem without extension (IBM's convention, where ``.kdb`` is assumed): qmlite's own rule takes
  ``STEM.p12``, else ``STEM.pem``, beside it.
* ``.kdb`` (CMS): its format is not public and cannot be read; refused with MQRC_KEY_REPOSITORY_ERROR
  and a message saying how to convert it.

Only this package (keys/) imports ``cryptography``; server/tls.py and client/tls.py import this module
when TLS is first used, so nothing loads it before.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import pathlib
import secrets
import ssl
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

# What names a repository and the error it raises need no cryptography (keys/paths.py); re-exported.
from .paths import KDB_HINT, MQRC_KEY_REPOSITORY_ERROR, KeyRepositoryError, resolve  # noqa: F401

STASH_XOR = 0xF5


@dataclasses.dataclass(slots=True)
class KeyEntry:
    label: str  # "" for a PEM key, which answers to any label
    key: object  # a cryptography private key
    cert: x509.Certificate
    chain: list[x509.Certificate] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(slots=True)
class KeyRepository:
    source: str
    entries: list[KeyEntry] = dataclasses.field(default_factory=list)
    trusted: list[x509.Certificate] = dataclasses.field(default_factory=list)

    def entry(self, label: str | None) -> KeyEntry | None:
        """The personal certificate under ``label`` (case-insensitive, as GSKit compares labels); a
        PEM key answers to any label; None: none."""
        for e in self.entries:
            if label and e.label.lower() == label.lower():
                return e
        for e in self.entries:
            if not e.label:
                return e
        return None

    @property
    def labels(self) -> list[str]:
        return [e.label for e in self.entries if e.label]

    def merge(self, other: KeyRepository) -> None:
        self.entries += other.entries
        self.trusted += other.trusted

    def trusted_pem(self) -> str:
        certs = self.trusted + [c for e in self.entries for c in e.chain]
        return "".join(c.public_bytes(serialization.Encoding.PEM).decode() for c in certs)


# ---- reading -----------------------------------------------------------------------------------------
def read_stash(path: pathlib.Path) -> str | None:
    """The password stashed beside a repository (``NAME.sth``), or None when there is no stash."""
    sth = path.with_suffix(".sth")
    if not sth.is_file():
        return None
    raw = sth.read_bytes()
    plain = bytes(b ^ STASH_XOR for b in raw)
    end = plain.find(b"\0")
    if end < 0:
        raise KeyRepositoryError(f"stash {sth} is not in GSKit's classic format: give the password "
                                 "(KEYRPWD, MQKEYRPWD or MQSCO KeyRepoPassword) instead")
    return plain[:end].decode("utf-8", "replace")


def write_stash(path: pathlib.Path, password: str) -> pathlib.Path:
    """Write ``NAME.sth`` for a repository, as runmqakm -stash does (1,024 bytes)."""
    sth = path.with_suffix(".sth")
    data = password.encode() + b"\0"
    data = data.ljust(max(1024, len(data)), b"\0")
    sth.write_bytes(bytes(b ^ STASH_XOR for b in data))
    os.chmod(sth, 0o600)
    return sth


def load(path: str, password: str | None = None) -> KeyRepository:
    """Read the key repository ``path`` names (see ``resolve``)."""
    p = resolve(path)
    if p.is_dir():
        return load_pki_dir(p)
    if password is None:
        password = read_stash(p)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise KeyRepositoryError(f"cannot read {p}: {exc.strerror or exc}") from exc
    if p.suffix.lower() in (".p12", ".pfx"):
        return _load_p12(p, data, password)
    return _load_pem(str(p), data, password)


def _load_p12(p: pathlib.Path, data: bytes, password: str | None) -> KeyRepository:
    try:
        bundle = pkcs12.load_pkcs12(data, password.encode() if password else None)
    except ValueError as exc:
        raise KeyRepositoryError(f"cannot open {p}: wrong password or not PKCS#12 ({exc})") from exc
    repo = KeyRepository(str(p))
    others = [c.certificate for c in bundle.additional_certs]
    if bundle.key is not None and bundle.cert is not None:
        label = (bundle.cert.friendly_name or b"").decode("utf-8", "replace")
        repo.entries.append(KeyEntry(label, bundle.key, bundle.cert.certificate,
                                     [c for c in others if c.subject == bundle.cert.certificate.issuer]))
    repo.trusted += others
    return repo


def _load_pem(source: str, data: bytes, password: str | None, label: str = "") -> KeyRepository:
    repo = KeyRepository(source)
    try:
        certs = x509.load_pem_x509_certificates(data) if b"-----BEGIN CERTIFICATE" in data else []
    except ValueError as exc:
        raise KeyRepositoryError(f"{source}: unreadable certificate ({exc})") from exc
    key = None
    if b"PRIVATE KEY-----" in data:
        start = data.find(b"-----BEGIN")
        while start >= 0 and b"PRIVATE KEY" not in data[start:data.find(b"\n", start)]:
            start = data.find(b"-----BEGIN", start + 1)
        end = data.find(b"-----END", start)
        end = data.find(b"-----", end + 8) + 5
        try:
            key = serialization.load_pem_private_key(data[start:end], password.encode() if password else None)
        except (ValueError, TypeError) as exc:
            raise KeyRepositoryError(f"{source}: cannot read the private key ({exc})") from exc
    if key is not None:
        public = key.public_key().public_bytes(serialization.Encoding.DER,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
        own = [c for c in certs if c.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo) == public]
        if not own:
            raise KeyRepositoryError(f"{source}: no certificate for its private key")
        rest = [c for c in certs if c is not own[0]]
        repo.entries.append(KeyEntry(label, key, own[0], rest))
    else:
        repo.trusted += certs
    return repo


def load_pki_dir(root: pathlib.Path) -> KeyRepository:
    """IBM's developer container layout: ``keys/<label>/tls.key, tls.crt, ca.crt`` and ``trust/<n>/*``."""
    repo = KeyRepository(str(root))
    keys = root / "keys"
    if keys.is_dir():
        for d in sorted(x for x in keys.iterdir() if x.is_dir()):
            key_file, crt_file = d / "tls.key", d / "tls.crt"
            if not key_file.is_file() or not crt_file.is_file():
                continue
            part = _load_pem(str(d), key_file.read_bytes() + b"\n" + crt_file.read_bytes(), None, label=d.name)
            repo.merge(part)
            if (d / "ca.crt").is_file():
                repo.merge(_load_pem(str(d / "ca.crt"), (d / "ca.crt").read_bytes(), None))
    trust = root / "trust"
    if trust.is_dir():
        for d in sorted(x for x in trust.iterdir() if x.is_dir()):
            for f in sorted(x for x in d.iterdir() if x.is_file()):
                repo.merge(_load_pem(str(f), f.read_bytes(), None))
    return repo


# ---- certificates as IBM names them ------------------------------------------------------------------
_IBM_NAMES = {
    NameOID.COMMON_NAME: "CN", NameOID.ORGANIZATIONAL_UNIT_NAME: "OU", NameOID.ORGANIZATION_NAME: "O",
    NameOID.LOCALITY_NAME: "L", NameOID.STATE_OR_PROVINCE_NAME: "ST", NameOID.COUNTRY_NAME: "C",
    NameOID.DOMAIN_COMPONENT: "DC", NameOID.SERIAL_NUMBER: "SERIALNUMBER", NameOID.EMAIL_ADDRESS: "E",
    NameOID.USER_ID: "UID", NameOID.STREET_ADDRESS: "STREET", NameOID.POSTAL_CODE: "PC", NameOID.TITLE: "T",
    NameOID.DN_QUALIFIER: "DNQ", NameOID.GIVEN_NAME: "GIVENNAME", NameOID.SURNAME: "SN",
    NameOID.INITIALS: "INITIALS", NameOID.GENERATION_QUALIFIER: "GENERATIONQUALIFIER",
    NameOID.PSEUDONYM: "PSEUDONYM",
}


def name_pairs(name: x509.Name) -> list[tuple[str, str]]:
    """A Name as (IBM attribute, value) pairs, most specific first (the order IBM displays: CN first)."""
    out = []
    for rdn in reversed(list(name.rdns)):
        for att in rdn:
            out.append((_IBM_NAMES.get(att.oid, att.oid.dotted_string), str(att.value)))
    return out


def serial_text(cert: x509.Certificate) -> str:
    raw = cert.serial_number.to_bytes((cert.serial_number.bit_length() + 7) // 8 or 1, "big")
    return ":".join(f"{b:02X}" for b in raw)


def subject_pairs(cert: x509.Certificate) -> list[tuple[str, str]]:
    """The subject as IBM MQ 7.1+ presents it for SSLPEER: with the certificate's SERIALNUMBER first."""
    return [("SERIALNUMBER", serial_text(cert))] + name_pairs(cert.subject)


def from_der(der: bytes) -> x509.Certificate:
    return x509.load_der_x509_certificate(der)


# ---- Python ssl contexts from a repository ---------------------------------------------------------
def load_entry(ctx: ssl.SSLContext, entry: KeyEntry) -> None:
    """Give ``ctx`` the entry's key and certificate chain.  ``ssl`` reads them only from files: they
    pass through a private temporary file, the key encrypted with a one-time password."""
    once = secrets.token_urlsafe(24)
    key_pem = entry.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.BestAvailableEncryption(once.encode()))
    chain = b"".join(c.public_bytes(serialization.Encoding.PEM) for c in [entry.cert, *entry.chain])
    fd, name = tempfile.mkstemp(prefix="qmlite-key-", suffix=".pem")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(chain + key_pem)
        ctx.load_cert_chain(name, password=once)
    finally:
        os.unlink(name)


def apply_cipher_spec(ctx: ssl.SSLContext, spec) -> None:
    """Limit ``ctx`` to what a CipherSpec (``qmlite.pcf.cipherspecs.CipherSpec``) allows: its protocol
    versions, and its one cipher when it names one.  ValueError when this OpenSSL cannot offer it."""
    from qmlite.pcf import cipherspecs

    versions = {cipherspecs.TLS12: ssl.TLSVersion.TLSv1_2, cipherspecs.TLS13: ssl.TLSVersion.TLSv1_3}
    ctx.minimum_version = min(versions[p] for p in spec.protocols)
    ctx.maximum_version = max(versions[p] for p in spec.protocols)
    if spec.alias:
        return
    if cipherspecs.TLS12 in spec.protocols:
        try:
            ctx.set_ciphers(spec.cipher + (":@SECLEVEL=0" if spec.weak else ""))
        except ssl.SSLError as exc:
            raise ValueError(f"{spec.name}: not available in this OpenSSL ({exc})") from exc
    elif not set_tls13_suites(ctx, spec.cipher):
        raise ValueError(f"{spec.name}: this Python cannot limit its TLS 1.3 suites")


def _ssl_ctx_function(name: str, argtypes: list, restype):
    """OpenSSL's ``name`` from the library CPython's ``_ssl`` is linked with, or None."""
    try:
        import _ssl

        fn = getattr(ctypes.CDLL(_ssl.__file__), name)
    except (OSError, AttributeError, ImportError):
        return None
    fn.argtypes, fn.restype = argtypes, restype
    return fn


def _ssl_ctx_pointer(ctx: ssl.SSLContext) -> int:
    """The context's SSL_CTX, which CPython keeps as the first member after the object header
    (docs/decisions.md X2); 0 when there is none."""
    return ctypes.c_void_p.from_address(id(ctx) + object.__basicsize__).value or 0


def set_tls13_suites(ctx: ssl.SSLContext, suites: str) -> bool:
    """Limit the TLS 1.3 suites a context offers.  Python's ``ssl`` has no call for it (set_ciphers is
    TLS 1.2 only), so OpenSSL's SSL_CTX_set_ciphersuites is called on the context's SSL_CTX.  False when
    that is not possible."""
    fn = _ssl_ctx_function("SSL_CTX_set_ciphersuites", [ctypes.c_void_p, ctypes.c_char_p], ctypes.c_int)
    pointer = _ssl_ctx_pointer(ctx)
    return fn is not None and bool(pointer) and fn(pointer, suites.encode()) == 1


# OpenSSL's SSL_CTX_ctrl commands for the size of a context's session cache (ssl.h; SSL_CTX_sess_set_cache_size
# and SSL_CTX_sess_get_cache_size are macros over them).
_SET_SESS_CACHE_SIZE = 42
_GET_SESS_CACHE_SIZE = 43


def bound_session_cache(ctx: ssl.SSLContext, size: int) -> bool:
    """Hold the context's server session cache to ``size`` sessions (OpenSSL drops the oldest beyond it;
    its own default is 20,480).  Python's ``ssl`` has no call for it.  True only when the size read back
    is ``size``."""
    fn = _ssl_ctx_function("SSL_CTX_ctrl", [ctypes.c_void_p, ctypes.c_int, ctypes.c_long, ctypes.c_void_p],
                           ctypes.c_long)
    pointer = _ssl_ctx_pointer(ctx)
    if fn is None or not pointer:
        return False
    fn(pointer, _SET_SESS_CACHE_SIZE, size, None)
    return fn(pointer, _GET_SESS_CACHE_SIZE, 0, None) == size

