"""Security at the receiving end of a message channel (RCVR, RQSTR, and a SVR answering a requester):
whether the channel may start -- its channel authentication records -- and with whose authority its
messages are put (MCAUSER, PUTAUT).  No sockets, no trio: server/mca/run.py asks :func:`admit` once the
ID exchange names the sending queue manager, and registry/channels/receivingend.py opens each target
queue with :func:`put_identity`'s user (docs/channels.md "Security", docs/decisions.md MCX1-MCX6).

IBM's order for an inbound message channel, as for a client (registry/security/chlauth.py) but with a
queue manager's name where a client has its user id: BLOCKADDR on the partner's address; then the
mapping record that matches best -- the most specific channel profile, then SSLPEERMAP, QMGRMAP (QMNAME
of the sending queue manager, "*" wildcards), ADDRESSMAP, then the most specific address; USERMAP never
matches a queue manager -- gives the user: USERSRC(MAP) its MCAUSER, CHANNEL the channel's MCAUSER (blank:
the user the channel agent runs as, ``mqm``), NOACCESS refused; last, the BLOCKUSER record of the most
specific matching profile refuses that user (``*MQADMIN``: any privileged user, so a receiver with a blank
MCAUSER is blocked by IBM's default back-stop ``SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('*MQADMIN')``).
"""

from __future__ import annotations

from qmlite.pcf import constants as C

from qmlite.registry.channels.sendingend import MCA_USER
from qmlite.registry.objects import values as V
from qmlite.registry.security import chlauth as CA
from qmlite.registry.security import vocab as A

# The mapping records a message channel is matched against, best first (chlauth.py's rank, less USERMAP).
_RANK = {A.MQCAUT_SSLPEERMAP: 0, A.MQCAUT_QMGRMAP: 1, A.MQCAUT_ADDRESSMAP: 2}


def _qmgr_matches(pattern: str, qmgr: str) -> bool:
    # QMNAME may hold "*" wildcards (IBM "SET CHLAUTH": QMNAME generic); queue manager names are case-sensitive
    return CA.channel_matches(pattern.strip() or "*", qmgr)


def _mapping(reg, channel: str, address: str, partner_qmgr: str, ssl_peer, ssl_issuer):
    best, best_key = None, None
    for rec in CA._records(reg):
        if rec.type not in _RANK or not CA.channel_matches(rec.profile, channel):
            continue
        if rec.type == A.MQCAUT_QMGRMAP and not _qmgr_matches(rec.qm_name, partner_qmgr):
            continue
        if rec.type == A.MQCAUT_SSLPEERMAP and not CA._peer_matches(rec, ssl_peer, ssl_issuer):
            continue
        if not CA.address_matches(rec.address, address):
            continue
        # Among QMGRMAP records the more specific QMNAME wins, as the more specific SSLPEER does.
        name = rec.qm_name if rec.type == A.MQCAUT_QMGRMAP else rec.ssl_peer if rec.type == A.MQCAUT_SSLPEERMAP else ""
        key = (CA.channel_specificity(rec.profile), _RANK[rec.type], (name.count("*"), -len(name)),
               CA._address_specificity(rec.address or "*"))
        if best_key is None or key < best_key:
            best, best_key = rec, key
    return best


def verdict(reg, channel, *, address: str, partner_qmgr: str, ssl_peer: list | None = None,
            ssl_issuer: list | None = None) -> CA.Verdict:
    """May receiving channel ``channel`` (its definition) start for ``partner_qmgr`` at ``address``, and
    as whom (the MCA user its puts are checked with under PUTAUT(DEF))?"""
    default_user = channel.mca_user.strip() or MCA_USER
    if reg.qmgr.chlauth_records != A.MQCHLA_ENABLED:
        return CA.Verdict(True, default_user)
    name, warned = channel.name, []
    refusal = CA.address_block(reg, name, address, "", warned)
    if refusal is not None:
        return refusal
    user = default_user
    mapping = _mapping(reg, name, address, partner_qmgr, ssl_peer, ssl_issuer)
    if mapping is not None:
        if mapping.user_source == A.MQUSRC_NOACCESS:
            refusal = CA._refuse(mapping, user, "USERSRC(NOACCESS)", name, CA.BLOCKED_NOACCESS, warned)
            if refusal is not None:
                return refusal
        elif mapping.user_source == A.MQUSRC_MAP:
            user = mapping.mca_user.strip() or default_user
    refusal = CA.user_block(reg, name, user, warned)
    if refusal is not None:
        return refusal
    return CA.Verdict(True, user, warnings=tuple(warned), rule=mapping)


def admit(reg, events, channel, *, address: str, partner_qmgr: str, ssl_peer: list | None = None,
          ssl_issuer: list | None = None) -> CA.Verdict:
    """:func:`verdict`, with what IBM does about it: a refusal written to the error log (AMQ9782E,
    AMQ9777E, AMQ9776E) and the recent refusals, a block a WARN(YES) record let through written as its
    warning; each raises the Channel Blocked event (CHLEV) with its qualifier."""
    answer = verdict(reg, channel, address=address, partner_qmgr=partner_qmgr, ssl_peer=ssl_peer,
                     ssl_issuer=ssl_issuer)
    diagnostics = reg.diagnostics
    for qualifier, user, rec in answer.warnings:
        if diagnostics is not None:
            diagnostics.chlauth_warned(qualifier, rec, channel=channel.name, address=address, client_user="",
                                       user=user, appl=partner_qmgr)
        events.channel_blocked(qualifier=qualifier, warning=True, channel=channel.name, conname=address, user=user)
    if not answer.allowed:
        if diagnostics is not None:
            diagnostics.chlauth_refused(answer, channel=channel.name, address=address, client_user="",
                                        appl=partner_qmgr, qmname=partner_qmgr)
        events.channel_blocked(qualifier=answer.blocked, warning=False, channel=channel.name, conname=address,
                               user=answer.user)
    return answer


def put_identity(channel, mca_user: str, md) -> str:
    """The user a message's put is checked as: PUTAUT(DEF) the MCA user (``mca_user``, what :func:`admit`
    gave), PUTAUT(CTX) the message's UserIdentifier (blank: the MCA user).  "" when that is the channel
    agent's own user, whose authority is never in question."""
    user = mca_user
    if channel.put_authority == V.MQPA_CONTEXT:
        user = (md.UserIdentifier or "").strip(" \x00") or mca_user
    return "" if user == MCA_USER else user


def open_options(base: int, user: str) -> int:
    """The receiving end's open options for a put checked as ``user`` (see :func:`put_identity`): with
    the alternate user's authority when there is one -- as IBM's MCA opens under PUTAUT(CTX) -- so the
    queue manager's own checks (registry/security/authority.py: put and setall on the target, or on the
    transmission queue it resolves to) apply to that user."""
    return base | C.MQOO_ALTERNATE_USER_AUTHORITY if user else base
