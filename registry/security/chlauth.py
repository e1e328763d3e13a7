"""Channel authentication records (SET CHLAUTH) and the check a connection makes against them.

Records are a generic kind (registry/objects/generic.py).  A blocking record (BLOCKUSER, BLOCKADDR) is one
per channel profile holding a list; a mapping record (ADDRESSMAP, USERMAP, SSLPEERMAP, QMGRMAP) is
one per profile and identity (address, client user, peer name, queue manager name).

:func:`check` is what a server asks when a client connects on a server-connection channel: may it,
and as which user (the MCA user)?  IBM's order: BLOCKADDR on the address; then the mapping record
that matches best (the most specific channel profile, then SSLPEERMAP, USERMAP, QMGRMAP, ADDRESSMAP,
then the most specific address) gives the user (USERSRC MAP: its MCAUSER; CHANNEL: the channel's
MCAUSER, else the client's user id; NOACCESS: refused) and may demand a password (CHCKCLNT);
connection authentication with ADOPTCTX(YES) then makes the authenticated user the MCA user; last,
the BLOCKUSER record of the most specific matching channel profile refuses that user (``*MQADMIN``:
any privileged user).  A refusal is MQRC_NOT_AUTHORIZED; WARN(YES) records log and let it in.
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import re

import structlog
from qmlite.pcf import constants as C
from qmlite.pcf import dn

from qmlite.registry.security import authrecs
from qmlite.registry.security import vocab as A
from qmlite.registry.objects import generic

log = structlog.get_logger("qmlite.chlauth")

KIND = "chlauth"
MQADMIN = "*MQADMIN"
TYPE_NAMES = {A.MQCAUT_BLOCKUSER: "blockuser", A.MQCAUT_BLOCKADDR: "blockaddr", A.MQCAUT_SSLPEERMAP: "sslpeermap",
              A.MQCAUT_ADDRESSMAP: "addressmap", A.MQCAUT_USERMAP: "usermap", A.MQCAUT_QMGRMAP: "qmgrmap"}
BLOCKING = (A.MQCAUT_BLOCKUSER, A.MQCAUT_BLOCKADDR)
_MAP_RANK = {A.MQCAUT_SSLPEERMAP: 0, A.MQCAUT_USERMAP: 1, A.MQCAUT_QMGRMAP: 2, A.MQCAUT_ADDRESSMAP: 3}


@dataclasses.dataclass(slots=True)
class ChlauthRecord:
    name: str  # the store key: record_key(...)
    profile: str = ""
    type: int = A.MQCAUT_ADDRESSMAP
    address: str = ""
    addr_list: tuple = ()
    user_list: tuple = ()
    clnt_user: str = ""
    qm_name: str = ""
    ssl_peer: str = ""
    ssl_cert_issuer: str = ""
    user_source: int = A.MQUSRC_MAP
    mca_user: str = ""
    check_client: int = C.MQCHK_AS_Q_MGR
    warn: int = A.MQWARN_NO
    description: str = ""
    custom: str = ""
    created: float = 0.0
    altered: float = 0.0


def record_key(rec: ChlauthRecord) -> str:
    kind = TYPE_NAMES[rec.type]
    if rec.type in BLOCKING:
        return f"{kind}/{rec.profile}"
    identity = {A.MQCAUT_USERMAP: rec.clnt_user, A.MQCAUT_QMGRMAP: rec.qm_name,
                A.MQCAUT_SSLPEERMAP: f"{rec.ssl_peer}|{rec.ssl_cert_issuer}", A.MQCAUT_ADDRESSMAP: ""}[rec.type]
    return f"{kind}/{rec.profile}/{identity}/{rec.address}"


def make(profile: str, type_: int, **fields) -> ChlauthRecord:
    rec = ChlauthRecord("", profile, type_, **fields)
    rec.name = record_key(rec)
    return rec


def _defaults(dev: bool) -> list[ChlauthRecord]:
    """IBM's back-stop records of a new queue manager and the developer container's own
    (docs/reference/container.md).  Without the developer objects none are seeded: qmlite has no start-up MQSC that
    could open SYSTEM.DEF.SVRCONN again (docs/compat.md Part 5)."""
    if not dev:
        return []
    return [
        make("*", A.MQCAUT_BLOCKUSER, user_list=(MQADMIN,), description="Default rule to disallow privileged users"),
        make("SYSTEM.ADMIN.SVRCONN", A.MQCAUT_ADDRESSMAP, address="*", user_source=A.MQUSRC_CHANNEL,
             description="Default rule to allow MQ Explorer access"),
        make("SYSTEM.*", A.MQCAUT_ADDRESSMAP, address="*", user_source=A.MQUSRC_NOACCESS,
             description="Default rule to disable all SYSTEM channels"),
        make("*", A.MQCAUT_ADDRESSMAP, address="*", user_source=A.MQUSRC_NOACCESS,
             description="Back-stop rule - Blocks everyone"),
        make("DEV.APP.SVRCONN", A.MQCAUT_ADDRESSMAP, address="*", user_source=A.MQUSRC_CHANNEL,
             check_client=C.MQCHK_AS_Q_MGR, description="Allows connection via APP channel"),
        make("DEV.ADMIN.SVRCONN", A.MQCAUT_BLOCKUSER, user_list=("nobody",),
             description="Allows admins on ADMIN channel"),
        make("DEV.ADMIN.SVRCONN", A.MQCAUT_USERMAP, clnt_user="admin", user_source=A.MQUSRC_MAP, mca_user="mqm",
             check_client=C.MQCHK_AS_Q_MGR, description="Allows admin user to connect via ADMIN channel"),
    ]


generic.register(generic.GenericKind(KIND, ChlauthRecord, _defaults))


# ---- matching -------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)
def _star(pattern: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")) + r"\Z")


def channel_matches(profile: str, channel: str) -> bool:
    return profile == channel if "*" not in profile else bool(_star(profile).match(channel))


def channel_specificity(profile: str) -> tuple:
    """Most specific first: an exact name, then more characters before the first "*"."""
    if "*" not in profile:
        return (0, 0)
    return (1, -profile.index("*"), profile.count("*"))


def valid_address(pattern: str) -> bool:
    """An address filter: "*", an IPv4 address whose parts may be "*" or a range "a-b", an IPv6
    address, or a host name with "*" wildcards."""
    if pattern == "*":
        return True
    if re.fullmatch(r"[0-9*.\-]+", pattern):
        parts = pattern.split(".")
        if len(parts) > 4 or ("*" not in parts[-1] and len(parts) != 4):
            return False
        for part in parts:
            if part == "*":
                continue
            bounds = part.split("-")
            if len(bounds) > 2 or not all(b.isdigit() and int(b) <= 255 for b in bounds):
                return False
            if len(bounds) == 2 and int(bounds[0]) > int(bounds[1]):
                return False
        return True
    try:
        ipaddress.ip_address(pattern)
        return True
    except ValueError:
        return bool(re.fullmatch(r"[A-Za-z0-9*.\-:]+", pattern))


def address_matches(pattern: str, address: str) -> bool:
    if pattern in ("*", ""):
        return True
    if re.fullmatch(r"[0-9*.\-]+", pattern) and re.fullmatch(r"[0-9.]+", address):
        parts, octets = pattern.split("."), address.split(".")
        for i, part in enumerate(parts):
            if part == "*" and i == len(parts) - 1:
                return True  # a trailing "*" matches the remaining parts
            if i >= len(octets):
                return False
            if part == "*":
                continue
            low, _, high = part.partition("-")
            if not int(low) <= int(octets[i]) <= int(high or low):
                return False
        return len(parts) == len(octets)
    return bool(_star(pattern.lower()).match(address.lower()))


def _address_specificity(pattern: str) -> tuple:
    return (pattern.count("*"), pattern.count("-"), -len(pattern))


# ---- the check a connection makes -----------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    user: str  # the MCA user the connection runs as
    reason: int = C.MQRC_NONE
    why: str = ""
    # For channel events (registry/monitoring/events.py): why a refusal was a block (MQRQ_CHANNEL_BLOCKED_*,
    # 0 when it was not a CHLAUTH block), and the blocks WARN(YES) records let through: (qualifier, user, record).
    blocked: int = 0
    warnings: tuple = ()
    needs_password: bool = False  # refused by CHCKCLNT: no MQCSP user and password given
    rule: ChlauthRecord | None = None  # the record that refused (the error log and the refusals list name it)


def _records(reg) -> list[ChlauthRecord]:
    return list(reg.definitions.get(KIND, {}).values())


def _mapping(reg, channel: str, address: str, client_user: str, ssl_peer: list | None = None,
             ssl_issuer: list | None = None) -> ChlauthRecord | None:
    best, best_key = None, None
    for rec in _records(reg):
        if rec.type not in _MAP_RANK or not channel_matches(rec.profile, channel):
            continue
        if rec.type == A.MQCAUT_QMGRMAP:
            continue  # a client is no queue manager: these never match a client
        if rec.type == A.MQCAUT_SSLPEERMAP and not _peer_matches(rec, ssl_peer, ssl_issuer):
            continue  # only a TLS client's certificate (subject SSLPEER, issuer SSLCERTI) matches
        if rec.type == A.MQCAUT_USERMAP and rec.clnt_user != client_user:
            continue
        if not address_matches(rec.address, address):
            continue
        # Among SSLPEERMAP records the more specific SSLPEER wins (fewer wildcards, then the longer).
        peer = (rec.ssl_peer.count("*"), -len(rec.ssl_peer)) if rec.type == A.MQCAUT_SSLPEERMAP else (0, 0)
        key = (channel_specificity(rec.profile), _MAP_RANK[rec.type], peer, _address_specificity(rec.address or "*"))
        if best_key is None or key < best_key:
            best, best_key = rec, key
    return best


def _peer_matches(rec: ChlauthRecord, subject: list | None, issuer: list | None) -> bool:
    """IBM's SSLPEER rules (pcf/dn.py) on the client certificate's subject, and SSLCERTI, when given,
    on its issuer."""
    if not subject:
        return False
    try:
        if not dn.matches(rec.ssl_peer or "CN=*", subject):
            return False
        return not rec.ssl_cert_issuer.strip() or dn.matches(rec.ssl_cert_issuer, issuer or [])
    except dn.DNError:
        return False


def _blockuser(reg, channel: str) -> ChlauthRecord | None:
    found = [rec for rec in _records(reg) if rec.type == A.MQCAUT_BLOCKUSER and channel_matches(rec.profile, channel)]
    return min(found, key=lambda r: channel_specificity(r.profile)) if found else None


# cmqc.h MQRQ_CHANNEL_BLOCKED_*: why a channel was blocked, for the Channel Blocked event.
BLOCKED_ADDRESS, BLOCKED_USERID, BLOCKED_NOACCESS = 21, 22, 23


def _refuse(rec: ChlauthRecord, user: str, why: str, channel: str, qualifier: int, warned: list) -> Verdict | None:
    if rec.warn == A.MQWARN_YES:
        log.warning("chlauth_warn", channel=channel, user=user, rule=rec.name, why=why)
        warned.append((qualifier, user, rec))
        return None
    return Verdict(False, user, C.MQRC_NOT_AUTHORIZED, f"{why} ({rec.name})", blocked=qualifier,
                   warnings=tuple(warned), rule=rec)


def address_block(reg, channel: str, address: str, user: str, warned: list) -> Verdict | None:
    """BLOCKADDR: the refusal of a record listing ``address``; None when none does, or only WARN(YES) ones
    (each noted in ``warned``).  Client and message channels alike (registry/channels/access.py)."""
    for rec in _records(reg):
        if rec.type == A.MQCAUT_BLOCKADDR and any(address_matches(p, address) for p in rec.addr_list):
            refusal = _refuse(rec, user, "address blocked", channel, BLOCKED_ADDRESS, warned)
            if refusal is not None:
                return refusal
    return None


def user_block(reg, channel: str, user: str, warned: list) -> Verdict | None:
    """BLOCKUSER: the refusal of the most specific matching profile's record when it lists ``user`` (or
    ``*MQADMIN`` and ``user`` is privileged); None otherwise, a WARN(YES) one noted in ``warned``."""
    block = _blockuser(reg, channel)
    if block is not None and (user in block.user_list or (MQADMIN in block.user_list and authrecs.privileged(user))):
        return _refuse(block, user, "user blocked", channel, BLOCKED_USERID, warned)
    return None


def check(reg, *, channel: str, address: str, client_user: str, appl: str = "", **kwargs) -> Verdict:
    """:func:`verdict`, and a refusal written to the error log and the recent refusals (IBM's AMQ9776E,
    AMQ9777E, AMQ9782E, AMQ5540E: registry/monitoring/diagnostics.py); a block a WARN(YES) record let
    through is written as IBM's warning (AMQ9787W, AMQ9786W, AMQ9785W) and kept as a refusal that was not."""
    answer = verdict(reg, channel=channel, address=address, client_user=client_user, **kwargs)
    if reg.diagnostics is not None:
        for qualifier, user, rec in answer.warnings:
            reg.diagnostics.chlauth_warned(qualifier, rec, channel=channel, address=address, client_user=client_user,
                                           user=user, appl=appl)
    if not answer.allowed and reg.diagnostics is not None:
        reg.diagnostics.chlauth_refused(answer, channel=channel, address=address, client_user=client_user, appl=appl)
    return answer


