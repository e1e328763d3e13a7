"""amqsput / amqsputc: put each line of standard input to a queue as a message (IBM's AMQSPUT0).

``amqsput QName [QMgrName [OpenOptions [CloseOptions [TargetQMgr [DynamicQName]]]]]``.  Each line is one
MQSTR message (an empty line or the end of input stops), put with MQPMO_NO_SYNCPOINT; a line longer than
65,534 bytes is sent in pieces, as IBM's fgets reads it.
"""

from __future__ import annotations

from typing import Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQMD, MQOD, MQPMO

from ..errors import MQIError
from . import common as S

NAME = "AMQSPUT0"


def main(args: list[str], client: bool) -> int:
    S.say(f"Sample {NAME} start")
    if not args:
        S.say("Required parameter missing - queue name")
        return 99
    user, password = S.sample_credentials()
    qm = S.connect(args[1] if len(args) > 1 else "", client=client, appl_name="amqsput" + ("c" if client else ""),
                   user=user, password=password)
    od = MQOD(ObjectName=args[0][:C.MQ_Q_NAME_LENGTH])
    S.say(f"target queue is {od.ObjectName}")
    if len(args) > 4:
        od.ObjectQMgrName = args[4][:C.MQ_Q_MGR_NAME_LENGTH]
        S.say(f"target queue manager is {od.ObjectQMgrName}")
    if len(args) > 5:
        od.DynamicQName = args[5][:C.MQ_Q_NAME_LENGTH]
        S.say(f"dynamic queue name is {od.DynamicQName}")
    if len(args) > 2:
        options = S.atoi(args[2])
        S.say(f"open  options are {options}")
    else:
        options = C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING
    hobj: Optional[int] = None
    try:
        hobj, _ = qm.open(od, options)
    except MQIError as exc:
        S.say(f"MQOPEN ended with reason code {exc.reason}")
        if exc.comp == C.MQCC_FAILED:
            S.say("unable to open queue for output")
    if hobj is not None:
        md = MQMD(Format=C.MQFMT_STRING, CodedCharSetId=S.client_ccsid())
        pmo = MQPMO(Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING)
        for line in S.input_lines(65535):
            md.MsgId = bytes(24)  # MQMI_NONE: a new MsgId for each message
            try:
                qm.put(hobj, md, pmo, line)
            except MQIError as exc:
                S.say(f"MQPUT ended with reason code {exc.reason}")
                if exc.comp == C.MQCC_FAILED:
                    break
        close_options = C.MQCO_NONE
        if len(args) > 3:
            close_options = S.atoi(args[3])
            S.say(f"close options are {close_options}")
        S.close(qm, hobj, close_options)
    S.disconnect(qm)
    S.say(f"Sample {NAME} end")
    return 0


def local(argv: Optional[list[str]] = None) -> None:
    S.run(main, argv, client=False)


def client(argv: Optional[list[str]] = None) -> None:
    S.run(main, argv, client=True)
