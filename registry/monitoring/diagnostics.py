"""What the queue manager writes about itself for people: its error log (AMQERR01.LOG, IBM's messages)
and its list of recent refusals (docs/errorlog.md).

``registry.diagnostics`` (one per queue manager, made by the QueueManager) is told where things happen:
the queue manager's start and end and its listener (beside the start/stop events), each refusal where the
domain decides it -- the CHLAUTH check (registry/security/chlauth.py), the authority checks (through the
authority events' methods, registry/monitoring/events.py, which run whether or not the event is switched
on), connection authentication, the channel's TLS rules and the key repository (server/tls.py), a channel
that is unknown or at its instance limits.  For each it writes IBM's message (errorlog/amqmessages.py) with
IBM's inserts, and adds a :class:`~qmlite.registry.security.refusals.Refusal` saying who, what, which rule
or authority, and the MQSC that would allow it.  Writing never fails the caller (errorlog/writer.py).
"""

from __future__ import annotations

import os
import pathlib
import time

from qmlite.pcf import constants as C

from qmlite.registry.monitoring.errorlog import consolelog as CON
from qmlite.registry.monitoring.errorlog import amqmessages as AMQ
from qmlite.registry.monitoring.errorlog import writer
from qmlite.registry.security import refusals as RF
from qmlite.registry.security import vocab as A

OBJTYPES = {C.MQOT_Q: "QUEUE", C.MQOT_TOPIC: "TOPIC", C.MQOT_Q_MGR: "QMGR", C.MQOT_NAMELIST: "NAMELIST",
            C.MQOT_PROCESS: "PROCESS"}  # SET AUTHREC's OBJTYPE for an MQOPEN's object
_USRC = {A.MQUSRC_MAP: "MAP", A.MQUSRC_NOACCESS: "NOACCESS", A.MQUSRC_CHANNEL: "CHANNEL"}
_CHCK = {C.MQCHK_NONE: "NONE", C.MQCHK_OPTIONAL: "OPTIONAL", C.MQCHK_REQUIRED: "REQUIRED",
         C.MQCHK_REQUIRED_ADMIN: "REQDADM", C.MQCHK_AS_Q_MGR: "ASQMGR"}
_TYPES = {A.MQCAUT_BLOCKUSER: "BLOCKUSER", A.MQCAUT_BLOCKADDR: "BLOCKADDR", A.MQCAUT_SSLPEERMAP: "SSLPEERMAP",
          A.MQCAUT_ADDRESSMAP: "ADDRESSMAP", A.MQCAUT_USERMAP: "USERMAP", A.MQCAUT_QMGRMAP: "QMGRMAP"}
Q = RF.quote


def errors_dir(data_dir: pathlib.Path) -> pathlib.Path:
    """``errors`` in the queue manager's own data directory, as IBM's /var/mqm/qmgrs/QM1/errors is in its
    queue manager's: ``<data dir>/errors`` for the default queue manager (whose data directory is the
    server's), ``<data dir>/qmgrs/<qm>/errors`` for a hosted one (docs/multiqm.md; docs/decisions.md EL2)."""
    return pathlib.Path(data_dir) / "errors"


def auth_names(auths) -> list[str]:
    """SET AUTHREC's names for authorities (PUT, GET, ...), in the order given."""
    from qmlite.registry.mqsc.keywords import AUTHS  # the one table of MQSC's authority names

    names = {value: key for key, value in AUTHS.items()}
    return [names.get(a, str(a)) for a in auths]


