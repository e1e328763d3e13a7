"""The server loop IBM's triggered samples share (AMQSINQA, AMQSSETA): started with a trigger message
(MQTMC2) naming a queue, they read each request on it -- the data is the name of a queue -- act on that
queue and send a reply (or, when the action fails and the request asked for exceptions, a report with
the reason as its Feedback) to the request's ReplyToQ with MQPUT1; they stop when the queue has been
empty for 5 seconds.

qmlite has no trigger monitor, so besides IBM's MQTMC2 string the first argument may be just the queue
name, and a second the queue manager's (docs/decisions.md SM5).
"""

from __future__ import annotations

from typing import Callable, Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO

from ..errors import MQIError
from . import common

WAIT_MS = 5000  # IBM's: "5 second limit for waiting"
BUFFER = 99
# MQTMC2: StrucId 4, Version 4, QName 48, ProcessName 48, TriggerData 64, ApplType 4, ApplId 256,
# EnvData 128, UserData 128, QMgrName 48 (cmqc.h)
_TMC_QNAME = slice(8, 56)
_TMC_QMGR = slice(684, 732)

# An action takes the connection and the queue named in the request; it returns the reply's text to add
# to the request, or raises MQIError (its reason becomes the report's Feedback).
Action = Callable[[object, str], str]


def trigger_target(arg: str, rest: list[str]) -> Optional[tuple[str, str]]:
    """(queue, queue manager) from an MQTMC2 string, or from a plain queue name (and queue manager)."""
    if arg.startswith("TM"):
        text = arg.ljust(732)
        return text[_TMC_QNAME].rstrip(" \0"), text[_TMC_QMGR].rstrip(" \0")
    if arg.strip():
        return arg.strip(), rest[0] if rest else ""
    return None


def main(name: str, args: list[str], client: bool, action: Action, open_options: int, convert: bool) -> int:
    common.say(f"Sample {name} start")
    if not args:
        common.say("Missing parameter - start program by MQI trigger")
        return 99
    target = trigger_target(args[0], args[1:])
    if target is None:
        common.say("Parameter supplied is not a trigger message")
        common.say("This program must be started by MQI trigger")
        return 2
    qname, qmgr = target
    qm = common.connect(qmgr, client=client, appl_name=name.lower()[:7] + ("c" if client else ""), verb="MQCONN")
    try:
        hobj, _ = qm.open(MQOD(ObjectName=qname), C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING)
    except MQIError as exc:
        common.say(f"MQOPEN (input) ended with reason code {exc.reason}")
        common.disconnect(qm)
        return exc.reason
    options = C.MQGMO_ACCEPT_TRUNCATED_MSG | C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT
    gmo = MQGMO(Options=options | (C.MQGMO_CONVERT if convert else 0), WaitInterval=WAIT_MS)
    while True:
        try:
            md, _gmo, data = qm.get(hobj, MQMD(), gmo, BUFFER)
        except MQIError as exc:
            common.say(f"MQGET ended with reason code {exc.reason}")
            break
        request = common.c_string(data)
        common.write(request + b"\n")
        if md.MsgType != C.MQMT_REQUEST:
            common.say("  -- not a request and discarded")
            continue
        if not serve(qm, md, request, action, open_options):
            break
    common.close(qm, hobj)
    return common.end(qm, name)


def serve(qm, md: MQMD, request: bytes, action: Action, open_options: int) -> bool:
    """Act on the queue a request names and send the reply or report; False when MQPUT1 failed."""
    queue = request.decode("latin-1")[:C.MQ_Q_NAME_LENGTH]
    reply = md.copy()
    body = request
    try:
        hq, _ = qm.open(MQOD(ObjectName=queue), open_options | C.MQOO_FAIL_IF_QUIESCING)
        try:
            body = request + action(qm, hq).encode("latin-1")
            reply.MsgType = C.MQMT_REPLY
        finally:
            try:
                qm.close(hq)
            except MQIError:
                pass  # IBM's sample does not check this close
    except MQIError as exc:
        reply.MsgType, reply.Feedback = C.MQMT_REPORT, exc.reason
        if md.Report & C.MQRO_EXCEPTION_WITH_DATA != C.MQRO_EXCEPTION_WITH_DATA:
            body = b""
    if reply.MsgType != C.MQMT_REPLY and not md.Report & C.MQRO_EXCEPTION:
        return True
    if not md.Report & C.MQRO_PASS_CORREL_ID:
        reply.CorrelId = md.MsgId
    if not md.Report & C.MQRO_PASS_MSG_ID:
        reply.MsgId = bytes(24)
    passing = md.Report & C.MQRO_PASS_DISCARD_AND_EXPIRY and md.Report & C.MQRO_DISCARD_MSG
    reply.Report = C.MQRO_DISCARD_MSG if passing else C.MQRO_NONE
    try:
        qm.put1(MQOD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr), reply,
                MQPMO(Options=C.MQPMO_NO_SYNCPOINT), body)
    except MQIError as exc:
        common.say(f"MQPUT1 ended with reason code {exc.reason}")
        return exc.comp != C.MQCC_FAILED
    return True
