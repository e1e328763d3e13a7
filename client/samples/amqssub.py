"""amqssub / amqssubc: subscribe to a topic and print its publications (IBM's AMQSSUBA).

``amqssub TopicString [QMgrName [SubscriptionOptions]]``.  A non-durable subscription with a managed
queue (MQSO_CREATE, NON_DURABLE, FAIL_IF_QUIESCING, MANAGED unless the options are given); each MQGET
waits up to 30 seconds, so the sample ends 30 seconds after the last publication.
"""

from __future__ import annotations

from typing import Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQCHARV, MQGMO, MQSD

from ..errors import MQIError
from . import common
from .amqsget import get_loop

NAME = "AMQSSUBA"
WAIT_MS = 30000  # IBM's: "30 second limit for waiting"
BUFFER = 1023


def main(args: list[str], client: bool) -> int:
    if not common.started(NAME, args, "topic string"):
        return 99
    qm = common.connect_sample(args, client, "amqssub")
    options = common.option(args, 2, "MQSUB SD.Options are",
                       C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_FAIL_IF_QUIESCING | C.MQSO_MANAGED)
    sd = MQSD(Options=options, ObjectString=MQCHARV(args[0]))
    handles: Optional[tuple[int, int]] = None
    try:
        hsub, hobj, _sd = qm.sub(sd)
        handles = hsub, hobj
    except MQIError as exc:
        common.say(f"MQSUB ended with reason code {exc.reason}")
        if exc.comp == C.MQCC_FAILED:
            common.say("unable to subscribe to topic")
    if handles is not None:
        hsub, hobj = handles
        gmo = MQGMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | C.MQGMO_CONVERT | C.MQGMO_NO_PROPERTIES,
                    WaitInterval=WAIT_MS)
        get_loop(qm, hobj, gmo, BUFFER, announce=f"Calling MQGET : {WAIT_MS // 1000} seconds wait time")
        common.close(qm, hsub)
        common.close(qm, hobj)
    return common.end(qm, NAME)


local, client = common.entry_points(main)
