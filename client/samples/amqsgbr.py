"""amqsgbr / amqsgbrc: browse a queue and print each message, numbered (IBM's AMQSGBR0).

``amqsgbr QName [QMgrName]``.  Prints the queue-manager name given (an empty line when none is), then
``Messages for <resolved queue name>`` before the first message and ``N <data>`` for each; a message
longer than 65,535 bytes is shown truncated (``  --- truncated``).  Nothing is removed.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD

from ..errors import MQIError
from . import common
from .amqsget import open_or_say

NAME = "AMQSGBR0"
BUFFER = 65535


def main(args: list[str], client: bool) -> int:
    if not common.started(f"{NAME} (browse)", args, "queue name"):
        return 99
    od = MQOD(ObjectName=args[0][:C.MQ_Q_NAME_LENGTH])
    common.say(args[1][:C.MQ_Q_MGR_NAME_LENGTH] if len(args) > 1 else "")  # IBM's prints the name given
    qm = common.connect_sample(args, client, "amqsgbr", verb="MQCONN")
    hobj = open_or_say(qm, od, C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING, "unable to open queue for input")
    if hobj is not None:
        gmo = MQGMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_NONE,
                    Options=C.MQGMO_NO_WAIT | C.MQGMO_BROWSE_NEXT | C.MQGMO_ACCEPT_TRUNCATED_MSG)
        count = 0
        while True:
            md = MQMD(Version=C.MQMD_VERSION_2, Encoding=C.MQENC_NATIVE, CodedCharSetId=C.MQCCSI_Q_MGR)
            reason, comp = C.MQRC_NONE, C.MQCC_OK
            try:
                _md, got_gmo, data = qm.get(hobj, md, gmo, BUFFER)
            except MQIError as exc:
                reason, comp = exc.reason, exc.comp
                got_gmo, data = exc.gmo, exc.data or b""
            if comp != C.MQCC_FAILED:
                if count == 0:
                    resolved = got_gmo.ResolvedQName if got_gmo is not None else ""
                    common.say(f"Messages for {resolved:<48.48}")
                count += 1
                common.write(f"{count} <".encode() + common.c_string(data[:BUFFER]) + b">\n")
            if reason == C.MQRC_NO_MSG_AVAILABLE:
                common.say("no more messages")
            elif reason == C.MQRC_TRUNCATED_MSG_ACCEPTED:
                common.say("  --- truncated")
            elif reason != C.MQRC_NONE:
                common.say(f"MQGET ended with reason code {reason}")
            if comp == C.MQCC_FAILED:
                break
        common.close(qm, hobj)
    return common.end(qm, f"{NAME} (browse)")


local, client = common.entry_points(main)
