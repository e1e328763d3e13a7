"""Triggering: when a message put on a queue makes a trigger event, the trigger message (an MQTM) the
queue manager puts on the queue's initiation queue for a trigger monitor to read.

IBM, "Conditions for a trigger event": the queue has TRIGGER on and a TRIGTYPE other than NONE; the
message's priority is at least TRIGMPRI; the number of messages of at least that priority on the queue,
committed and uncommitted, was before the put 0 (FIRST), anything (EVERY) or TRIGDPTH - 1 (DEPTH); for
FIRST and DEPTH no application has the queue open for input; the process definition PROCESS names
exists; the initiation queue INITQ exists, is local, and an application (the trigger monitor) has it
open for input.  After a DEPTH trigger the queue's TRIGGER is turned off, as IBM does, until set again.
TRIGINT (the queue manager's TriggerInterval): with TRIGTYPE(FIRST), a put to a queue that is not empty
makes another trigger message when TRIGINT milliseconds have passed since the last one for that queue
(IBM's TriggerInterval: "an additional trigger message can be generated with MQTT_FIRST triggering even if
the queue was not empty ... not more often than every TriggerInterval milliseconds"), the other conditions
holding.  What qmlite does not do (docs/compat.md Part 7): trigger events other than a put (a trigger
monitor opening the initiation queue, TRIGGER set on with messages waiting).
A transmission queue (USAGE(XMITQ)) needs no process definition: its trigger message goes to the channel
initiator, which finds the channel from TRIGDATA or the queue itself (registry/channels/initiator.py;
IBM "Triggering channels": the process definition is optional for channel triggering).
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.objects.definitions import Process, Queue, put_stamp


# The blank process of a transmission queue's trigger message (MQTM ProcessName, ApplId ... blank).
_NO_PROCESS = Process("")


def qualifying_depth(registry, queue: Queue) -> int:
    """Messages on ``queue`` (uncommitted included) whose priority counts toward a trigger event."""
    contents = registry.messages.peek(queue.name)
    if contents is None:
        return 0
    if queue.trigger_msg_priority <= 0:
        return len(contents) + contents.uncommitted
    least = queue.trigger_msg_priority
    return sum(1 for m in contents if m.md.Priority >= least) + contents.uncommitted


def trigger_for(registry, queue: Queue, md: S.MQMD, depth_before: int, now: float):
    """The (initiation queue, MQMD, body) of the trigger message the put of a message with ``md`` makes,
    or None; ``depth_before``: ``qualifying_depth`` just before the put.  A DEPTH trigger turns the
    queue's TRIGGER off (the caller stores the queue returned as the fourth element when it changed)."""
    ttype = queue.trigger_type
    if queue.trigger_control != C.MQTC_ON or ttype == C.MQTT_NONE or md.Priority < queue.trigger_msg_priority:
        return None
    if ttype == C.MQTT_FIRST and depth_before != 0:
        contents = registry.messages.peek(queue.name)
        last = contents.last_trigger if contents is not None else None
        if last is None or (now - last) * 1000 < registry.qmgr.trigger_interval:
            return None
    if ttype == C.MQTT_DEPTH and depth_before != queue.trigger_depth - 1:
        return None
    if ttype in (C.MQTT_FIRST, C.MQTT_DEPTH) and registry.messages.open_counts(queue.name)[0]:
        return None
    process = registry.processes.get(queue.process_name)
    if process is None and queue.usage == C.MQUS_TRANSMISSION:
        process = _NO_PROCESS  # a channel's trigger: the channel initiator needs no process (docs/decisions.md MCT1)
    initq = registry.queues.get(queue.initiation_q)
    if process is None or initq is None or initq.qtype != C.MQQT_LOCAL \
            or not registry.messages.open_counts(initq.name)[0]:
        return None
    body = S.MQTM(QName=queue.name, ProcessName=process.name, TriggerData=queue.trigger_data,
                  ApplType=process.appl_type, ApplId=process.appl_id, EnvData=process.env_data,
                  UserData=process.user_data).pack()
    date, time_ = put_stamp(now)
    header = S.MQMD(Format=C.MQFMT_TRIGGER, Priority=initq.def_priority, Persistence=C.MQPER_NOT_PERSISTENT,
                    Encoding=C.MQENC_NATIVE, CodedCharSetId=registry.qmgr.ccsid, PutApplType=C.MQAT_QMGR,
                    PutApplName=registry.qmgr.name[:28], PutDate=date, PutTime=time_)
    changed = dataclasses.replace(queue, trigger_control=C.MQTC_OFF) if ttype == C.MQTT_DEPTH else None
    return initq, header, body, changed
