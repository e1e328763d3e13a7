"""The registry: every administered object in memory, written through to the store.

Reads never touch the disk.  Every mutation goes to memory and to the store's pending transaction;
``commit()`` makes the pending changes durable.  Command handlers validate fully before they mutate,
so a command either changes nothing or changes everything it should.
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
from collections.abc import Callable, Iterator

from qmlite.pcf import constants as C
from qmlite.pcf import product
from qmlite.pcf.mqi import MQMD

from qmlite.registry import qmgrnames
from qmlite.registry.objects import defaults
from qmlite.registry.objects import values as V
from qmlite.registry.objects import generic
from qmlite.registry.objects import instances
from qmlite.registry.pubsub import topics
from qmlite.registry.objects.ids import IdGenerator
from qmlite.registry.messaging.expiry import tenths_elapsed
from qmlite.registry.messaging.queues import Message, MessageStore
from qmlite.registry.monitoring.counters import SubscriptionMarks
from qmlite.registry.objects.definitions import BASE_TOPIC_VALUES, Namelist, Process, Queue, Subscription, Topic
from qmlite.registry.storage.sqlite import ReadOnlyStore, Store


# Queue-manager fields that never come from the meta table: its identity and what this software is.
# MaxHandles is kept like any other attribute (ALTER QMGR MAXHANDS persists, as on MQ); a server
# configured with max_handles applies it over the stored value at start (docs/decisions.md G3).
NOT_PERSISTED = frozenset({"name", "created", "platform", "command_level"})


@dataclasses.dataclass(slots=True)
class QueueManager:
    name: str
    created: float
    dead_letter_queue: str
    description: str = ""
    altered: float = 0.0
    ccsid: int = 819
    platform: int = C.MQPL_UNIX
    command_level: int = product.COMMAND_LEVEL  # consistent with the FAP 13 / MQMM09010200 we claim
    max_handles: int = 256  # MAXHANDS (a configured max_handles overrides it at start, decision G3)
    max_msg_length: int = 4_194_304
    pubsub_mode: int = C.MQPSM_ENABLED
    # What DISPLAY QMGR shows on a new Linux queue manager (IBM's initial values).  Attributes an
    # administrator can change are fields, kept in the meta table one key per field once changed (all
    # but NOT_PERSISTED); the fixed ones are constants in registry/admin/commands/qmgr.py.
    conn_auth: str = "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"  # the developer container names DEV.AUTHINFO
    chlauth_records: int = 1  # CHLAUTH(ENABLED) (MQCHLA_ENABLED; registry/security/chlauth.py checks it)
    accounting_conn_override: int = C.MQMON_DISABLED
    accounting_interval: int = 1800
    accounting_mqi: int = C.MQMON_OFF
    accounting_q: int = C.MQMON_OFF
    activity_conn_override: int = C.MQMON_DISABLED
    activity_recording: int = C.MQRECORDING_MSG
    activity_trace: int = C.MQMON_OFF
    authority_event: int = C.MQEVR_DISABLED
    channel_auto_def: int = C.MQCHAD_DISABLED
    channel_auto_def_event: int = C.MQEVR_DISABLED
    channel_auto_def_exit: str = ""
    channel_event: int = C.MQEVR_DISABLED
    cluster_workload_data: str = ""
    cluster_workload_exit: str = ""
    cluster_workload_length: int = 100
    clwl_mru_channels: int = 999_999_999
    clwl_use_q: int = C.MQCLWL_USEQ_LOCAL
    command_event: int = C.MQEVR_DISABLED
    configuration_event: int = C.MQEVR_DISABLED
    custom: str = ""
    def_cluster_xmit_q_type: int = C.MQCLXQ_SCTQ
    def_xmit_q: str = ""
    inhibit_event: int = C.MQEVR_DISABLED
    local_event: int = C.MQEVR_DISABLED
    logger_event: int = C.MQEVR_DISABLED
    max_properties_length: int = C.MQPROP_UNRESTRICTED_LENGTH
    max_uncommitted_msgs: int = 10_000
    monitoring_auto_clussdr: int = C.MQMON_Q_MGR
    monitoring_channel: int = C.MQMON_OFF
    monitoring_q: int = C.MQMON_OFF
    msg_mark_browse_interval: int = 5000
    parent: str = ""
    performance_event: int = C.MQEVR_DISABLED
    pubsub_max_msg_retry_count: int = 5
    pubsub_np_msg: int = C.MQUNDELIVERED_DISCARD
    pubsub_np_resp: int = C.MQUNDELIVERED_NORMAL
    pubsub_sync_pt: int = C.MQSYNCPOINT_IFPER
    remote_event: int = C.MQEVR_DISABLED
    repository_name: str = ""
    repository_namelist: str = ""
    ssl_crl_namelist: str = ""
    ssl_crypto_hardware: str = ""
    ssl_event: int = C.MQEVR_DISABLED
    ssl_fips_required: int = C.MQSSL_FIPS_NO
    ssl_reset_count: int = 0
    start_stop_event: int = C.MQEVR_ENABLED
    statistics_auto_clussdr: int = C.MQMON_Q_MGR
    statistics_channel: int = C.MQMON_OFF
    statistics_interval: int = 1800
    statistics_mqi: int = C.MQMON_OFF
    statistics_q: int = C.MQMON_OFF
    trace_route_recording: int = C.MQRECORDING_MSG
    tree_life_time: int = 1800
    trigger_interval: int = 999_999_999
    # Attributes Inquire Q Mgr reported as constants until Change Q Mgr could set them (IBM's initial
    # values on Multiplatforms).
    authority_event_scope: int = V.MQAUSC_FAILURES  # AUTHEVSC(FAILURES)
    cert_val_policy: int = C.MQ_CERT_VAL_POLICY_ANY
    chinit_control: int = C.MQSVC_CONTROL_Q_MGR
    cmd_server_control: int = C.MQSVC_CONTROL_Q_MGR
    ip_address_version: int = V.MQIPADDR_IPV4
    reverse_dns_lookup: int = V.MQRDNS_ENABLED
    suite_b_strength: tuple[int, ...] = (C.MQ_SUITE_B_NONE,)
    media_image_interval: int = 60  # IMGINTVL(60), IBM's default ("Automatic media imaging")
    media_image_log_length: int = 0  # IMGLOGLN(OFF)
    media_image_recover_obj: int = V.MQIMGRCOV_YES
    media_image_recover_q: int = V.MQIMGRCOV_YES
    media_image_scheduling: int = V.MQMEDIMGSCHED_MANUAL
    pubsub_cluster: int = C.MQPSCLUS_ENABLED
    # SSLKEYR and CERTLABL: IBM's initial values derive from the queue manager's name (filled in by
    # __post_init__ when left blank at construction); once changed they are stored like the rest.
    ssl_key_repository: str = ""
    cert_label: str = ""
    ssl_key_repo_password: str = ""  # KEYRPWD: stored, never shown (Inquire gives asterisks)
    initial_key: str = ""  # INITKEY: likewise

    def __post_init__(self) -> None:
        if not self.ssl_key_repository:
            self.ssl_key_repository = f"/var/mqm/qmgrs/{self.name}/ssl/key"
        if not self.cert_label:
            self.cert_label = "ibmwebspheremq" + self.name.lower()

    @classmethod
    def from_meta(cls, name: str, meta: dict[str, object]) -> QueueManager:
        """The queue manager the meta table records; a field never recorded has its initial value."""
        created = float(meta["created"])  # type: ignore[arg-type]
        qmgr = cls(name, created, "", altered=created)
        for f in dataclasses.fields(cls):
            if f.name not in NOT_PERSISTED and f.name in meta:
                default = f.default if f.default is not dataclasses.MISSING else ""
                value = meta[f.name]
                if isinstance(default, tuple):  # an integer list, kept as "2,4"
                    setattr(qmgr, f.name, tuple(int(v) for v in str(value).split(",") if v))
                else:
                    setattr(qmgr, f.name, type(default)(value))
        return qmgr

    def meta_value(self, field: str) -> object:
        """A field as the meta table keeps it (an integer list as comma-separated text)."""
        value = getattr(self, field)
        return ",".join(str(v) for v in value) if isinstance(value, tuple) else value

    @property
    def identifier(self) -> str:
        return qmgrnames.identifier(self.name, self.created)  # fits MQCHAR48 for any name (NM3)



@dataclasses.dataclass(slots=True)
class Retained:
    """A topic's retained publication: its MQMD, message properties and body, as published, and when
    (its Expiry counts down from then, as a message's does on a queue)."""

    md: object
    props: object
    body: bytes
    put_time: float = 0.0

    def expiry_left(self, now: float) -> int | None:
        """Tenths of a second still to run: -1 unlimited, None when it has expired."""
        expiry = self.md.Expiry  # type: ignore[attr-defined]
        if expiry < 0:
            return -1
        left = expiry - tenths_elapsed(self.put_time, now)  # whole tenths, as a queued message's
        return left if left > 0 else None


_MISSING = object()


def _ignore_subscription(sub: Subscription) -> None:
    pass

_TOPIC_FIELDS = Topic.__dataclass_fields__  # type: ignore[attr-defined]
_TOPIC_ATTR_CACHE = 65_536


class Registry:
    def __init__(self, store: Store | ReadOnlyStore, qmgr: QueueManager, *,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.qmgr = qmgr
        self.clock = clock
        self.subs: dict[str, Subscription] = {}
        self.subs_by_id: dict[bytes, Subscription] = {}
        self.sub_marks = SubscriptionMarks()  # the statistics' subscription high/low-water marks
        self.queues: dict[str, Queue] = {}
        self.topics: dict[str, Topic] = {}
        self.topics_by_string: dict[str, Topic] = {}
        self.namelists: dict[str, Namelist] = {}
        self.processes: dict[str, Process] = {}
        # The generic kinds (registry/objects/generic.py): kind name -> object name -> object.
        self.definitions: dict[str, dict[str, object]] = {name: {} for name in generic.all_kinds()}
        self.running = instances.Running()  # channel instances, listeners: what runs now, never stored
        self.routes = topics.TopicIndex()  # subscription id -> resolved topic pattern
        self._topic_attrs: dict[tuple[str, str], object] = {}  # topic_attr's answers, until a topic changes
        self.topic_generation = 0  # how often a topic object changed: what remembers answers from them keys on it
        self.retained: dict[str, Retained] = {}  # topic string -> its retained publication
        # Told of each administered subscription Create/Copy Subscription makes (the queue manager
        # sends it the retained publications it matches); a plain callable, as on_available is.
        self.on_new_subscription: Callable[[Subscription], None] = _ignore_subscription
        self._expiring: set[bytes] = set()
        self.ids = IdGenerator(qmgr.name)
        self.dev_objects = False  # whether this queue manager has the developer container's DEV objects
        self.messages = MessageStore()  # contents of local queues; definitions live above
        # The error log and the recent refusals (registry/monitoring/diagnostics.py), set by the QueueManager:
        # the checks that only get the registry (security/chlauth.py) report there.
        self.diagnostics = None

    # ---- opening -------------------------------------------------------------------------------
    @classmethod
    def open(cls, data_dir: pathlib.Path, qmgr_name: str = "QM1", *, dev_objects: bool = True,
             clock: Callable[[], float] = time.time, synchronous: str = "FULL") -> Registry:
        store = Store.open(data_dir, synchronous=synchronous)
        meta = store.meta()
        now = clock()
        if "qmgr_name" not in meta:
            dlq = defaults.DEV_DEAD_LETTER_QUEUE if dev_objects else defaults.SYSTEM_DEAD_LETTER_QUEUE
            qmgr = QueueManager(qmgr_name, now, dlq, altered=now,
                                conn_auth=defaults.DEV_CONN_AUTH if dev_objects else defaults.SYSTEM_CONN_AUTH)
            reg = cls(store, qmgr, clock=clock)
            reg._first_start(dev_objects)
        else:
            if meta["qmgr_name"] != qmgr_name:
                store.close()
                raise ValueError(f"{data_dir} holds queue manager {meta['qmgr_name']!r}, not {qmgr_name!r}")
            qmgr = QueueManager.from_meta(qmgr_name, meta)
            reg = cls(store, qmgr, clock=clock)
            reg._load()
        reg.seed_system_queues()
        if "qmgr_name" in meta:
            # Recorded at the first start since issue 21; a data directory from before tells by its DEADQ.
            dev_objects = (bool(int(meta["dev_objects"])) if "dev_objects" in meta  # type: ignore[arg-type]
                           else qmgr.dead_letter_queue == defaults.DEV_DEAD_LETTER_QUEUE)
        reg.dev_objects = dev_objects
        store.set_meta("dev_objects", int(dev_objects))
        reg.seed_generic(dev_objects)
        # A restarted queue manager must never reissue an identifier: start after the newest seen.
        reg.ids.start_time = max(int(now), int(meta.get("id_epoch", 0)) + 1)
        store.set_meta("id_epoch", reg.ids.start_time)
        store.commit()
        return reg

    @classmethod
    def open_readonly(cls, data_dir: pathlib.Path) -> Registry:
        """The definitions of a data directory, for reading only (no messages, no writes): safe while a
        server runs on it.  What the Spark pipeline routes against (pipeline/)."""
        store = ReadOnlyStore.open(data_dir)
        try:
            meta = store.meta()
            reg = cls(store, QueueManager.from_meta(str(meta["qmgr_name"]), meta))  # type: ignore[arg-type]
            reg._load_definitions()
        finally:
            store.close()
        return reg

    def _first_start(self, dev_objects: bool) -> None:
        now = self.clock()
        q = self.qmgr
        for key, value in (("qmgr_name", q.name), ("created", q.created),
                           ("dead_letter_queue", q.dead_letter_queue), ("description", q.description),
                           ("conn_auth", q.conn_auth)):
            self.store.set_meta(key, value)
        self.ids.start_time = int(now)
        for queue in defaults.system_queues() + (defaults.dev_queues() if dev_objects else []):
            queue.created = queue.altered = now
            self.put_queue(queue)
        for topic in defaults.system_topics() + (defaults.dev_topics() if dev_objects else []):
            topic.created = topic.altered = now
            self.put_topic(topic)
        for namelist in defaults.system_namelists():
            namelist.created = namelist.altered = now
            self.put_namelist(namelist)
        for process in defaults.system_processes():
            process.created = process.altered = now
            self.put_process(process)
        for sub in defaults.system_subscriptions(self.ids.sub_id()):
            sub.created = sub.altered = now
            sub.destination_correl_id = sub.sub_id
            self.put_sub(sub)

    def _load_definitions(self) -> None:
        for queue in self.store.load(Queue):
            self.queues[queue.name] = queue
        for topic in self.store.load(Topic):
            self.topics[topic.name] = topic
            self.topics_by_string[topic.topic_string] = topic
        self._topic_attrs.clear()
        self.topic_generation += 1
        for topic, md_raw, props, data, put_time in self.store.load_retained():
            self.retained[topic] = Retained(MQMD.unpack(md_raw, 0, "<")[0], props, data, put_time)
        self.namelists.update((n.name, n) for n in self.store.load(Namelist))
        for name, kind in generic.all_kinds().items():
            self.definitions[name].update((obj.name, obj) for obj in self.store.load_generic(kind))
        self.processes.update((p.name, p) for p in self.store.load(Process))
        subs, by_id, routes, expiring = self.subs, self.subs_by_id, self.routes, self._expiring
        no_connection = bytes(24)
        for sub in self.store.load(Subscription):
            sub.active_connection = no_connection  # a restarted queue manager has no connections
            subs[sub.name] = sub
            by_id[sub.sub_id] = sub
            routes.add(sub.sub_id, sub.resolved_topic, sub.wildcard_schema)
            if sub.expiry >= 0:
                expiring.add(sub.sub_id)
        self.sub_marks.restart(by_id.values())

    def _load(self) -> None:
        self._load_definitions()
        self._load_messages()

    def _load_messages(self) -> None:
        """Persistent messages, back on their queues in their order (uncommitted work never reached
        the disk, so what is loaded is exactly what was committed)."""
        by_queue: dict[str, list[Message]] = {}
        last = 0
        loader = self.store.read_message
        zero = bytes(24)
        for seq, queue, priority, msg_id, correl_id, put_time, expires_at in self.store.load_messages():
            msgs = by_queue.get(queue)
            if msgs is None:
                msgs = by_queue[queue] = []
            msgs.append(Message(None, None, priority, msg_id, zero if correl_id == zero else correl_id, put_time,
                                expires_at, seq, True, None, 0, loader))
            last = seq
        for queue, msgs in by_queue.items():
            if queue in self.queues:
                self.messages.contents(queue).load(msgs)
            else:  # a queue deleted in the same commit as a late message cannot happen; be safe anyway
                self.store.delete_queue_messages(queue)
        self.messages.start_seq_after(last)

    # ---- subscriptions ---------------------------------------------------------------------------
    def put_sub(self, sub: Subscription) -> None:
        old = self.subs_by_id.get(sub.sub_id)
        if old is not None:
            self.routes.remove(old.sub_id, old.resolved_topic, old.wildcard_schema)
            if old.name != sub.name:
                del self.subs[old.name]
        same_name = self.subs.get(sub.name)
        if same_name is not None and same_name.sub_id != sub.sub_id:
            # One name, one subscription: the store's unique name index would drop the old row anyway.
            self.remove_sub(same_name)
        self.subs[sub.name] = sub
        self.subs_by_id[sub.sub_id] = sub
        if old is None:
            self.sub_marks.added(sub)
            self.nudge_cluster()
        self.routes.add(sub.sub_id, sub.resolved_topic, sub.wildcard_schema)
        if sub.expiry >= 0:
            self._expiring.add(sub.sub_id)
        else:
            self._expiring.discard(sub.sub_id)
        if sub.durable == C.MQSUB_DURABLE_YES:  # a non-durable subscription dies with its connection
            self.store.put(sub)

    def nudge_cluster(self, joining: bool = False) -> None:
        """Wake the cluster agent to look again, when it may have something to do: a cluster member tells the
        others of a subscription come or gone (registry/cluster/pubs.py) and of a command's changes; a queue manager
        in no cluster has no repository and nobody to tell, unless the change can put it in one (``joining``: the
        engine's ``CLUSTER_SHAPING`` commands, decision CLU16)."""
        nudge = getattr(self, "cluster_nudge", None)
        if nudge is not None and (joining or getattr(self, "cluster_repository", None) is not None):
            nudge()

    def remove_sub(self, sub: Subscription) -> None:
        self.subs.pop(sub.name, None)
        self.nudge_cluster()
        if self.subs_by_id.pop(sub.sub_id, None) is not None:
            self.sub_marks.removed(sub)
        self.routes.remove(sub.sub_id, sub.resolved_topic, sub.wildcard_schema)
        self._expiring.discard(sub.sub_id)
        if sub.durable == C.MQSUB_DURABLE_YES:
            self.store.delete(Subscription, sub.sub_id)

    def expire_subscriptions(self) -> list[Subscription]:
        """Remove subscriptions whose Expiry has passed (MQ deletes them); returns what went."""
        if not self._expiring:
            return []
        now = self.clock()
        gone = []
        for sub_id in list(self._expiring):
            sub = self.subs_by_id[sub_id]
            at = sub.expires_at()
            if at is not None and at <= now:
                gone.append(sub)
        for sub in gone:
            self.delete_sub(sub)
        return gone

    def delete_sub(self, sub: Subscription) -> None:
        """Remove a subscription as MQ deletes one: a managed destination queue and its messages go too."""
        self.remove_sub(sub)
        if sub.destination_class == C.MQDC_MANAGED:
            queue = self.queues.get(sub.destination)
            if queue is not None:
                self.remove_queue(queue)

    # ---- queues and topics -----------------------------------------------------------------------
    def put_queue(self, queue: Queue) -> None:
        self.queues[queue.name] = queue
        self.store.put(queue)

    def remove_queue(self, queue: Queue) -> None:
        self.queues.pop(queue.name, None)
        self.drop_messages(queue.name)
        self.store.delete(Queue, queue.name)

    def drop_messages(self, name: str, *, keep_queue: bool = False) -> int:
        """Every message of a queue goes (Clear Queue, Delete Queue with purge); returns how many."""
        gone = self.messages.clear(name) if keep_queue else self.messages.drop(name)
        if any(m.persistent for m in gone):
            self.store.delete_queue_messages(name)
        return len(gone)

    def put_topic(self, topic: Topic) -> None:
        old = self.topics.get(topic.name)
        if old is not None and self.topics_by_string.get(old.topic_string) is old:
            del self.topics_by_string[old.topic_string]
        self.topics[topic.name] = topic
        self.topics_by_string[topic.topic_string] = topic
        self.store.put(topic)
        self._topic_attrs.clear()
        self.topic_generation += 1

    def remove_topic(self, topic: Topic) -> None:
        self.topics.pop(topic.name, None)
        if self.topics_by_string.get(topic.topic_string) is topic:
            del self.topics_by_string[topic.topic_string]
        self.store.delete(Topic, topic.name)
        self._topic_attrs.clear()
        self.topic_generation += 1

    # ---- retained publications -------------------------------------------------------------------
    def retain(self, topic: str, md, props, body: bytes) -> None:
        """MQPMO_RETAIN: this publication replaces the topic's retained one (written when persistent)."""
        now = self.clock()
        self.retained[topic] = Retained(md, props, body, now)
        if md.Persistence == C.MQPER_PERSISTENT:
            self.store.put_retained(topic, md, props, body, now)
        else:
            self.store.delete_retained(topic)  # a persistent one it replaces must not come back at restart

    def forget_retained(self, topic: str) -> bool:
        """CLEAR TOPICSTR CLTRTYPE(RETAINED): True when there was one."""
        if self.retained.pop(topic, None) is None:
            return False
        self.store.delete_retained(topic)
        return True

    # ---- namelists and process definitions -------------------------------------------------------
    def put_namelist(self, namelist: Namelist) -> None:
        self.namelists[namelist.name] = namelist
        self.store.put(namelist)

    def remove_namelist(self, namelist: Namelist) -> None:
        self.namelists.pop(namelist.name, None)
        self.store.delete(Namelist, namelist.name)

    def put_process(self, process: Process) -> None:
        self.processes[process.name] = process
        self.store.put(process)

    def remove_process(self, process: Process) -> None:
        self.processes.pop(process.name, None)
        self.store.delete(Process, process.name)

    # ---- generic kinds (registry/objects/generic.py) ------------------------------------------------------
    def objects(self, kind: str) -> dict[str, object]:
        """The objects of a generic kind by name (channels, authinfo, ...)."""
        return self.definitions[kind]

    def put_object(self, kind: str, obj) -> None:
        self.definitions[kind][obj.name] = obj
        self.store.put_generic(kind, obj)

    def remove_object(self, kind: str, obj) -> None:
        self.definitions[kind].pop(obj.name, None)
        self.store.delete_generic(kind, obj.name)

    def seed_system_queues(self) -> None:
        """The SYSTEM queues added after a data directory was made (defaults.more_system_queues),
        once: a deleted one stays deleted."""
        key = "seeded.system_queues.7"
        if key in self.store.meta():
            return
        now = self.clock()
        for queue in defaults.more_system_queues():
            if queue.name not in self.queues:
                queue.created = queue.altered = now
                self.put_queue(queue)
        self.store.set_meta(key, 1)

    def seed_generic(self, dev_objects: bool) -> None:
        """Each generic kind's default objects, once per data directory: the first start that knows
        the kind adds them (a deleted default stays deleted afterwards)."""
        meta = self.store.meta()
        now = self.clock()
        for name, kind in generic.all_kinds().items():
            key = f"seeded.{name}"
            if key in meta:
                continue
            for obj in kind.defaults(dev_objects):
                if obj.name not in self.definitions[name]:
                    if hasattr(obj, "created"):
                        obj.created = obj.altered = now
                    self.put_object(name, obj)
            self.store.set_meta(key, 1)

    # ---- topic tree ------------------------------------------------------------------------------
    def topic_nodes(self, topic_string: str) -> Iterator[Topic]:
        """Administered topic objects from ``topic_string`` up to SYSTEM.BASE.TOPIC, nearest first."""
        levels = topic_string.split(topics.SEPARATOR) if topic_string else []
        for depth in range(len(levels), 0, -1):
            node = self.topics_by_string.get(topics.SEPARATOR.join(levels[:depth]))
            if node is not None:
                yield node
        base = self.topics_by_string.get("")
        if base is not None:
            yield base

    def topic_attr(self, topic_string: str, field: str) -> object:
        """A topic attribute as it applies at ``topic_string``: AS_PARENT values resolve upwards.

        Answers are remembered until a topic object changes: every publication asks for its topic's
        DefPersistence, DefPriority or delivery rules, and walking the tree costs a join per level.
        """
        key = (topic_string, field)
        cache = self._topic_attrs
        value = cache.get(key, _MISSING)
        if value is not _MISSING:
            return value
        as_parent = _TOPIC_FIELDS[field].default
        for node in self.topic_nodes(topic_string):
            value = getattr(node, field)
            if value != as_parent:
                break
        else:
            value = BASE_TOPIC_VALUES.get(field, as_parent)
        if len(cache) >= _TOPIC_ATTR_CACHE:
            cache.clear()  # a bound, not an LRU: topics that publications use come straight back
        cache[key] = value
        return value

    def nearest_topic(self, topic_string: str) -> Topic | None:
        """The administered topic object at ``topic_string`` or nearest above it (None: not even
        SYSTEM.BASE.TOPIC), remembered with ``topic_attr``'s answers until a topic object changes."""
        key = (topic_string, "")  # no attribute is named ""
        cache = self._topic_attrs
        node = cache.get(key, _MISSING)
        if node is _MISSING:
            node = next(self.topic_nodes(topic_string), None)
            if len(cache) >= _TOPIC_ATTR_CACHE:
                cache.clear()
            cache[key] = node
        return node

    def set_created(self, created: float) -> None:
        """A just-created queue manager's creation time (its QMID and CRDATE/CRTIME), when its first
        client was given the QMID before the queue manager existed (registry/hosting.py, NM5)."""
        self.qmgr.created = created
        self.store.set_meta("created", created)
        self.store.commit()

    # ---- durability ------------------------------------------------------------------------------
    def commit(self) -> None:
        self.store.commit()

    def close(self) -> None:
        self.store.close()

    def now(self) -> float:
        return self.clock()
