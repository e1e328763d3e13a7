"""amqsgbr / amqsgbrc: browse a queue and print each message, numbered (IBM's AMQSGBR0).

``amqsgbr QName [QMgrName]``.  Prints the queue-manager name given (an empty line when none is), then
``Messages for <resolved queue name>`` before the first message and ``N <data>`` for each; a message
longer than 65,535 bytes is shown truncated (``  --- truncated``).  Nothing is removed.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD

from ..errors import MQIError
from . import common as S
from .amqsget import open_or_say

NAME = "AMQSGBR0"
BUFFER = 65535


def main(args: list[str], client: bool) -> int:
    if not S.started(f"{NAME} (browse)", args, "queue name"):
        return 99
    od = MQOD(ObjectName=args[0][:C.MQ_Q_NAME_LENGTH])
    S.say(args[1][:C.MQ_Q_MGR_NAME_LENGTH] if len(args) > 1 else "")  # IBM's prints the name given
    qm = S.connect_sample(args, client, "amqsgbr", verb="MQCONN")
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
                    S.say(f"Messages for {resolved:<48.48}")
                count += 1
                S.write(f"{count} <".encode() + S.c_string(data[:BUFFER]) + b">\n")
            if reason == C.MQRC_NO_MSG_AVAILABLE:
                S.say("no more messages")
            elif reason == C.MQRC_TRUNCATED_MSG_ACCEPTED:
                S.say("  --- truncated")
            elif reason != C.MQRC_NONE:
                S.say(f"MQGET ended with reason code {reason}")
            if comp == C.MQCC_FAILED:
                break
        S.close(qm, hobj)
    return S.end(qm, f"{NAME} (browse)")


local, client = S.entry_points(main)
