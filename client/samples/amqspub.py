"""amqspub / amqspubc: publish each line of standard input on a topic (IBM's AMQSPUBA).

``amqspub TopicString [QMgrName [PutOptions]]``.  Each line (at most 99 bytes: IBM's buffer holds 100,
so a longer line is published in pieces) is one MQSTR publication; an empty line or the end of input
stops.
"""

from __future__ import annotations

from typing import Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQCHARV, MQMD, MQOD, MQPMO

from ..errors import MQIError
from . import common as S
from .amqsget import open_or_say

NAME = "AMQSPUBA"


def main(args: list[str], client: bool) -> int:
    S.say(f"Sample {NAME} start")
    if not args:
        S.say("Required parameter missing - topic string")
        return 99
    if len(args) > 2:
        pmo_options = S.atoi(args[2])
        S.say(f"publish options are {pmo_options}")
    else:
        pmo_options = C.MQPMO_FAIL_IF_QUIESCING | C.MQPMO_NO_SYNCPOINT
    user, password = S.sample_credentials()
    qm = S.connect(args[1] if len(args) > 1 else "", client=client, appl_name="amqspub" + ("c" if client else ""),
                   user=user, password=password)
    S.say(f"target topic is {args[0]}")
    od = MQOD(Version=C.MQOD_VERSION_4, ObjectType=C.MQOT_TOPIC, ObjectString=MQCHARV(args[0]))
    hobj = open_or_say(qm, od, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING, "unable to open topic for publish")
    if hobj is not None:
        md = MQMD(Format=C.MQFMT_STRING, CodedCharSetId=S.client_ccsid())
        pmo = MQPMO(Options=pmo_options)
        for line in S.input_lines(100):
            try:
                qm.put(hobj, md, pmo, line)
            except MQIError as exc:
                S.say(f"MQPUT ended with reason code {exc.reason}")
                if exc.comp == C.MQCC_FAILED:
                    break
        S.close(qm, hobj)
    S.disconnect(qm)
    S.say(f"Sample {NAME} end")
    return 0


def local(argv: Optional[list[str]] = None) -> None:
    S.run(main, argv, client=False)


def client(argv: Optional[list[str]] = None) -> None:
    S.run(main, argv, client=True)