def verdict(reg, *, channel: str, address: str, client_user: str, channel_mcauser: str = "",
            password_given: bool = False, authenticated_user: str | None = None,
            qmgr_check_client: int = C.MQCHK_REQUIRED_ADMIN, ssl_peer: list | None = None,
            ssl_issuer: list | None = None) -> Verdict:
    """May a client at ``address`` asserting ``client_user`` use server-connection ``channel``, and as
    whom?  ``authenticated_user``: the user connection authentication verified and adopts
    (ADOPTCTX(YES)), if any; ``qmgr_check_client``: the AUTHINFO's CHCKCLNT, for CHCKCLNT(ASQMGR);
    ``ssl_peer``/``ssl_issuer``: a TLS client's certificate subject and issuer DNs (attribute pairs, as
    pcf/dn.py matches them), which SSLPEERMAP records are matched against."""
    default_user = channel_mcauser or client_user
    if reg.qmgr.chlauth_records != A.MQCHLA_ENABLED:
        return Verdict(True, authenticated_user or default_user)
    warned: list = []
    refusal = address_block(reg, channel, address, client_user, warned)
    if refusal is not None:
        return refusal
    user = default_user
    mapping = _mapping(reg, channel, address, client_user, ssl_peer, ssl_issuer)
    if mapping is not None:
        if mapping.user_source == A.MQUSRC_NOACCESS:
            refusal = _refuse(mapping, client_user, "USERSRC(NOACCESS)", channel, BLOCKED_NOACCESS, warned)
            if refusal is not None:
                return refusal
        elif mapping.user_source == A.MQUSRC_MAP:
            user = mapping.mca_user
        check_client = mapping.check_client
        if check_client == C.MQCHK_AS_Q_MGR:
            check_client = qmgr_check_client
        if not password_given and (check_client == C.MQCHK_REQUIRED or (
                check_client == C.MQCHK_REQUIRED_ADMIN and authrecs.privileged(user))):
            return Verdict(False, user, C.MQRC_NOT_AUTHORIZED, f"CHCKCLNT needs a password ({mapping.name})",
                           warnings=tuple(warned), needs_password=True, rule=mapping)
    if authenticated_user:
        user = authenticated_user
    refusal = user_block(reg, channel, user, warned)
    if refusal is not None:
        return refusal
    if not user:
        return Verdict(False, user, C.MQRC_NOT_AUTHORIZED, "no user to run as", warnings=tuple(warned))
    return Verdict(True, user, warnings=tuple(warned))


def runtime_record(reg, channel: str, address: str, client_user: str = "") -> ChlauthRecord | None:
    """What Inquire CHLAUTH MATCH(RUNCHECK) reports: a blocking record that would refuse, else the
    mapping record that applies."""
    for rec in _records(reg):
        if rec.type == A.MQCAUT_BLOCKADDR and any(address_matches(p, address) for p in rec.addr_list):
            return rec
    block = _blockuser(reg, channel)
    if block is not None and client_user and client_user in block.user_list:
        return block
    return _mapping(reg, channel, address, client_user)
