"""The PCF command engine: a decoded command and who sent it in, response messages out.

Network-free.  Every effect of a command is committed to disk before its responses are returned
(``execute``), or, for several commands at once, before any of their responses is returned
(``execute_batch``: one fsync for the group).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import structlog

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf.errors import CodecError

from qmlite.registry.security import commandauthority
from qmlite.registry.monitoring import events as E
from qmlite.registry.admin import responses
from qmlite.registry.admin.params import CommandError
from qmlite.registry.storage.catalog import Registry

log = structlog.get_logger("qmlite.engine")

_COMMAND_TYPES = frozenset({C.MQCFT_COMMAND, C.MQCFT_COMMAND_XR})


@dataclasses.dataclass(frozen=True, slots=True)
class Requester:
    """Who sent a command: the user id the connection authenticated as, and its connection."""

    user: str = "mqm"
    connection_id: bytes = bytes(24)
    # in mqm: no authority check (False: registry/security/commandauthority.py checks the user's records)
    admin: bool = True
    # For configuration and command events (registry/monitoring/events.py): how the command came
    # (IBM's EventOrigin: MQEVO_CONSOLE for runmqsc and start-up files, MQEVO_MSG for the command
    # server, MQEVO_REST), the command message's MQMD (its context goes into the events), and
    # whether it was an MQSC command (translated to PCF: MQRC_COMMAND_MQSC).
    origin: int = E.MQEVO_CONSOLE
    md: object = None
    mqsc: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Context:
    registry: Registry
    requester: Requester
    command: int
    qm: object = None  # the QueueManager (sessions, status), when the engine runs inside one


Handler = Callable[[Context, P.PCFMessage], list]

# Commands a queue manager knows but qmlite does not serve: answered MQRC_FUNCTION_NOT_SUPPORTED
# (docs/compat.md), so tools get a precise "not here" rather than "no such command".
_KNOWN_COMMANDS = frozenset(
    v for k, v in vars(C).items() if k.startswith("MQCMD_") and isinstance(v, int) and v > 0
)


class Engine:
    def __init__(self, registry: Registry, *, qm=None) -> None:
        self.registry = registry
        self.qm = qm  # the QueueManager that owns this engine (None: a bare engine, pipeline/ and tools)
        self.log_commands = True  # False while start-up scripts run: one summary line per script instead
        self._handlers: dict[int, Handler] | None = None  # loaded at first use: see ``handlers``

    @property
    def handlers(self) -> dict[int, Handler]:
        """Command -> handler.  The handler modules are imported and register themselves at the first
        command, not when the queue manager opens: a server answers its first connection ~15 ms sooner
        (issue 24), and the first PCF command pays for them once."""
        if self._handlers is None:
            self._handlers = {}
            from qmlite.registry.admin import commands  # the handler modules register themselves here

            commands.register_all(self)
        return self._handlers

    def register(self, command: int, handler: Handler) -> None:
        self.handlers[command] = handler

    # ---- entry points ----------------------------------------------------------------------------
    def execute(self, request: P.PCFMessage, requester: Requester = Requester()) -> list[P.PCFMessage]:
        out = self._run(request, requester)
        self.registry.commit()
        return out

    def execute_batch(self, items: Sequence[tuple[P.PCFMessage, Requester]]) -> list[list[P.PCFMessage]]:
        outs = self.run_batch(items)
        self.registry.commit()
        return outs

    def run_batch(self, items: Sequence[tuple[P.PCFMessage, Requester]]) -> list[list[P.PCFMessage]]:
        """Execute without committing: the caller makes the effects durable before any response is
        read (the command server does it with the server's group commit)."""
        return [self._run(request, requester) for request, requester in items]

    def execute_bytes(self, data: bytes, encoding: int, ccsid: int,
                      requester: Requester = Requester()) -> list[P.PCFMessage]:
        """Decode and execute; malformed PCF is answered with the codec's reason, as a queue manager does."""
        request = self.decode(data, encoding, ccsid)
        if isinstance(request, list):
            return request
        return self.execute(request, requester)

    def decode(self, data: bytes, encoding: int, ccsid: int) -> P.PCFMessage | list[P.PCFMessage]:
        # CCSID 0 means "the queue manager's": a latin-1 reading keeps every byte as sent.
        try:
            return P.decode(data, encoding, ccsid or self.registry.qmgr.ccsid)
        except CodecError as exc:
            command = peek_command(data, encoding)
            log.info("pcf_rejected", command=command, reason=exc.reason_name, offset=exc.offset)
            return responses.failure(command, CommandError(exc.reason, parameter=exc.parameter))

    # ---- one command -----------------------------------------------------------------------------
    def _run(self, request: P.PCFMessage, requester: Requester) -> list[P.PCFMessage]:
        header = request.header
        command = header.Command
        try:
            if header.Type not in _COMMAND_TYPES:
                raise CommandError(C.MQRCCF_CFH_TYPE_ERROR)
            if header.MsgSeqNumber != 1:
                raise CommandError(C.MQRCCF_CFH_MSG_SEQ_NUMBER_ERR)
            if header.Control != C.MQCFC_LAST:
                raise CommandError(C.MQRCCF_CFH_CONTROL_ERROR)
            handler = self.handlers.get(command)
            if handler is None:
                reason = C.MQRC_FUNCTION_NOT_SUPPORTED if command in _KNOWN_COMMANDS else C.MQRCCF_CFH_COMMAND_ERROR
                raise CommandError(reason)
            self.registry.expire_subscriptions()
            # a user outside mqm: the command server says so (registry/security/commandauthority.py)
            if not requester.admin:
                try:
                    commandauthority.check(self.registry, requester.user, command, request)
                except CommandError as err:
                    if err.reason == C.MQRC_NOT_AUTHORIZED and self.qm is not None:
                        # the error log's AMQ8077W and the refusals list, then the event (type 4)
                        self.qm.diagnostics.command_refused(requester.user, command, getattr(err, "refused", None))
                        self.qm.events.not_authorized_command(requester.user, command)
                    raise
            qmgr = self.registry.qmgr
            pending = None
            if self.qm is not None and (qmgr.configuration_event == E.ENABLED or command == C.MQCMD_CHANGE_Q_MGR):
                # CONFIGEV on, or ALTER QMGR (docs/decisions.md ST11)
                from qmlite.registry.monitoring import configevents

                pending = configevents.before(self, command, request)
            command_event = qmgr.command_event
            out = handler(Context(self.registry, requester, command, self.qm), request)
            if command not in INQUIRIES:  # the cluster agent looks again (clusteragent.py), if it may have to
                self.registry.nudge_cluster(joining=command in CLUSTER_SHAPING)
            if not requester.admin:
                out = commandauthority.visible(self.registry, requester.user, command, request, out)
                if (self.qm is not None and out and out[0].header.Reason == C.MQRC_NOT_AUTHORIZED
                        and out[0].header.CompCode == C.MQCC_FAILED):  # a specific object it may not display
                    self.qm.diagnostics.command_refused(requester.user, command, None)
                    self.qm.events.not_authorized_command(requester.user, command)  # type 4
            if self.qm is not None and (pending is not None or command_event != C.MQEVR_DISABLED
                                        or command == C.MQCMD_CHANGE_Q_MGR) and _succeeded(out):
                self._events(request, requester, pending, command_event)
        except CommandError as err:
            log.info("command", command=C.describe("MQCMD", command), user=requester.user,
                     reason=C.describe("MQRCCF", err.reason) if err.reason >= 3000 else C.describe("MQRC", err.reason),
                     parameter=err.parameter)
            return responses.failure(command, err)
        except Exception:  # a bug must not take the command server down; answer as MQ does
            log.exception("command_crashed", command=C.describe("MQCMD", command), user=requester.user)
            return responses.failure(command, CommandError(C.MQRC_UNEXPECTED_ERROR))
        if self.log_commands:
            log.info("command", command=C.describe("MQCMD", command), user=requester.user, reason="MQRC_NONE",
                     responses=len(out))
        return out


    def _events(self, request: P.PCFMessage, requester: Requester, pending, command_event: int) -> None:
        """The configuration and command events a command that succeeded raises."""
        origin = E.Origin(requester.user, requester.origin, requester.md)
        command = request.header.Command
        if pending is not None:
            from qmlite.registry.monitoring import configevents

            configevents.after(self, pending, origin)
        now = self.registry.qmgr.command_event
        if command == C.MQCMD_CHANGE_Q_MGR:  # IBM: when CMDEV is not DISABLED before or after the change
            on = command_event != C.MQEVR_DISABLED or now != C.MQEVR_DISABLED
            display_too = C.MQEVR_ENABLED in (command_event, now)
        else:
            on, display_too = now != C.MQEVR_DISABLED, now == C.MQEVR_ENABLED
        if on and (display_too or command not in INQUIRIES) and command != C.MQCMD_ESCAPE:
            self.qm.events.command(origin, request, mqsc=requester.mqsc)


def _succeeded(out: list) -> bool:
    return not out or out[0].header.CompCode != C.MQCC_FAILED


# The commands CMDEV(NODISPLAY) leaves out: IBM "with the exception of DISPLAY commands (MQSC), and
# Inquire commands (PCF)".
INQUIRIES = frozenset(v for k, v in vars(C).items() if k.startswith("MQCMD_INQUIRE_") and isinstance(v, int))


# The commands after which the cluster agent looks again while the queue manager has no cluster repository (it has
# never been in a cluster): those that can put it in one -- a repository (ALTER QMGR REPOS/REPOSNL, a namelist), a
# cluster channel -- and the cluster commands themselves; MQSC through PCF (Escape) runs any of them.  A queue
# manager in no cluster thus no longer wakes the agent for every other command (a Create Subscription paid a
# task step of about 20 µs for it on the event loop, docs/benchmarks.md); once it has a repository, every command
# but an inquiry wakes it, as before.
CLUSTER_SHAPING = frozenset(
    v for k, v in vars(C).items() if isinstance(v, int) and k.startswith("MQCMD_")
    and (k == "MQCMD_CHANGE_Q_MGR" or k == "MQCMD_ESCAPE" or any(w in k for w in ("CHANNEL", "NAMELIST", "CLUSTER"))))


def peek_command(data: bytes, encoding: int) -> int:
    """The Command field of a header too broken to decode, so the failure echoes it."""
    if len(data) < 16:
        return 0
    order = "little" if encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_REVERSED else "big"
    return int.from_bytes(data[12:16], order, signed=True)

