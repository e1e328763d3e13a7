"""The command server's rules: PCF requests from SYSTEM.ADMIN.COMMAND.QUEUE in, responses onto their ReplyToQ.

A batch of requests is executed together and every response is put once the batch's effects are
durable (docs/reference/pcf.md sections 1, 2 and 5): ``run_batch`` executes and returns the responses, the caller
makes the journal durable and calls ``deliver``.  The responses also carry the journal position of
those effects, so even a caller that delivers at once never lets anyone read one early.  Reply MsgId and CorrelId follow
the request's report options; MQRO_PASS_DISCARD_AND_EXPIRY passes on the remaining expiry and MQRO_DISCARD_MSG.
A request that is not a request (a datagram) or has no ReplyToQ goes to the dead-letter queue; a
request whose Format is not MQADMIN is answered MQRCCF_MD_FORMAT_ERROR.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

import structlog

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.pcf.encoding import order_of_encoding

from qmlite.registry.security import authrecs
from qmlite.registry.monitoring import events
from qmlite.registry.objects import defaults
from qmlite.registry.admin import responses
from qmlite.registry.admin.deferred import Deferred
from qmlite.registry.admin.engine import Requester, peek_command
from qmlite.registry.errors import MQIError
from qmlite.registry.messaging.expiry import expiry_left
from qmlite.registry.messaging.queues import Message
from qmlite.registry.objects.definitions import put_stamp
from qmlite.registry.admin.params import CommandError
from qmlite.registry.testing import faults

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

BATCH = 64  # commands sharing one group commit at most
APPL_NAME = "qmlite command server"
QUEUE = defaults.COMMAND_QUEUE

log = structlog.get_logger("qmlite.command_server")
Response = tuple[Message, list[P.PCFMessage]]  # a request and the PCF responses it gets


class CommandServer:
    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm
        # The command server holds its queue open for input, as on a queue manager (Inquire Queue
        # reports OPPROCS 1; Delete and Clear Queue refuse it as in use).
        qm.registry.messages.contents(QUEUE).open_input += 1
        # The server's task sets this: a deferred response (registry/admin/deferred.py), put later, must
        # reach the disk and wake its reader as the batch's responses do (server/command_server.py).
        self.late_reply: Callable[[], None] | None = None

    def pending(self) -> int:
        contents = self.qm.registry.messages.peek(QUEUE)
        return len(contents) if contents is not None else 0

    def run_batch(self) -> list[Response]:
        """Take up to BATCH waiting requests and execute them; returns their responses, to be put
        with ``deliver`` once the batch's effects are durable (so no reader ever waits on them)."""
        qm = self.qm
        contents = qm.registry.messages.contents(QUEUE)
        batch = []
        while len(batch) < BATCH:
            msg = contents.first()
            if msg is None:
                break
            qm.take_message(QUEUE, contents, msg)
            batch.append(msg)
        return self.process(batch) if batch else []

    def deliver(self, responses: list[Response]) -> None:
        now = self.qm.now()
        for request, messages in responses:
            if isinstance(messages, Deferred) and self.late_reply is not None:
                messages.begin(lambda late, request=request: self._late(request, late))
                continue
            self._reply(request, messages, now)

    def _late(self, request: Message, messages: list[P.PCFMessage]) -> None:
        """A deferred command's responses (PING CHANNEL's, once its round trip is over)."""
        self._reply(request, messages, self.qm.now())
        self.late_reply()

    def process(self, batch: list[Message]) -> list[Response]:
        qm = self.qm
        engine = qm.engine
        now = qm.now()
        runnable: list[tuple[Message, P.PCFMessage, Requester]] = []
        ready: list[tuple[Message, list[P.PCFMessage]]] = []
        for msg in batch:
            if msg.expires_at is not None and msg.expires_at <= now:
                continue  # an expired request is never executed (MQ discards it)
            md: S.MQMD = msg.md
            if md.MsgType != C.MQMT_REQUEST or not md.ReplyToQ:
                self._dead_letter(msg, "not a request" if md.MsgType != C.MQMT_REQUEST else "no ReplyToQ")
                continue
            encoding = md.Encoding if order_of_encoding(md.Encoding) else C.MQENC_NATIVE
            if md.Format.rstrip() != C.MQFMT_ADMIN.rstrip():
                command = peek_command(msg.data, encoding)
                ready.append((msg, responses.failure(command, CommandError(C.MQRCCF_MD_FORMAT_ERROR))))
                continue
            decoded = engine.decode(msg.data, encoding, md.CodedCharSetId)
            if isinstance(decoded, list):
                ready.append((msg, decoded))
                continue
            if qm.faults.armed and self._faulted(msg, decoded, md, ready):
                continue
            runnable.append((msg, decoded, Requester(user=(user := md.UserIdentifier.strip()),
                                                          admin=authrecs.privileged(user),
                                                          origin=events.MQEVO_MSG, md=md)))
        if runnable:
            outs = engine.run_batch([(request, who) for _, request, who in runnable])
            ready.extend((msg, out) for (msg, _, _), out in zip(runnable, outs))
        return ready

    def _faulted(self, msg: Message, decoded: P.PCFMessage, md: S.MQMD, ready: list) -> bool:
        """A fault rule on this command (registry/testing/faults.py): NOREPLY takes the request and
        answers nothing, as a command server that has stopped; FAIL answers with the rule's reason."""
        command = decoded.header.Command
        name = next((p.value for p in decoded.parameters if isinstance(getattr(p, "value", None), str)), "")
        fault = self.qm.faults.match_command(command, name.strip(), md.UserIdentifier.strip())
        if fault is None:
            return False
        if fault.action != faults.NOREPLY:
            ready.append((msg, responses.failure(command, CommandError(fault.reason))))
        return True

    def _reply(self, request: Message, messages: list[P.PCFMessage], now: float) -> None:
        qm = self.qm
        md: S.MQMD = request.md
        reg = qm.registry
        queue = reg.queues.get(md.ReplyToQ)
        if queue is None or md.ReplyToQMgr not in ("", reg.qmgr.name):
            log.warning("reply_undeliverable", reply_to=md.ReplyToQ, reply_qmgr=md.ReplyToQMgr)
            return
        encoding = md.Encoding if order_of_encoding(md.Encoding) else C.MQENC_NATIVE
        report = md.Report
        correl = md.CorrelId if report & C.MQRO_PASS_CORREL_ID else md.MsgId
        expiry = C.MQEI_UNLIMITED
        reply_report = C.MQRO_NONE
        if report & C.MQRO_PASS_DISCARD_AND_EXPIRY:
            if request.expires_at is not None:
                expiry = expiry_left(request.put_time, request.expires_at, now)
            reply_report = report & C.MQRO_DISCARD_MSG
        persistence = md.Persistence
        put_date, put_time = put_stamp(now)
        for response in messages:
            reply_md = S.MQMD(
                Version=C.MQMD_VERSION_1, Report=reply_report, MsgType=C.MQMT_REPLY, Expiry=expiry,
                Encoding=encoding, CodedCharSetId=responses.QMGR_CCSID, Format=C.MQFMT_ADMIN.rstrip(),
                Priority=md.Priority, Persistence=persistence,
                MsgId=md.MsgId if report & C.MQRO_PASS_MSG_ID else reg.ids.msg_id(), CorrelId=correl,
                UserIdentifier=md.UserIdentifier, AccountingToken=md.AccountingToken,
                ApplIdentityData=md.ApplIdentityData, PutApplType=C.MQAT_QMGR, PutApplName=APPL_NAME,
                PutDate=put_date, PutTime=put_time)
            try:
                # A response may be read only once the effects it reports are on disk: put after
                # the commit (``deliver``), or marked with the journal position they reached.
                # MaxQDepth does not cut an answer short: a queue manager's command server puts each
                # response as it makes it while the client reads them, so a 10,000-response Inquire
                # fits a reply queue of depth 5,000; here the whole answer is put at once after the
                # commit, and a client would otherwise wait in vain for the LAST response.
                qm.put_message(queue, reply_md, P.encode(response, encoding), now,
                               durable_after=reg.store.appended, application=False, depth_limit=False)
            except MQIError as exc:
                log.warning("reply_failed", reply_to=queue.name, reason=C.describe("MQRC", exc.reason))
                return

    def _dead_letter(self, msg: Message, why: str) -> None:
        log.warning("command_rejected", reason=why, msg_type=msg.md.MsgType, reply_to=msg.md.ReplyToQ)
        failed = self.qm.enqueuer.put_dead_letter(dataclasses.replace(msg.md), msg.data)
        if failed:  # the message is lost: IBM's command server says so in its error log
            self.qm.diagnostics.dead_letter_failed(failed)