class Diagnostics:
    def __init__(self, registry) -> None:
        self.registry = registry
        self.refusals = RF.Refusals()
        self.log: writer.ErrorLog | None = None  # set by the server (its data directory and ErrorLogSize)
        self._chlauth_refused: tuple | None = None  # (channel, address) of the CHLAUTH refusal just written

    @property
    def qmgr(self) -> str:
        return self.registry.qmgr.name

    def open_log(self, directory: pathlib.Path, *, max_bytes: int = writer.DEFAULT_SIZE) -> writer.ErrorLog:
        self.log = writer.ErrorLog(directory, max_bytes=max_bytes)
        return self.log

    # ---- writing ------------------------------------------------------------------------------------
    def write(self, number: str, *, remote_host: str = "", **inserts) -> writer.Entry:
        """Write IBM's message ``number`` with its inserts (a1, a2, c1-c3) to the error log, and mirror it
        to the console when ``qmlite serve`` installed one."""
        entry = writer.Entry(AMQ.get(number), time.time(), self.qmgr, inserts, remote_host, writer.thread_number())
        log = self.log
        if log is not None:
            record = log.write(entry)
            out = CON.installed()
            if out is not None:
                out.entry(record)
        return entry

    def _refuse(self, kind: str, reason: int, entry: writer.Entry | None, *, detail: str = "", **fields) -> RF.Refusal:
        """Keep a refusal; its detail is the error log's message when one was written."""
        return self.refusals.add(time=writer.utc_stamp(time.time()), kind=kind, reason=reason,
                                 reason_name=C.describe("MQRC", reason),
                                 message_id=entry.number if entry is not None else "",
                                 detail=entry.text() if entry is not None else detail, **fields)

    # ---- start and end ------------------------------------------------------------------------------
    def started(self) -> None:
        """The queue manager is running: AMQ8003I, its listener's AMQ5026I (the default queue manager's,
        which owns the port), then AMQ5806I -- the order IBM's container prints them (EL5)."""
        self.write("AMQ8003I", c1=writer.VRMF, c3=self.qmgr)  # IBM's inserts: the version, the queue manager
        running = self.registry.running
        if running.served_listener:
            self.write("AMQ5026I", a1=running.served_pid or os.getpid(), c1=running.served_listener)
        self.write("AMQ5806I", c1=self.qmgr)

    def ended(self) -> None:
        self.write("AMQ8004I", c3=self.qmgr)

    # ---- CHLAUTH (registry/security/chlauth.py decides) -----------------------------------------------
    def chlauth_refused(self, verdict, *, channel: str, address: str, client_user: str, appl: str = "",
                        qmname: str = "") -> None:
        """``qmname``: the sending queue manager of a message channel (registry/channels/access.py), whose
        active values IBM names by QMNAME where a client's are its CLNTUSER."""
        from qmlite.registry.security import chlauth

        rec = verdict.rule
        rule = _record_mqsc(rec) if rec is not None else ""
        # A refusal that is not a block goes on to the authority event (connect_refused): not written twice.
        self._chlauth_refused = None if verdict.blocked else (channel, address)
        user = verdict.user or client_user
        if verdict.blocked == chlauth.BLOCKED_ADDRESS:
            entry = self.write("AMQ9782E", remote_host=address, c1=address)
            rest = tuple(a for a in (rec.addr_list if rec else ()) if not chlauth.address_matches(a, address))
            fix = (f"SET CHLAUTH({Q(rec.profile if rec else '*')}) TYPE(BLOCKADDR) "
                   + (f"ADDRLIST({', '.join(Q(a) for a in rest)}) ACTION(REPLACE)" if rest else "ACTION(REMOVE)"))
        elif verdict.blocked == chlauth.BLOCKED_USERID:
            entry = self.write("AMQ9776E", remote_host=address, c1=channel, c2=address,
                               c3=f"MCAUSER({user}) {f'QMNAME({qmname})' if qmname else f'CLNTUSER({client_user})'} "
                                  f"ADDRESS({address})")
            # A BLOCKUSER record on the channel itself is the one that applies (the most specific), as the
            # developer container gives its DEV channels USERLIST('nobody') against the generic *MQADMIN one.
            fix = f"SET CHLAUTH({Q(channel)}) TYPE(BLOCKUSER) USERLIST('nobody') ACTION(REPLACE)"
        elif verdict.blocked == chlauth.BLOCKED_NOACCESS:
            who = f"QMNAME({qmname})" if qmname else f"CLNTUSER({client_user})"
            entry = self.write("AMQ9777E", remote_host=address, c1=channel, c2=address, c3=f"{who} ADDRESS({address})")
            if qmname:
                fix = (f"SET CHLAUTH({Q(channel)}) TYPE(QMGRMAP) QMNAME({Q(qmname)}) USERSRC(CHANNEL) "
                       "ACTION(REPLACE)")
            elif rec is not None and rec.type == A.MQCAUT_USERMAP:
                fix = (f"SET CHLAUTH({Q(channel)}) TYPE(USERMAP) CLNTUSER({Q(client_user)}) USERSRC(CHANNEL) "
                       "ACTION(REPLACE)")
            else:
                fix = (f"SET CHLAUTH({Q(channel)}) TYPE(ADDRESSMAP) ADDRESS({Q(address)}) USERSRC(CHANNEL) "
                       "ACTION(REPLACE)")
        elif verdict.needs_password:
            # AMQ5540E alone: IBM's AMQ5542I names the CONNAUTH AUTHINFO, not a CHLAUTH record, and the
            # number of IBM's companion for a record's CHCKCLNT is not known (docs/decisions.md EL14).
            entry = self.write("AMQ5540E", remote_host=address, c1=appl or "unknown")
            fix = (_record_mqsc(rec, check_client=C.MQCHK_AS_Q_MGR) + " ACTION(REPLACE)") if rec is not None else ""
        else:  # no user to run the channel as
            entry = None
            fix = f"ALTER CHANNEL({Q(channel)}) CHLTYPE(SVRCONN) MCAUSER('app')"
        self._refuse(RF.CHLAUTH, verdict.reason or C.MQRC_NOT_AUTHORIZED, entry, user=client_user, address=address,
                     channel=channel, appl=appl, rule=rule or verdict.why, mqsc=(fix,) if fix else (),
                     detail=verdict.why)

    def chlauth_warned(self, qualifier: int, rec, *, channel: str, address: str, client_user: str, user: str,
                       appl: str = "") -> None:
        """A block a WARN(YES) record let through (chlauth.check): IBM's warning, AMQ9785W (BLOCKADDR),
        AMQ9786W (USERSRC(NOACCESS)) or AMQ9787W (BLOCKUSER).  Not a refusal: the channel started, so the
        recent refusals do not list it (the Channel Blocked event, MQRC_CHANNEL_BLOCKED_WARNING, is raised
        by server/authentication.py)."""
        from qmlite.registry.security import chlauth

        if qualifier == chlauth.BLOCKED_ADDRESS:
            self.write("AMQ9785W", remote_host=address, c1=address)
        elif qualifier == chlauth.BLOCKED_USERID:
            self.write("AMQ9787W", remote_host=address, c1=channel, c2=address,
                       c3=f"MCAUSER({user}) CLNTUSER({client_user}) ADDRESS({address})")
        else:
            self.write("AMQ9786W", remote_host=address, c1=channel, c2=address,
                       c3=f"CLNTUSER({client_user}) ADDRESS({address})")

    # ---- connection authentication and connect authority (events.not_authorized_connect) ---------------
    def connect_refused(self, *, qualifier: int, user: str, appl: str, channel: str, address: str) -> None:
        from qmlite.registry.monitoring import events as E
        from qmlite.registry.objects import endpoints
        from qmlite.registry.security import authrecs

        if self._chlauth_refused is not None and self._chlauth_refused == (channel, address):
            self._chlauth_refused = None  # the CHLAUTH refusal just written is this one
            return
        self._chlauth_refused = None
        reg = self.registry
        if qualifier == E.MQRQ_CSP_NOT_AUTHORIZED:
            # IBM's pair: AMQ5534E (its third insert 'N/A' when the repository gives no more), then AMQ5542I
            # naming CONNAUTH's AUTHINFO and its CHCKCLNT (docs/decisions.md EL14).
            entry = self.write("AMQ5534E", remote_host=address, c1=user, c2=appl, c3="N/A")
            connauth = (reg.qmgr.conn_auth or "").strip()
            info = reg.objects(endpoints.AUTHINFO).get(connauth)
            check = _CHCK.get(info.check_client, "REQDADM") if info is not None else "REQDADM"
            self.write("AMQ5542I", remote_host=address, c1=user, c2=connauth, c3=f"CHCKCLNT({check})")
            self._refuse(RF.PASSWORD, C.MQRC_NOT_AUTHORIZED, entry, user=user, address=address, channel=channel,
                         appl=appl, rule=f"CONNAUTH({connauth})" if connauth else "CONNAUTH",
                         detail="the user id and password did not check")
            return
        if user and not authrecs.has(reg, user, C.MQOT_Q_MGR, authrecs.QMGR_PROFILE, A.MQAUTH_CONNECT):
            self.not_authorized(user=user, object_type=C.MQOT_Q_MGR, name=self.qmgr, auths=[A.MQAUTH_CONNECT],
                                channel=channel, address=address, appl=appl)
            return
        entry = self.write("AMQ9557E", remote_host=address, a1=C.MQCC_FAILED, a2=C.MQRC_NOT_AUTHORIZED, c1=user,
                           c2=user, c3=user)
        self._refuse(RF.CHANNEL, C.MQRC_NOT_AUTHORIZED, entry, user=user, address=address, channel=channel,
                     appl=appl, rule="MCAUSER is a privileged user",
                     mqsc=(f"ALTER CHANNEL({Q(channel)}) CHLTYPE(SVRCONN) MCAUSER('app')",) if channel else ())

    # ---- authority (security/authority.py refuses; events.py's authority methods report) --------------
    def not_authorized(self, *, user: str, object_type: int, name: str, auths, channel: str = "",
                       address: str = "", appl: str = "", profile: str | None = None) -> None:
        names = auth_names(auths)
        objtype = OBJTYPES.get(object_type) or _objtype_name(object_type)
        entry = self.write("AMQ8077W", remote_host=address, c1=user, c2=name, c3=",".join(n.lower() for n in names))
        target = f"PROFILE({Q(profile if profile is not None else name)}) " if object_type != C.MQOT_Q_MGR else ""
        fix = f"SET AUTHREC {target}OBJTYPE({objtype}) PRINCIPAL({Q(user)}) AUTHADD({','.join(names)})"
        self._refuse(RF.AUTHORITY, C.MQRC_NOT_AUTHORIZED, entry, user=user, address=address, channel=channel,
                     appl=appl, object=name, object_type=objtype, missing=tuple(names), mqsc=(fix,) if names else ())

    def command_refused(self, user: str, command: int, refused: tuple | None) -> None:
        """A command (PCF, MQSC, REST) the user's authority records do not allow (security/commandauthority.py
        names what was missing: the object type, the profile, the authority)."""
        if refused is None:
            self._refuse(RF.AUTHORITY, C.MQRC_NOT_AUTHORIZED, None, user=user,
                         detail=f"{C.describe('MQCMD', command)}: not authorized")
            return
        object_type, profile, authority = refused
        name = self.qmgr if object_type == C.MQOT_Q_MGR else profile
        self.not_authorized(user=user, object_type=object_type, name=name, auths=[authority], profile=profile)

    def open_refused(self, session, od, options: int, topic_string: str = "") -> None:
        from qmlite.registry.security import authority, authrecs

        reg = self.registry
        who = dict(channel=session.channel, address=session.conname, appl=(session.appl_name or "").strip())
        alternate = od.AlternateUserId if options & C.MQOO_ALTERNATE_USER_AUTHORITY else ""
        if alternate and not authrecs.has(reg, session.user, C.MQOT_Q_MGR, authrecs.QMGR_PROFILE,
                                          A.MQAUTH_ALT_USER_AUTHORITY):
            self.not_authorized(user=session.user, object_type=C.MQOT_Q_MGR, name=self.qmgr,
                                auths=[A.MQAUTH_ALT_USER_AUTHORITY], **who)
            return
        user = (alternate or "").strip() or session.user
        if od.ObjectType == C.MQOT_TOPIC:
            governing = authority.governing_topics(reg, topic_string)
            self.not_authorized(user=user, object_type=C.MQOT_TOPIC, name=topic_string,
                                profile=governing[0] if governing else "SYSTEM.BASE.TOPIC",
                                auths=[A.MQAUTH_PUBLISH] if options & C.MQOO_OUTPUT else authority.needed(options),
                                **who)
            return
        name = od.ObjectName.strip() or self.qmgr
        kind = od.ObjectType if od.ObjectType in OBJTYPES else C.MQOT_Q
        profile = authrecs.QMGR_PROFILE if kind == C.MQOT_Q_MGR else name
        wanted = authority.needed(options)
        if kind == C.MQOT_Q_MGR:
            wanted = [a for a in wanted if a == A.MQAUTH_INQUIRE]
        missing = [a for a in wanted if not authrecs.has(reg, user, kind, profile, a)] or wanted
        self.not_authorized(user=user, object_type=kind, name=self.qmgr if kind == C.MQOT_Q_MGR else name,
                            auths=missing, **who)

    def subscribe_refused(self, session, topic_string: str) -> None:
        from qmlite.registry.security import authority

        governing = authority.governing_topics(self.registry, topic_string)
        self.not_authorized(user=session.user, object_type=C.MQOT_TOPIC, name=topic_string,
                            profile=governing[0] if governing else "SYSTEM.BASE.TOPIC", auths=[A.MQAUTH_SUBSCRIBE],
                            channel=session.channel, address=session.conname, appl=(session.appl_name or "").strip())

    # ---- the channel: TLS, the key repository, its limits -----------------------------------------------
    def tls_refused(self, *, channel: str, address: str, refusal) -> None:
        """The channel's TLS rules refused the client (server/tls.py ``check``: its Refusal names IBM's
        message, the inserts and the MQSC that would allow it)."""
        from qmlite.pcf import fap

        entry = self.write(refusal.number, remote_host=address, **dict(refusal.inserts)) if refusal.number else None
        reason = {fap.PEER_NAME: C.MQRC_SSL_PEER_NAME_MISMATCH}.get(refusal.code, C.MQRC_SSL_INITIALIZATION_ERROR)
        self._refuse(RF.TLS, reason, entry, address=address, channel=channel,
                     rule=fap.status_code_name(refusal.code) or str(refusal.code),
                     mqsc=(refusal.fix,) if refusal.fix else (), detail=refusal.message)

    def tls_handshake_failed(self, *, address: str, number: str, why: str, channel: str = "") -> None:
        """A TLS handshake that failed before the channel was named (server/tls.py): the client's CipherSpec
        or protocol not accepted (AMQ9616E), its certificate missing (AMQ9637E) or not trusted (AMQ9633E),
        or the client ending the handshake, most often because it does not trust the queue manager's
        certificate (AMQ9665E).  ``channel``: the one the client's SNI named, if any; without one the entry
        says '????', as IBM's does before the channel is known, and the fix names no channel."""
        named = channel or "????"
        inserts = {"c1": named} if number == "AMQ9637E" else {"c1": named, "c2": address}
        entry = self.write(number, remote_host=address, **inserts)
        target = Q(channel) if channel else "'channel'"
        fixes = {"AMQ9637E": (f"ALTER CHANNEL({target}) CHLTYPE(SVRCONN) SSLCAUTH(OPTIONAL)",),
                 "AMQ9616E": (f"ALTER CHANNEL({target}) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER)",)}
        self._refuse(RF.TLS, C.MQRC_SSL_INITIALIZATION_ERROR, entry, address=address, channel=channel,
                     rule=f"TLS handshake: {why}", mqsc=fixes.get(number, ()))

    def key_repository_failed(self, why: str, channel: str = "????") -> None:
        entry = self.write("AMQ9657E", c1=channel)
        self._refuse(RF.TLS, C.MQRC_KEY_REPOSITORY_ERROR, entry, channel="" if channel == "????" else channel,
                     rule=why, mqsc=("ALTER QMGR SSLKEYR('/etc/mqm/pki/keys') CERTLABL(' ')",
                                     "REFRESH SECURITY TYPE(SSL)"))

    def dead_letter_failed(self, reason: int, dlh_reason: int = 0) -> None:
        """The command server could not put a message it rejects to the dead-letter queue (full,
        put-inhibited or not defined: ``reason``): AMQ8507E.  The message is lost; no client was refused."""
        self.write("AMQ8507E", a1=reason, a2=dlh_reason)

    def max_channels(self, *, address: str, limit: int) -> None:
        """The server's connection limit (``--max-connections``, IBM's MaxChannels): AMQ9513E."""
        entry = self.write("AMQ9513E", remote_host=address)
        self._refuse(RF.CHANNEL, C.MQRC_MAX_CONNS_LIMIT_REACHED, entry, address=address,
                     rule=f"max connections {limit} (qm.ini MaxChannels)",
                     detail="qmlite serve --max-connections (docs/compat.md)")

    def channel_refused(self, *, channel: str, address: str, why: str, definition=None) -> None:
        """Unknown channel (AMQ9519E), MAXINST (AMQ9489I), MAXINSTC (AMQ9490E), or stopped."""
        if why == "MAXINST reached" and definition is not None:
            limit = definition.max_instances
            entry = self.write("AMQ9489I", remote_host=address, a1=limit, c1=channel)
            fix = f"ALTER CHANNEL({Q(channel)}) CHLTYPE(SVRCONN) MAXINST({max(2 * limit, limit + 1)})"
        elif why == "MAXINSTC reached" and definition is not None:
            limit = definition.max_instances_per_client
            entry = self.write("AMQ9490E", remote_host=address, a1=limit, c1=channel, c2=address)
            fix = f"ALTER CHANNEL({Q(channel)}) CHLTYPE(SVRCONN) MAXINSTC({max(2 * limit, limit + 1)})"
        elif why == "unknown channel":
            entry = self.write("AMQ9519E", remote_host=address, c1=channel)
            fix = f"DEFINE CHANNEL({Q(channel)}) CHLTYPE(SVRCONN) TRPTYPE(TCP)"
        elif why == "channel stopped":
            entry, fix = None, f"START CHANNEL({Q(channel)})"
        else:
            entry, fix = None, ""
        reason = C.MQRC_UNKNOWN_CHANNEL_NAME if why == "unknown channel" else C.MQRC_CHANNEL_NOT_AVAILABLE
        self._refuse(RF.CHANNEL, reason, entry, address=address, channel=channel, rule=why,
                     mqsc=(fix,) if fix else (), detail=why)


