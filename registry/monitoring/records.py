"""What IBM's statistics and accounting messages share: the MQCFH, the MQMD, the interval's dates and
times, the split into messages of at most 100 groups, and the put to the system queue.

IBM ("Accounting and statistics message MQMD", "... MQCFH"): the MQMD is an event message's with
Format MQFMT_ADMIN (a datagram, unlimited expiry, priority and persistence as the queue's defaults,
PutApplType MQAT_QMGR, PutApplName the queue manager's name cut to 28); the MQCFH is Version 3, Type
MQCFT_STATISTICS or MQCFT_ACCOUNTING, Command the message's category; a message carries at most 100
groups, and when there are more the next message follows with MsgSeqNumber + 1, the last one Control
MQCFC_LAST.  Integers in the queue manager's native encoding (MQENC_NATIVE, as a real Linux queue
manager writes them: docs/compat.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import pcf as P

from qmlite.registry.errors import MQIError
from qmlite.registry.objects.definitions import mq_date, mq_time, put_stamp

if TYPE_CHECKING:
    from qmlite.registry.qmgr import QueueManager

ENCODING = C.MQENC_NATIVE
MAX_GROUPS = 100  # IBM: "in the range 1 through 100 ... PCF groups" per message
STATISTICS_QUEUE = "SYSTEM.ADMIN.STATISTICS.QUEUE"
ACCOUNTING_QUEUE = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"
# cmqcfc.h: the DiscType values and DiscCount's indexes
MQDISCONNECT_NORMAL = 0
MQDISCONNECT_IMPLICIT = 1
MQDISCONNECT_Q_MGR = 2


def text(pid: int, value: str, length: int | None = None) -> P.CFST:
    """A string as the queue manager writes it: fixed-length names blank-padded to their length."""
    if length is not None and len(value) < length:
        value = value.ljust(length)
    return P.CFST(pid, value, 0)  # CodedCharSetId 0, as in a real statistics message (docs/compat.md)


def stamp(pid_date: int, pid_time: int, epoch: float | None) -> list[P.CFST]:
    """A date (yyyy-mm-dd) and time (hh.mm.ss) pair, local time as IBM writes them; blank when unknown."""
    if not epoch:
        return [text(pid_date, ""), text(pid_time, "")]
    return [text(pid_date, mq_date(epoch)), text(pid_time, mq_time(epoch))]


def interval(qm: QueueManager, start: float, end: float) -> list:
    """The parameters every statistics and accounting message opens with."""
    return ([text(C.MQCA_Q_MGR_NAME, qm.registry.qmgr.name, C.MQ_Q_MGR_NAME_LENGTH)]
            + stamp(C.MQCAMO_START_DATE, C.MQCAMO_START_TIME, start)
            + stamp(C.MQCAMO_END_DATE, C.MQCAMO_END_TIME, end)
            + [P.CFIN(C.MQIA_COMMAND_LEVEL, qm.registry.qmgr.command_level)])


def messages(kind: int, command: int, head: list, groups: list[P.CFGR] | None = None) -> list[bytes]:
    """The message bodies for one record: ``head`` alone, or ``head`` + ObjectCount + up to 100 of
    ``groups`` per message (a message per 100)."""
    if groups is None:
        chunks: list[list] = [head]
    else:
        chunks = [head + [P.CFIN(C.MQIAMO_OBJECT_COUNT, len(part)), *part]
                  for part in (groups[i:i + MAX_GROUPS] for i in range(0, len(groups), MAX_GROUPS))]
    out = []
    for number, params in enumerate(chunks, 1):
        header = P.CFH(kind, Version=C.MQCFH_VERSION_3, Command=command, MsgSeqNumber=number,
                       Control=C.MQCFC_LAST if number == len(chunks) else C.MQCFC_NOT_LAST)
        out.append(P.encode(P.PCFMessage(header, params), ENCODING, 0))
    return out


def system_md(qm: QueueManager, *, correl_id: bytes | None = None) -> S.MQMD:
    """The MQMD of a message the queue manager writes about itself (a new MsgId each call)."""
    reg = qm.registry
    put_date, put_time = put_stamp(qm.now())
    md = S.MQMD(Format=C.MQFMT_ADMIN, MsgType=C.MQMT_DATAGRAM, Encoding=ENCODING,
                CodedCharSetId=reg.qmgr.ccsid, Persistence=C.MQPER_PERSISTENCE_AS_Q_DEF,
                Priority=C.MQPRI_PRIORITY_AS_Q_DEF, PutApplType=C.MQAT_QMGR,
                PutApplName=reg.qmgr.name[:28], PutDate=put_date, PutTime=put_time,
                MsgId=reg.ids.msg_id())
    if correl_id is not None:
        md.CorrelId = correl_id  # an activity trace message: the connection's ConnectionId (IBM)
    return md


def write(qm: QueueManager, queue_name: str, bodies: list[bytes], *, correl_id: bytes | None = None) -> int:
    """Put each body on the system queue; returns how many were put.  A missing, full or
    put-inhibited queue loses them, as IBM's does (it reports an error in its log)."""
    reg = qm.registry
    queue = reg.queues.get(queue_name)
    if queue is None or queue.qtype != C.MQQT_LOCAL:
        return 0
    written = 0
    for body in bodies:
        md = system_md(qm, correl_id=correl_id)
        try:
            qm.put_message(queue, md, body, application=False)
        except MQIError:
            break
        written += 1
    return written
