"""amqsreq / amqsreqc: send each line of standard input as a request and print the replies (IBM's
AMQSREQ0).

``amqsreq QName [QMgrName [ReplyToQ]]``.  Without a reply queue a dynamic queue is made from the model
SYSTEM.SAMPLE.REPLY (IBM's sample definitions; define it first) and deleted at the end.  The requests
are MQMT_REQUEST, MQSTR, Report MQRO_EXCEPTION_WITH_DATA; then the replies are read, 64 bytes of each
(``response <...>``, the first waited for up to 60 seconds, the others up to 15).
"""

from __future__ import annotations

from typing import Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO

from ..errors import MQIError
from . import common

NAME = "AMQSREQ0"
REPLY_MODEL = "SYSTEM.SAMPLE.REPLY"
FIRST_WAIT_MS, NEXT_WAIT_MS = 60000, 15000
REPLY_BUFFER = 64


def main(args: list[str], client: bool) -> int:
    if not common.started(NAME, args, "queue name"):
        return 99
    qm = common.connect_sample(args, client, "amqsreq", verb="MQCONN")
    od = MQOD(ObjectName=args[0][:C.MQ_Q_NAME_LENGTH])
    common.say(f"server queue is {od.ObjectName}")
    try:
        hobj, _ = qm.open(od, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
    except MQIError as exc:
        common.say(f"MQOPEN ended with reason code {exc.reason}")
        common.say("unable to open server queue for output")
        return exc.reason  # IBM's exit(Reason)
    if len(args) > 2:
        odr = MQOD(ObjectName=args[2][:C.MQ_Q_NAME_LENGTH])
    else:
        odr = MQOD(ObjectName=REPLY_MODEL, DynamicQName="*")
    hreply: Optional[int] = None
    reply_q = ""
    try:
        hreply, returned = qm.open(odr, C.MQOO_INPUT_EXCLUSIVE | C.MQOO_FAIL_IF_QUIESCING)
        reply_q = returned.ObjectName or odr.ObjectName
        common.say(f"replies to {reply_q}")
    except MQIError as exc:
        common.say(f"MQOPEN ended with reason code {exc.reason}")
        common.say("unable to open reply queue")
    if hreply is not None:
        send_requests(qm, hobj, reply_q)
        read_replies(qm, hreply)
    try:
        qm.close(hobj)
    except MQIError as exc:
        common.say(f"MQCLOSE (server) ended with reason code {exc.reason}")
    if hreply is not None:
        common.close(qm, hreply, C.MQCO_NONE if len(args) > 2 else C.MQCO_DELETE, "MQCLOSE (reply)")
    return common.end(qm, NAME)


def send_requests(qm, hobj: int, reply_q: str) -> None:
    md = MQMD(MsgType=C.MQMT_REQUEST, Report=C.MQRO_EXCEPTION_WITH_DATA, ReplyToQ=reply_q,
              Format=C.MQFMT_STRING, CodedCharSetId=common.client_ccsid())
    pmo = MQPMO(Options=C.MQPMO_NEW_MSG_ID | C.MQPMO_NO_SYNCPOINT)
    while True:
        line = common.fgets(99)
        # IBM's sample drops the line's last character, taken to be its newline
        request = line[:-1] if line else b""
        if not request:
            return
        try:
            qm.put(hobj, md, pmo, request)
        except MQIError as exc:
            common.say(f"MQPUT ended with reason code {exc.reason}")
            if exc.comp == C.MQCC_FAILED:
                return


def read_replies(qm, hreply: int) -> None:
    gmo = MQGMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_NONE, WaitInterval=FIRST_WAIT_MS,
                Options=C.MQGMO_WAIT | C.MQGMO_CONVERT | C.MQGMO_ACCEPT_TRUNCATED_MSG)
    while True:
        md = MQMD(Encoding=C.MQENC_NATIVE, CodedCharSetId=C.MQCCSI_Q_MGR)
        reason, comp = C.MQRC_NONE, C.MQCC_OK
        try:
            got, _gmo, data = qm.get(hreply, md, gmo, REPLY_BUFFER)
        except MQIError as exc:
            reason, comp, got, data = exc.reason, exc.comp, exc.md, exc.data or b""
        gmo.WaitInterval = NEXT_WAIT_MS
        if reason == C.MQRC_NO_MSG_AVAILABLE:
            common.say("no more replies")
        elif reason != C.MQRC_NONE:
            common.say(f"MQGET ended with reason code {reason}")
        if comp == C.MQCC_FAILED:
            return
        common.write(b"response <" + common.c_string(data[:REPLY_BUFFER]) + b">\n")
        if got is not None and got.MsgType == C.MQMT_REPORT:
            common.say(f"  report with feedback = {got.Feedback}")


local, client = common.entry_points(main)
