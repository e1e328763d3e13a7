"""Client key repositories a queue manager must refuse, beside a test PKI (qmlite.keys.testpki): each holds a
client certificate and its key, and trusts the PKI's CA (so the client itself accepts the queue
manager's certificate and the refusal is the queue manager's)."""

from __future__ import annotations

import datetime
import pathlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "qmlite"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _certificate(subject: x509.Name, key, issuer: x509.Name, issuer_key, *, ca: bool, start: datetime.datetime,
                 end: datetime.datetime) -> x509.Certificate:
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .sign(issuer_key, hashes.SHA256()))


def _repository(path: pathlib.Path, key, cert: x509.Certificate, trusted_ca: pathlib.Path) -> str:
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    path.write_bytes(key_pem + cert.public_bytes(serialization.Encoding.PEM) + trusted_ca.read_bytes())
    return str(path)


def refused_client_repositories(made, directory: pathlib.Path) -> dict[str, str]:
    """{"unknown CA": PEM, "expired": PEM}: a certificate issued by a CA the queue manager does not trust,
    and one issued by the PKI's own CA that expired yesterday."""
    now = datetime.datetime.now(datetime.timezone.utc)
    rogue_key = ec.generate_private_key(ec.SECP256R1())
    rogue_ca = _certificate(_name("rogue CA"), rogue_key, _name("rogue CA"), rogue_key, ca=True,
                            start=now - datetime.timedelta(days=1), end=now + datetime.timedelta(days=30))
    ca_key = serialization.load_pem_private_key((made.root / "ca.key").read_bytes(), None)
    ca_name = x509.load_pem_x509_certificate(made.ca_crt.read_bytes()).subject
    out = {}
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _certificate(_name("app"), key, rogue_ca.subject, rogue_key, ca=False,
                        start=now - datetime.timedelta(days=1), end=now + datetime.timedelta(days=30))
    out["unknown CA"] = _repository(directory / "unknown-ca.pem", key, cert, made.ca_crt)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _certificate(_name("app"), key, ca_name, ca_key, ca=False,
                        start=now - datetime.timedelta(days=30), end=now - datetime.timedelta(days=1))
    out["expired"] = _repository(directory / "expired.pem", key, cert, made.ca_crt)
    return out
