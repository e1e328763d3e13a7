"""amqsinq / amqsinqc: a triggered server that answers, for each queue named in a request, its depth,
how many have it open for input and whether gets are inhibited (IBM's AMQSINQA; ``triggered.py``).

``amqsinq TriggerMessage`` (an MQTMC2, as a trigger monitor passes it) or, in qmlite, ``amqsinq QName
[QMgrName]``.  The reply is the request followed by `` has N messages, used by M jobs`` and, when gets
are inhibited, ``; GET inhibited``.
"""

from __future__ import annotations

from qmlite.pcf import constants as C

from . import common
from . import triggered

NAME = "AMQSINQA"


def inquire(qm, hobj: int) -> str:
    inhibit_get, depth, input_count = qm.inq(hobj, [C.MQIA_INHIBIT_GET, C.MQIA_CURRENT_Q_DEPTH,
                                                    C.MQIA_OPEN_INPUT_COUNT], 3, 0)[0]
    text = f" has {depth} messages, used by {input_count} jobs"
    return text + ("; GET inhibited" if inhibit_get else "")


def main(args: list[str], client: bool) -> int:
    return triggered.main(NAME, args, client, inquire, C.MQOO_INQUIRE, convert=True)


local, client = common.entry_points(main)
