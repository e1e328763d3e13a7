"""Which file a key repository name (SSLKEYR, MQSCO KeyRepository, MQSSLKEYR) means, and the error a
repository that cannot be used raises: what keys/repository.py's rules need that does not need
``cryptography``, so a queue manager with no key repository starts without loading it (issue 24).
"""

from __future__ import annotations

import pathlib

MQRC_KEY_REPOSITORY_ERROR = 2381  # cmqc.h
KDB_HINT = ("a CMS .kdb key repository cannot be read by qmlite: convert it to PKCS#12 with "
            "'runmqakm -keydb -convert -db {path} -pw PASSWORD -new_format p12 -stash' "
            "(or export each certificate to PEM) and name the .p12 (or its stem) instead")


class KeyRepositoryError(Exception):
    """The repository cannot be used; ``reason`` is the MQRC a client reports (2381 unless said)."""

    def __init__(self, detail: str, reason: int = MQRC_KEY_REPOSITORY_ERROR, *, missing: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.reason = reason
        self.missing = missing  # nothing there at all (as opposed to something unreadable)


def resolve(path: str) -> pathlib.Path:
    """The file (or directory) a KeyRepository/SSLKEYR value names, by the rules in keys/repository.py's docstring."""
    if not path or not path.strip():
        raise KeyRepositoryError("no key repository named")
    p = pathlib.Path(path.strip()).expanduser()
    suffix = p.suffix.lower()
    if suffix == ".kdb":
        raise KeyRepositoryError(KDB_HINT.format(path=p))
    if p.is_dir():
        return p
    if suffix in (".p12", ".pfx", ".pem", ".crt"):
        if not p.is_file():
            raise KeyRepositoryError(f"key repository {p} not found", missing=True)
        return p
    for ext in (".p12", ".pem"):
        candidate = p.with_name(p.name + ext)
        if candidate.is_file():
            return candidate
    kdb = p.with_name(p.name + ".kdb")
    if kdb.is_file():
        raise KeyRepositoryError(KDB_HINT.format(path=kdb))
    raise KeyRepositoryError(f"key repository {p}: neither {p.name}.p12 nor {p.name}.pem found", missing=True)
