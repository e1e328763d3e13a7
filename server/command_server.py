"""The command server: PCF requests on SYSTEM.ADMIN.COMMAND.QUEUE in, responses on their ReplyToQ.

It drains the queue in batches and executes each batch with one group commit, so every response of
the batch exists only after its effects are durable (pcf.md sections 1, 2 and 5).  Reply MsgId and
CorrelId follow the request's report options; MQRO_PASS_DISCARD_AND_EXPIRY passes on the remaining
expiry and MQRO_DISCARD_MSG.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

import trio

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P
from qmlite.pcf.encoding import order_of_encoding
from qmlite.registry import defaults, responses
from qmlite.registry.engine import Engine, Requester
from qmlite.registry.messages import Message
from qmlite.registry.params import CommandError

from . import log as qlog
from .mqi import MQIFailure

if TYPE_CHECKING:
    from .listener import QueueManagerServer

BATCH = 64  # commands sharing one fsync at most
APPL_NAME = "qmlite command server"


class CommandServer:
    def __init__(self, server: QueueManagerServer) -> None:
        self.server = server
        self.registry = server.registry
        self.engine = Engine(server.registry)
        self.log = qlog.get(component="command_server")

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        mqi = self.server.mqi
        contents = self.registry.messages.contents(defaults.COMMAND_QUEUE)
        task_status.started()
        while True:
            if not len(contents):
                await mqi.activity.lot(defaults.COMMAND_QUEUE).park()
                continue
            batch = []
            for msg in list(contents)[:BATCH]:
                contents.remove(msg)
                batch.append(msg)
            self.process(batch)
            await trio.sleep(0)  # let the connections that are waiting for these replies run

    def process(self, batch: list[Message]) -> None:
        now = time.time()
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
                command = _peek_command(msg.data, encoding)
                ready.append((msg, responses.failure(command, CommandError(C.MQRCCF_MD_FORMAT_ERROR))))
                continue
            decoded = self.engine.decode(msg.data, encoding, md.CodedCharSetId)
            if isinstance(decoded, list):
                ready.append((msg, decoded))
                continue
            runnable.append((msg, decoded, Requester(user=md.UserIdentifier.strip(), admin=True)))
        if runnable:
            outs = self.engine.execute_batch([(request, who) for _, request, who in runnable])
            ready.extend((msg, out) for (msg, _, _), out in zip(runnable, outs))
        for msg, out in ready:
            self._reply(msg, out, now)

    def _reply(self, request: Message, messages: list[P.PCFMessage], now: float) -> None:
        md: S.MQMD = request.md
        reg = self.registry
        queue = reg.queues.get(md.ReplyToQ)
        if queue is None or md.ReplyToQMgr not in ("", reg.qmgr.name):
            self.log.warning("reply_undeliverable", reply_to=md.ReplyToQ, reply_qmgr=md.ReplyToQMgr)
            return
        encoding = md.Encoding if order_of_encoding(md.Encoding) else C.MQENC_NATIVE
        report = md.Report
        correl = md.CorrelId if report & C.MQRO_PASS_CORREL_ID else md.MsgId
        expiry = C.MQEI_UNLIMITED
        reply_report = C.MQRO_NONE
        if report & C.MQRO_PASS_DISCARD_AND_EXPIRY:
            if request.expires_at is not None:
                expiry = max(1, int((request.expires_at - now) * 10))
            reply_report = report & C.MQRO_DISCARD_MSG
        for response in messages:
            reply_md = S.MQMD(
                Version=C.MQMD_VERSION_1, Report=reply_report, MsgType=C.MQMT_REPLY, Expiry=expiry,
                Encoding=encoding, CodedCharSetId=responses.QMGR_CCSID, Format=C.MQFMT_ADMIN.rstrip(),
                Priority=md.Priority, Persistence=md.Persistence,
                MsgId=md.MsgId if report & C.MQRO_PASS_MSG_ID else reg.ids.msg_id(), CorrelId=correl,
                UserIdentifier=md.UserIdentifier, AccountingToken=md.AccountingToken,
                ApplIdentityData=md.ApplIdentityData, PutApplType=C.MQAT_QMGR, PutApplName=APPL_NAME,
                PutDate=time.strftime("%Y%m%d", time.gmtime(now)),
                PutTime=time.strftime("%H%M%S", time.gmtime(now)) + "00")
            try:
                self.server.mqi.put_message(queue, reply_md, P.encode(response, encoding), now)
            except MQIFailure as exc:
                self.log.warning("reply_failed", reply_to=queue.name, reason=C.describe("MQRC", exc.reason))
                return

    def _dead_letter(self, msg: Message, why: str) -> None:
        reg = self.registry
        self.log.warning("command_rejected", reason=why, msg_type=msg.md.MsgType, reply_to=msg.md.ReplyToQ)
        dlq = reg.queues.get(reg.qmgr.dead_letter_queue)
        if dlq is not None:
            try:
                self.server.mqi.put_message(dlq, dataclasses.replace(msg.md), msg.data)
            except MQIFailure:
                pass


def _peek_command(data: bytes, encoding: int) -> int:
    if len(data) < 16:
        return 0
    order = "little" if order_of_encoding(encoding) == "<" else "big"
    return int.from_bytes(data[12:16], order, signed=True)
