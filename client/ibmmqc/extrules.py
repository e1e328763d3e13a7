"""What the C extensions of IBM's ``ibmmq`` (``ibmmqc.c``) and of pymqi (``pymqe.c``) do to an MQCONNX's
structures before the MQI sees them.

``ibmmq`` and pymqi pack every structure in Python and let their C code adjust it: applications (and
the frameworks on them) set fields and leave ``Version`` alone, as both packages' documentation allows,
because the C code raises a structure's version when a field of a later version is set.  qmlite's
transport stands in for both the C extension and IBM's client library, so these adjustments are made
here, once, before the MQI's own rules (``_mqi``, ``resolve``) read the versions.  Every rule, with the
line of the extension's source it comes from, is listed in docs/extension-rules.md.

Only pure functions on bytes: no connection, no socket.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from qmlite.pcf import constants as C

from . import native as N


@dataclass(frozen=True, slots=True)
class Connx:
    """MQCONNX's structures as the MQI receives them: ``bno`` is the MQBNO the MQCNO points at
    (None when no balancing options reach the MQI)."""

    cno: bytes | None
    cd: bytes | None
    csp: bytes | None
    sco: bytes | None
    bno: bytes | None


def _int(layout: N.Layout, buf: bytearray, name: str) -> int | None:
    """A member's value, or None when ``buf`` ends before it (a back-level structure: no such field)."""
    f = layout.by_name[name]
    if len(buf) < f.offset + f.nbytes:
        return None
    return struct.unpack_from("@" + f.code, buf, f.offset)[0]


def _raise_version(layout: N.Layout, buf: bytearray, version: int) -> None:
    """Version = ``version`` when lower, as the extension writes it into the caller's structure."""
    current = _int(layout, buf, "Version")
    if current is not None and current < version:
        struct.pack_into("@i", buf, layout.by_name["Version"].offset, version)


def _buffer(value) -> bytearray | None:
    """A ``z#`` argument: None stays None, ``str`` is UTF-8 (PyArg_ParseTuple), bytes are copied (the
    caller's object is never changed: ibmmq packs a fresh one for every call anyway)."""
    if value is None:
        return None
    if isinstance(value, str):
        return bytearray(value.encode("utf-8"))
    return bytearray(value)


def ibmmq_connx(cno, cd, csp, sco, bno) -> Connx:
    """ibmmqc.c (ibmmq 2.1.2) ``ibmmqc_MQCONNX``, lines 628-714, in its order:

    * the MQCNO is raised to version 6 whatever it holds (so a CCDTUrl ibmmq points it at is read);
    * an MQCD with SPLProtection set is raised to version 12, one with QuantumSafeAlgorithm or
      QuantumSafeRequired set to 13;
    * an MQCNO whose ApplName starts with neither NUL nor a blank is raised to version 7;
    * an MQSCO with KeyRepoPasswordPtr set is raised to version 6, one with HTTPSCertValidation,
      HTTPSCertRevocation or HTTPSKeyStorePtr set to 7;
    * an MQBNO raises the MQCNO to version 8 and is pointed at -- only when the MQCNO was below 8: an
      MQCNO the application made version 8 keeps its own BalanceParmsPtr (ibmmq leaves it null);
    * the MQCD, MQSCO and MQCSP given replace the MQCNO's ClientConnPtr, SSLConfigPtr and
      SecurityParmsPtr (the transport takes them as arguments: ``_mqi.connx``).
    """
    cno_b, cd_b, sco_b = _buffer(cno), _buffer(cd), _buffer(sco)
    if cno_b is not None:
        _raise_version(N.MQCNO, cno_b, C.MQCNO_VERSION_6)
    if cd_b is not None:
        if _int(N.MQCD, cd_b, "SPLProtection"):
            _raise_version(N.MQCD, cd_b, 12)
        if max(_int(N.MQCD, cd_b, "QuantumSafeAlgorithm") or 0, _int(N.MQCD, cd_b, "QuantumSafeRequired") or 0) > 0:
            _raise_version(N.MQCD, cd_b, 13)
    if cno_b is not None:
        f = N.MQCNO.by_name["ApplName"]
        if len(cno_b) > f.offset and cno_b[f.offset] not in (0, 0x20):
            _raise_version(N.MQCNO, cno_b, C.MQCNO_VERSION_7)
    if sco_b is not None:
        if _int(N.MQSCO, sco_b, "KeyRepoPasswordPtr"):
            _raise_version(N.MQSCO, sco_b, C.MQSCO_VERSION_6)
        if (_int(N.MQSCO, sco_b, "HTTPSCertValidation") or _int(N.MQSCO, sco_b, "HTTPSCertRevocation")
                or _int(N.MQSCO, sco_b, "HTTPSKeyStorePtr")):
            _raise_version(N.MQSCO, sco_b, C.MQSCO_VERSION_7)
    bno_used = None
    if bno is not None and cno_b is not None:
        version = _int(N.MQCNO, cno_b, "Version")
        if version is not None and version < C.MQCNO_VERSION_8:
            _raise_version(N.MQCNO, cno_b, C.MQCNO_VERSION_8)
            bno_used = bytes(_buffer(bno))
    return Connx(_bytes(cno_b), _bytes(cd_b), _bytes(_buffer(csp)), _bytes(sco_b), bno_used)


