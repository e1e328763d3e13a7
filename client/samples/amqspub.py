"""amqspub / amqspubc: publish each line of standard input on a topic (IBM's AMQSPUBA).

``amqspub TopicString [QMgrName [PutOptions]]``.  Each line (at most 99 bytes: IBM's buffer holds 100,
so a longer line is published in pieces) is one MQSTR publication; an empty line or the end of input
stops.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQCHARV, MQOD

from . import common
from .amqsget import open_or_say

NAME = "AMQSPUBA"


def main(args: list[str], client: bool) -> int:
    if not common.started(NAME, args, "topic string"):
        return 99
    pmo_options = common.option(args, 2, "publish options are", C.MQPMO_FAIL_IF_QUIESCING | C.MQPMO_NO_SYNCPOINT)
    qm = common.connect_sample(args, client, "amqspub")
    common.say(f"target topic is {args[0]}")
    od = MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV(args[0]))
    hobj = open_or_say(qm, od, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING, "unable to open topic for publish")
    if hobj is not None:
        common.put_lines(qm, hobj, pmo_options, 100)
        common.close(qm, hobj)
    return common.end(qm, NAME)


local, client = common.entry_points(main)
