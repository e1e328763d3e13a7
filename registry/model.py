"""The objects a queue manager administers: subscriptions, queues, topics, and its own attributes.

Field defaults are those of the SYSTEM.DEFAULT.* objects (pcf.md section 10.1 for subscriptions).
Times are epoch seconds; they are formatted the MQ way (``yyyy-mm-dd`` / ``hh.mm.ss``) only when a
response is built.  Classes use slots because a registry may hold a million subscriptions.
"""

from __future__ import annotations

import dataclasses
import time

from qmlite.pcf import constants as C

NO_BYTES_24 = bytes(24)
NO_BYTES_32 = bytes(32)


def mq_date(epoch: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(epoch))


def mq_time(epoch: float) -> str:
    return time.strftime("%H.%M.%S", time.localtime(epoch))


def stamp_definition(obj, replaced, now: float):
    """A new or replacing definition: Replace keeps the creation time, and either way it is altered now."""
    obj.created = replaced.created if replaced is not None else now
    obj.altered = now
    return obj


@dataclasses.dataclass(slots=True)
class Subscription:
    name: str
    sub_id: bytes
    topic_object: str = ""
    topic_string: str = ""  # as defined; the full string is resolved_topic
    resolved_topic: str = ""
    destination: str = ""
    destination_qmgr: str = ""
    destination_class: int = C.MQDC_PROVIDED
    destination_correl_id: bytes = NO_BYTES_24
    expiry: int = C.MQEI_UNLIMITED  # tenths of a second from creation
    pub_accounting_token: bytes = NO_BYTES_32
    pub_appl_identity_data: str = ""
    pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED
    psprop: int = C.MQPSPROP_MSGPROP
    selector: str = ""
    selector_type: int = C.MQSELTYPE_NONE
    sub_level: int = 1
    sub_scope: int = C.MQTSCOPE_ALL
    sub_type: int = C.MQSUBTYPE_ADMIN
    sub_user: str = ""
    user_data: str = ""
    variable_user: int = C.MQVU_ANY_USER
    wildcard_schema: int = C.MQWS_TOPIC
    request_only: int = C.MQRU_PUBLISH_ALL
    durable: int = C.MQSUB_DURABLE_YES
    created: float = 0.0
    altered: float = 0.0
    # Status (Inquire Sub Status); not part of the definition, kept current by routing.
    resumed: float = 0.0
    last_message: float = 0.0
    message_count: int = 0
    active_connection: bytes = NO_BYTES_24

    def expires_at(self) -> float | None:
        if self.expiry < 0:
            return None
        return self.created + self.expiry / 10.0


@dataclasses.dataclass(slots=True)
class Queue:
    name: str
    qtype: int = C.MQQT_LOCAL
    description: str = ""
    max_depth: int = 5000
    max_msg_length: int = 4_194_304
    def_persistence: int = C.MQPER_NOT_PERSISTENT
    def_priority: int = 0
    inhibit_get: int = C.MQQA_GET_ALLOWED
    inhibit_put: int = C.MQQA_PUT_ALLOWED
    shareability: int = C.MQQA_SHAREABLE
    def_input_open_option: int = C.MQOO_INPUT_SHARED
    usage: int = C.MQUS_NORMAL
    definition_type: int = C.MQQDT_PREDEFINED
    def_type: int = C.MQQDT_PERMANENT_DYNAMIC  # model queues: what they create
    target: str = ""  # alias queues: TARGET (BaseQName)
    target_type: int = C.MQOT_Q
    created: float = 0.0
    altered: float = 0.0


@dataclasses.dataclass(slots=True)
class Topic:
    name: str
    topic_string: str
    description: str = ""
    durable_subscriptions: int = C.MQSUB_DURABLE_AS_PARENT
    def_priority: int = C.MQPRI_PRIORITY_AS_PARENT
    def_persistence: int = C.MQPER_PERSISTENCE_AS_PARENT
    def_put_response: int = C.MQPRT_RESPONSE_AS_PARENT
    durable_model_q: str = ""  # blank: as parent
    non_durable_model_q: str = ""
    inhibit_publications: int = C.MQTA_PUB_AS_PARENT
    inhibit_subscriptions: int = C.MQTA_SUB_AS_PARENT
    pm_delivery: int = C.MQDLV_AS_PARENT
    npm_delivery: int = C.MQDLV_AS_PARENT
    pub_scope: int = C.MQSCOPE_AS_PARENT
    sub_scope: int = C.MQSCOPE_AS_PARENT
    proxy_subscriptions: int = C.MQTA_PROXY_SUB_FIRSTUSE  # IBM's SYSTEM.BASE.TOPIC: PROXYSUB(FIRSTUSE)
    wildcard_operation: int = C.MQTA_PASSTHRU
    use_dlq: int = C.MQUSEDLQ_AS_PARENT
    multicast: int = C.MQMC_AS_PARENT
    topic_type: int = C.MQTOPT_LOCAL
    created: float = 0.0
    altered: float = 0.0


# SYSTEM.BASE.TOPIC holds concrete values; everything AS_PARENT resolves up to it.
BASE_TOPIC_VALUES = {
    "durable_subscriptions": C.MQSUB_DURABLE_ALLOWED,
    "def_priority": 0,
    "def_persistence": C.MQPER_NOT_PERSISTENT,
    "def_put_response": C.MQPRT_SYNC_RESPONSE,
    "durable_model_q": "SYSTEM.DURABLE.MODEL.QUEUE",
    "non_durable_model_q": "SYSTEM.NDURABLE.MODEL.QUEUE",
    "inhibit_publications": C.MQTA_PUB_ALLOWED,
    "inhibit_subscriptions": C.MQTA_SUB_ALLOWED,
    "pm_delivery": C.MQDLV_ALL_DUR,
    "npm_delivery": C.MQDLV_ALL_AVAIL,
    "pub_scope": C.MQSCOPE_ALL,
    "sub_scope": C.MQSCOPE_ALL,
    "use_dlq": C.MQUSEDLQ_YES,
    "multicast": C.MQMC_DISABLED,
}