def _objtype_name(object_type: int) -> str:
    """SET AUTHREC's OBJTYPE for any object type (CHANNEL, AUTHINFO, LISTENER ...)."""
    from qmlite.registry.mqsc.keywords import OBJTYPE  # the one table of MQSC's object type names

    names = [name for name, value in OBJTYPE.items() if value == object_type and name not in ("Q", "ALL")]
    return names[0] if names else C.describe("MQOT", object_type)


def _record_mqsc(rec, *, check_client: int | None = None) -> str:
    """The SET CHLAUTH command that would make ``rec`` (``check_client`` changed when given)."""
    kind = _TYPES.get(rec.type, str(rec.type))
    parts = [f"SET CHLAUTH({Q(rec.profile)}) TYPE({kind})"]
    if rec.type == A.MQCAUT_BLOCKUSER:
        parts.append(f"USERLIST({', '.join(Q(u) for u in rec.user_list)})")
    elif rec.type == A.MQCAUT_BLOCKADDR:
        parts.append(f"ADDRLIST({', '.join(Q(a) for a in rec.addr_list)})")
    else:
        if rec.type == A.MQCAUT_USERMAP:
            parts.append(f"CLNTUSER({Q(rec.clnt_user)})")
        if rec.type == A.MQCAUT_SSLPEERMAP:
            parts.append(f"SSLPEER({Q(rec.ssl_peer)})")
        if rec.address:
            parts.append(f"ADDRESS({Q(rec.address)})")
        parts.append(f"USERSRC({_USRC.get(rec.user_source, 'MAP')})")
        if rec.user_source == A.MQUSRC_MAP and rec.mca_user:
            parts.append(f"MCAUSER({Q(rec.mca_user)})")
        check = rec.check_client if check_client is None else check_client
        parts.append(f"CHCKCLNT({_CHCK.get(check, 'ASQMGR')})")
    return " ".join(parts)
