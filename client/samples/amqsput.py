"""amqsput / amqsputc: put each line of standard input to a queue as a message (IBM's AMQSPUT0).

``amqsput QName [QMgrName [OpenOptions [CloseOptions [TargetQMgr [DynamicQName]]]]]``.  Each line is one
MQSTR message (an empty line or the end of input stops), put with MQPMO_NO_SYNCPOINT; a line longer than
65,534 bytes is sent in pieces, as IBM's fgets reads it.
"""

from __future__ import annotations

from typing import Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQOD

from ..errors import MQIError
from . import common

NAME = "AMQSPUT0"


def main(args: list[str], client: bool) -> int:
    if not common.started(NAME, args, "queue name"):
        return 99
    qm = common.connect_sample(args, client, "amqsput")
    od = MQOD(ObjectName=args[0][:C.MQ_Q_NAME_LENGTH])
    common.say(f"target queue is {od.ObjectName}")
    if len(args) > 4:
        od.ObjectQMgrName = args[4][:C.MQ_Q_MGR_NAME_LENGTH]
        common.say(f"target queue manager is {od.ObjectQMgrName}")
    if len(args) > 5:
        od.DynamicQName = args[5][:C.MQ_Q_NAME_LENGTH]
        common.say(f"dynamic queue name is {od.DynamicQName}")
    options = common.option(args, 2, "open  options are", C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING)
    hobj: Optional[int] = None
    try:
        hobj, _ = qm.open(od, options)
    except MQIError as exc:
        common.say(f"MQOPEN ended with reason code {exc.reason}")
        if exc.comp == C.MQCC_FAILED:
            common.say("unable to open queue for output")
    if hobj is not None:
        common.put_lines(qm, hobj, C.MQPMO_NO_SYNCPOINT | C.MQPMO_FAIL_IF_QUIESCING, 65535)
        common.close_as_asked(qm, hobj, args, 3)
    return common.end(qm, NAME)


local, client = common.entry_points(main)
