"""Objects a new queue manager starts with: the SYSTEM ones every queue manager has, and the
IBM MQ developer container's DEV ones (left out when MQ_DEV=false, as in that container)."""

from __future__ import annotations

from qmlite.pcf import constants as C

from qmlite.registry.objects.definitions import Namelist, Process, Queue, Subscription, Topic

DEV_DEAD_LETTER_QUEUE = "DEV.DEAD.LETTER.QUEUE"
SYSTEM_DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE"
COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
DEFAULT_SUB = "SYSTEM.DEFAULT.SUB"
BASE_TOPIC = "SYSTEM.BASE.TOPIC"
DEFAULT_NAMELIST = "SYSTEM.DEFAULT.NAMELIST"
DEFAULT_PROCESS = "SYSTEM.DEFAULT.PROCESS"
SYSTEM_CONN_AUTH = "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"  # CONNAUTH of a new queue manager
DEV_CONN_AUTH = "DEV.AUTHINFO"  # the developer container's (docs/reference/container.md)


def system_queues() -> list[Queue]:
    temp, perm = C.MQQDT_TEMPORARY_DYNAMIC, C.MQQDT_PERMANENT_DYNAMIC
    return [
        Queue(COMMAND_QUEUE, max_depth=3000, description="IBM MQ Command Queue"),
        Queue("SYSTEM.DEFAULT.LOCAL.QUEUE"),
        Queue("SYSTEM.DEFAULT.MODEL.QUEUE", qtype=C.MQQT_MODEL, def_type=temp),
        Queue("SYSTEM.DEFAULT.ALIAS.QUEUE", qtype=C.MQQT_ALIAS),
        Queue("SYSTEM.DEFAULT.REMOTE.QUEUE", qtype=C.MQQT_REMOTE),
        Queue("SYSTEM.MQEXPLORER.REPLY.MODEL", qtype=C.MQQT_MODEL, def_type=temp,
              description="MQ Explorer reply queue"),
        Queue("SYSTEM.DURABLE.MODEL.QUEUE", qtype=C.MQQT_MODEL, def_type=perm, max_depth=999_999_999,
              def_input_open_option=C.MQOO_INPUT_EXCLUSIVE),
        Queue("SYSTEM.NDURABLE.MODEL.QUEUE", qtype=C.MQQT_MODEL, def_type=temp, max_depth=999_999_999,
              def_input_open_option=C.MQOO_INPUT_EXCLUSIVE),
        Queue(SYSTEM_DEAD_LETTER_QUEUE, description="IBM MQ Default Dead Letter Queue"),
    ] + more_system_queues()


# The other local and model queues crtmqm creates that tools open or list by name (IBM: "System and
# default objects: queues"): Datadog's check reads SYSTEM.ADMIN.STATISTICS.QUEUE, monitors open the
# event queues, JMS makes temporary queues from SYSTEM.JMS.TEMPQ.MODEL.  qmlite writes no statistics or
# accounting messages to them; the event queues get events when their switches are on
# (registry/monitoring/events.py).
# Added to an existing data directory once, at its first start with this list (state.py).
_SYSTEM_LOCAL = (
    ("SYSTEM.ADMIN.ACCOUNTING.QUEUE", "IBM MQ Accounting Queue"),
    ("SYSTEM.ADMIN.ACTIVITY.QUEUE", "IBM MQ Activity Queue"),
    ("SYSTEM.ADMIN.CHANNEL.EVENT", "IBM MQ Channel Event Queue"),
    ("SYSTEM.ADMIN.COMMAND.EVENT", "IBM MQ Command Event Queue"),
    ("SYSTEM.ADMIN.CONFIG.EVENT", "IBM MQ Configuration Event Queue"),
    ("SYSTEM.ADMIN.LOGGER.EVENT", "IBM MQ Logger Event Queue"),
    ("SYSTEM.ADMIN.PERFM.EVENT", "IBM MQ Performance Event Queue"),
    ("SYSTEM.ADMIN.PUBSUB.EVENT", "IBM MQ Publish Subscribe Event Queue"),
    ("SYSTEM.ADMIN.QMGR.EVENT", "IBM MQ Queue Manager Event Queue"),
    ("SYSTEM.ADMIN.STATISTICS.QUEUE", "IBM MQ Statistics Queue"),
    ("SYSTEM.ADMIN.TRACE.ACTIVITY.QUEUE", "IBM MQ Trace Activity Queue"),
    ("SYSTEM.ADMIN.TRACE.ROUTE.QUEUE", "IBM MQ Trace Route Queue"),
    ("SYSTEM.CHANNEL.INITQ", "IBM MQ Channel Initiation Queue"),
    ("SYSTEM.CHANNEL.SYNCQ", "IBM MQ Channel Sync Queue"),  # message channels' records (registry/channels/)
    ("SYSTEM.DEFAULT.INITIATION.QUEUE", "IBM MQ Default Initiation Queue"),
)
_SYSTEM_MODEL = (
    ("SYSTEM.JMS.TEMPQ.MODEL", "IBM MQ JMS Temporary Queue Model"),
)


def more_system_queues() -> list[Queue]:
    # Their other attributes are SYSTEM.DEFAULT.LOCAL.QUEUE's (IBM's differ in places, e.g. MAXDEPTH).
    return ([Queue(name, description=desc) for name, desc in _SYSTEM_LOCAL]
            + [Queue(name, qtype=C.MQQT_MODEL, def_type=C.MQQDT_TEMPORARY_DYNAMIC, description=desc)
               for name, desc in _SYSTEM_MODEL])


def system_namelists() -> list[Namelist]:
    return [Namelist(DEFAULT_NAMELIST)]


def system_processes() -> list[Process]:
    return [Process(DEFAULT_PROCESS)]


DEV_MODEL_QUEUE = "DEV.APP.MODEL.QUEUE"


def dev_queues() -> list[Queue]:
    # DEV.APP.MODEL.QUEUE (since the 9.4.0.0 container): what app's temporary reply queues come from.
    return [Queue(f"DEV.QUEUE.{i}") for i in (1, 2, 3)] + [Queue(DEV_DEAD_LETTER_QUEUE)] + [
        Queue(DEV_MODEL_QUEUE, qtype=C.MQQT_MODEL, def_type=C.MQQDT_TEMPORARY_DYNAMIC)]


def system_topics() -> list[Topic]:
    from qmlite.registry.objects.definitions import BASE_TOPIC_VALUES

    return [Topic(BASE_TOPIC, "", description="Base topic for resolving attributes", **BASE_TOPIC_VALUES)]


def dev_topics() -> list[Topic]:
    return [Topic("DEV.BASE.TOPIC", "dev/")]  # the developer container's definition, slash included


def system_subscriptions(sub_id: bytes) -> list[Subscription]:
    return [Subscription(DEFAULT_SUB, sub_id, sub_type=C.MQSUBTYPE_ADMIN, sub_user="mqm")]
