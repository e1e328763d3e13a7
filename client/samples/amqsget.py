"""amqsget / amqsgetc: get every message from a queue and print it (IBM's AMQSGET0).

``amqsget QName [QMgrName [OpenOptions [CloseOptions]]]``.  Each MQGET waits up to 15 seconds for a
message (MQGMO_WAIT, NO_SYNCPOINT, CONVERT); ``no more messages`` ends the loop.  Messages longer than
65,535 bytes end it too (2080, treated as a failure, as IBM's sample does).
"""

from __future__ import annotations

from typing import Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD

from ..errors import MQIError
from . import common

NAME = "AMQSGET0"
WAIT_MS = 15000  # IBM's: "15 second limit for waiting"
BUFFER = 65535


def main(args: list[str], client: bool) -> int:
    if not common.started(NAME, args, "queue name"):
        return 99
    od = MQOD(ObjectName=args[0][:C.MQ_Q_NAME_LENGTH])
    qm = common.connect_sample(args, client, "amqsget")
    options = common.option(args, 2, "open  options are", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING)
    hobj = open_or_say(qm, od, options, "unable to open queue for input")
    if hobj is not None:
        gmo = MQGMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_CONVERT, WaitInterval=WAIT_MS)
        get_loop(qm, hobj, gmo, BUFFER)
        common.close_as_asked(qm, hobj, args, 3)
    return common.end(qm, NAME)


def open_or_say(qm, od: MQOD, options: int, unable: str) -> Optional[int]:
    """MQOPEN; a reason prints ``MQOPEN ended with reason code N`` and, when it failed, ``unable``."""
    try:
        return qm.open(od, options)[0]
    except MQIError as exc:
        common.say(f"MQOPEN ended with reason code {exc.reason}")
        if exc.comp == C.MQCC_FAILED:
            common.say(unable)
        return None


def get_loop(qm, hobj: int, gmo: MQGMO, buffer_length: int, announce: str = "") -> None:
    """AMQSGET0's and AMQSSUBA's loop: print ``message <...>`` for each message until an MQGET fails
    (``no more messages`` for 2033; a truncated message counts as a failure); ``announce`` is printed
    before each MQGET (AMQSSUBA's ``Calling MQGET``)."""
    while True:
        if announce:
            common.say(announce)
        md = MQMD(Encoding=C.MQENC_NATIVE, CodedCharSetId=C.MQCCSI_Q_MGR)
        try:
            _md, _gmo, data = qm.get(hobj, md, gmo, buffer_length)
        except MQIError as exc:
            if exc.reason == C.MQRC_NO_MSG_AVAILABLE:
                common.say("no more messages")
            else:
                common.say(f"MQGET ended with reason code {exc.reason}")
            if exc.comp == C.MQCC_FAILED or exc.reason == C.MQRC_TRUNCATED_MSG_FAILED:
                return
            data = exc.data or b""
        common.write(b"message <" + common.c_string(data) + b">\n")


local, client = common.entry_points(main)