def _bytes(buf: bytearray | None) -> bytes | None:
    return None if buf is None else bytes(buf)


# --------------------------------------------------------------------------------------------------
# pymqe.c (pymqi 1.12.13)
# --------------------------------------------------------------------------------------------------

def pymqe_cno(options: int) -> bytes:
    """pymqe.c ``pymqe_MQCONNX`` lines 315-390: an MQCNO built from MQCNO_DEFAULT at version 5 with the
    application's Options (no CCDTUrl, ApplName or MQBNO can reach it); the MQCD, MQSCO and the MQCSP
    made from the user/password dictionary are pointed at from it."""
    return N.MQCNO.encode({"Version": C.MQCNO_VERSION_5, "Options": options}, length=N.MQCNO.size_of(5))


# --------------------------------------------------------------------------------------------------
# The MQI's side: an MQBNO the MQCNO points at
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Balance:
    """An MQBNO's balancing options (cmqc.h: ApplType, Timeout, Options)."""

    appl_type: int
    timeout: int
    options: int


_BNO = struct.Struct("@4siiii")
BNO_LENGTH = C.MQBNO_LENGTH_1
_BALTYPES = (C.MQBNO_BALTYPE_SIMPLE, C.MQBNO_BALTYPE_REQREP)
_RA_MANAGED = C.MQBNO_BALTYPE_RA_MANAGED  # a flag on either type
_TIMEOUTS = (C.MQBNO_TIMEOUT_AS_DEFAULT, C.MQBNO_TIMEOUT_IMMEDIATE, C.MQBNO_TIMEOUT_NEVER)
_OPTIONS = C.MQBNO_OPTIONS_IGNORE_TRANS


class BnoError(ValueError):
    reason = C.MQRC_BNO_ERROR


def balance(bno: bytes | None) -> Balance | None:
    """The MQBNO's options; BnoError (2602 MQRC_BNO_ERROR) for a structure the MQI refuses: not
    ``BNO ``, not version 1, shorter than version 1, an ApplType, Timeout or Options it does not know."""
    if bno is None:
        return None
    if not isinstance(bno, (bytes, bytearray)) or len(bno) < BNO_LENGTH:
        raise BnoError("MQBNO shorter than version 1")
    strucid, version, appl_type, timeout, options = _BNO.unpack_from(bno)
    if strucid != C.MQBNO_STRUC_ID or version != C.MQBNO_VERSION_1:
        raise BnoError(f"MQBNO StrucId {strucid!r} Version {version}")
    if appl_type & ~_RA_MANAGED not in _BALTYPES:
        raise BnoError(f"MQBNO ApplType {appl_type}")
    if timeout not in _TIMEOUTS and not 0 < timeout <= 999_999_999:
        raise BnoError(f"MQBNO Timeout {timeout}")
    if options & ~_OPTIONS:
        raise BnoError(f"MQBNO Options {options}")
    return Balance(appl_type, timeout, options)


def read_bno_at(ptr: int) -> bytes:
    """The MQBNO an application's own MQCNO v8 BalanceParmsPtr points at."""
    return N.read_pointer(ptr, BNO_LENGTH)

