"""amqsset / amqssetc: a triggered server that inhibits puts on each queue named in a request (IBM's
AMQSSETA; ``triggered.py``).

``amqsset TriggerMessage`` (an MQTMC2, as a trigger monitor passes it) or, in qmlite, ``amqsset QName
[QMgrName]``.  The reply is the request followed by `` PUT inhibited``.
"""

from __future__ import annotations

from qmlite.pcf import constants as C

from . import common
from . import triggered

NAME = "AMQSSETA"


def inhibit_put(qm, hobj: int) -> str:
    qm.set(hobj, [C.MQIA_INHIBIT_PUT], [C.MQQA_PUT_INHIBITED], "")
    return " PUT inhibited"


def main(args: list[str], client: bool) -> int:
    return triggered.main(NAME, args, client, inhibit_put, C.MQOO_SET, convert=False)


local, client = common.entry_points(main)
