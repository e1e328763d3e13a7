"""``qmlite tls init DIR``: a test PKI in one command -- a CA, a queue-manager certificate and a client
certificate, each under IBM's default label, as PKCS#12 (with a stash) and PEM, plus the developer
container's ``pki/keys/<label>/`` and ``pki/trust/0/`` layout (docs/tls.md "A test PKI").

Labels: the queue manager's is ``ibmwebspheremq<qmgr in lower case>`` (IBM's default CERTLABL), the
client's ``ibmwebspheremq<user in lower case>`` (IBM's client default when CertificateLabel is blank).
"""

from __future__ import annotations

import dataclasses
import datetime
import pathlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .repository import write_stash

DEFAULT_PASSWORD = "passw0rd"


@dataclasses.dataclass(frozen=True, slots=True)
class TestPKI:
    root: pathlib.Path
    password: str
    qmgr_label: str
    client_label: str
    ca_crt: pathlib.Path
    qmgr_p12: pathlib.Path  # the queue manager's key repository (SSLKEYR: its stem, root/"qmgr")
    qmgr_pem: pathlib.Path
    client_p12: pathlib.Path  # the client's key repository (MQSCO KeyRepository / MQSSLKEYR)
    client_pem: pathlib.Path
    pki_dir: pathlib.Path  # laid out like the container's /etc/mqm/pki
    qmgr_dn: str
    client_dn: str
    extra: dict = dataclasses.field(default_factory=dict)  # label -> (p12 path, DN) of extra certificates

    @property
    def qmgr_stem(self) -> str:
        return str(self.qmgr_p12.with_suffix(""))

    @property
    def client_stem(self) -> str:
        return str(self.client_p12.with_suffix(""))


def _name(cn: str, ous: tuple[str, ...] = (), org: str = "qmlite", country: str = "GB") -> x509.Name:
    # Written root first, so IBM shows it CN first: CN=..,OU=<ous[0]>,OU=<ous[1]>..,O=..,C=..
    attrs = [x509.NameAttribute(NameOID.COUNTRY_NAME, country), x509.NameAttribute(NameOID.ORGANIZATION_NAME, org)]
    attrs += [x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou) for ou in reversed(ous)]
    attrs.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attrs)


def _key(kind: str = "ec"):
    # The queue manager's key (and each --label one, for a channel's CERTLABL) is RSA, so that every
    # ECDHE_RSA_* and TLS_RSA_* CipherSpec can be negotiated with it; the CA's and the client's are P-256
    # (as strong, and made in microseconds).
    if kind == "rsa":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return ec.generate_private_key(ec.SECP256R1())


def _cert(subject: x509.Name, key, issuer: x509.Name, issuer_key, *, ca: bool, days: int = 825,
          server: bool = False, hosts: tuple[str, ...] = ()) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
         .serial_number(x509.random_serial_number()).not_valid_before(now)
         .not_valid_after(now + datetime.timedelta(days=days))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        b = b.add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                          content_commitment=False, key_encipherment=False,
                                          data_encipherment=False, key_agreement=False, encipher_only=False,
                                          decipher_only=False), critical=True)
    else:
        b = b.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                            critical=False)
        if hosts:
            b = b.add_extension(x509.SubjectAlternativeName([x509.DNSName(h) for h in hosts]), critical=False)
    return b.sign(issuer_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key, password: str | None = None) -> bytes:
    enc = serialization.BestAvailableEncryption(password.encode()) if password else serialization.NoEncryption()
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, enc)


def _write(path: pathlib.Path, data: bytes, private: bool = False) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if private:
        path.chmod(0o600)
    return path


def _personal(root: pathlib.Path, stem: str, label: str, cert, key, ca_cert,
              password: str) -> tuple[pathlib.Path, pathlib.Path]:
    p12 = _write(root / f"{stem}.p12", pkcs12.serialize_key_and_certificates(
        label.encode(), key, cert, [ca_cert], serialization.BestAvailableEncryption(password.encode())), private=True)
    write_stash(p12, password)
    pem = _write(root / f"{stem}.pem", _key_pem(key) + _pem(cert) + _pem(ca_cert), private=True)
    return p12, pem


def init(root: str | pathlib.Path, *, qmgr: str = "QM1", user: str = "app", password: str = DEFAULT_PASSWORD,
         client_ous: tuple[str, ...] = ("Test", "Clients"), extra_labels: tuple[str, ...] = ()) -> TestPKI:
    """Create the test PKI under ``root`` (created if missing; existing files are replaced)."""
    root = pathlib.Path(root)
    root.mkdir(parents=True, exist_ok=True)
    ca_key = _key()
    ca_name = _name("qmlite test CA", ("CA",))
    ca_cert = _cert(ca_name, ca_key, ca_name, ca_key, ca=True, days=3650)
    ca_crt = _write(root / "ca.crt", _pem(ca_cert))
    _write(root / "ca.key", _key_pem(ca_key), private=True)

    qm_label = "ibmwebspheremq" + qmgr.lower()
    qm_key = _key("rsa")
    qm_cert = _cert(_name(qmgr, ("Queue managers",)), qm_key, ca_name, ca_key, ca=False,
                    hosts=("localhost", "*.chl.mq.ibm.com"))
    qm_p12, qm_pem = _personal(root, "qmgr", qm_label, qm_cert, qm_key, ca_cert, password)

    client_label = "ibmwebspheremq" + user.lower()
    cl_key = _key()
    cl_cert = _cert(_name(user, client_ous), cl_key, ca_name, ca_key, ca=False)
    cl_p12, cl_pem = _personal(root, "client", client_label, cl_cert, cl_key, ca_cert, password)

    pki = root / "pki"
    for label, cert, key in [(qm_label, qm_cert, qm_key)]:
        d = pki / "keys" / label
        _write(d / "tls.key", _key_pem(key), private=True)
        _write(d / "tls.crt", _pem(cert))
        _write(d / "ca.crt", _pem(ca_cert))
    _write(pki / "trust" / "0" / "ca.crt", _pem(ca_cert))

    extra = {}
    for label in extra_labels:
        key = _key("rsa")  # a channel's CERTLABL is a server's certificate: RSA, as the queue manager's
        cert = _cert(_name(label, ("Channels",)), key, ca_name, ca_key, ca=False, hosts=("*.chl.mq.ibm.com",))
        p12, _pem_path = _personal(root, label, label, cert, key, ca_cert, password)
        d = pki / "keys" / label
        _write(d / "tls.key", _key_pem(key), private=True)
        _write(d / "tls.crt", _pem(cert))
        _write(d / "ca.crt", _pem(ca_cert))
        extra[label] = (p12, _dn(cert))
    return TestPKI(root, password, qm_label, client_label, ca_crt, qm_p12, qm_pem, cl_p12, cl_pem, pki,
                   _dn(qm_cert), _dn(cl_cert), extra)


def _dn(cert: x509.Certificate) -> str:
    from qmlite.pcf import dn

    from .repository import name_pairs

    return dn.render(name_pairs(cert.subject))
