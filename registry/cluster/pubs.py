"""Clustered topics, DIRECT routing (IBM Docs "Direct routing in publish/subscribe clusters"): a
publication on a topic at or below a clustered topic object goes, besides this queue manager's own
subscribers, to every other member with a subscription that selects it, and is published there.

Each member's snapshot (snapshots.py) lists the clustered topic objects it defines (``topics``) and
the topic patterns of its subscriptions below any clustered topic it knows (``subs``, IBM's proxy
subscriptions).  A forwarded publication waits on SYSTEM.CLUSTER.TRANSMIT.QUEUE for the member's
cluster-sender, addressed to its SYSTEM.INTER.QMGR.PUBS, its data prefixed by the topic string
(``QMLPUB1`` + a 4-byte length + UTF-8), a private format between qmlite queue managers (docs/decisions.md
CLU13); the member's cluster agent publishes it there, where it is forwarded no further.
TOPICHOST routing is treated as DIRECT.
"""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.channels.syncrecords import correl_id
from qmlite.registry.cluster.snapshots import SCTQ, Repository
from qmlite.registry.pubsub import topics

INTER_QMGR_PUBS = "SYSTEM.INTER.QMGR.PUBS"
_MAGIC = b"QMLPUB1\0"


def _under(topic: str, root: str) -> bool:
    return not root or topic == root or topic.startswith(root + "/")


def clustered_roots(registry, repo: Repository | None) -> set[str]:
    """The topic strings of every clustered topic object this queue manager defines or was told of."""
    roots = {t.topic_string for t in registry.topics.values() if t.cluster_name}
    if repo is not None:
        for snap in repo.snapshots.values():
            roots.update(t["topicstr"] for t in snap.get("topics", ()))
    return roots


def own_topics(registry, cluster: str) -> list[dict]:
    return [{"name": t.name, "topicstr": t.topic_string, "clroute": t.cluster_pub_route}
            for t in sorted(registry.topics.values(), key=lambda t: t.name) if t.cluster_name == cluster]


def own_subscriptions(registry, roots: set[str]) -> list[list]:
    """[pattern, wildcard schema] of each subscription at or below a clustered topic (no duplicates)."""
    seen = {(s.resolved_topic, s.wildcard_schema) for s in registry.subs.values()
            if not s.resolved_topic.startswith("$SYS") and any(_under(s.resolved_topic, r) for r in roots)}
    return [list(p) for p in sorted(seen)]


def forward(qm, topic: str, md: S.MQMD, body: bytes) -> int:
    """Send a publication made here to each member with a subscription that selects it; returns how many."""
    reg = qm.registry
    repo: Repository | None = getattr(reg, "cluster_repository", None)
    if repo is None or getattr(reg, "cluster_republishing", False) or SCTQ not in reg.queues:
        return 0
    if not any(_under(topic, r) for r in clustered_roots(reg, repo)):
        return 0
    me, sent = reg.qmgr.name, set()
    for (_, qmgr), snap in sorted(repo.snapshots.items()):
        if qmgr == me or qmgr in sent:
            continue
        if not any(topics.matches(pattern, topic, schema) for pattern, schema in snap.get("subs", ())):
            continue
        sent.add(qmgr)
        data = _MAGIC + len(topic.encode()).to_bytes(4, "big") + topic.encode() + bytes(body)
        outer, packed = qm.puts.for_transmission(md.copy(), data, INTER_QMGR_PUBS, qmgr)
        outer.CorrelId = correl_id(snap["channel"]["name"])
        qm.enqueuer.put_message(reg.queues[SCTQ], outer, packed, qm.now())
    return len(sent)


def decode(data: bytes) -> tuple[str, bytes] | None:
    """A forwarded publication's topic string and body; None for anything else."""
    if not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + 4:
        return None
    n = int.from_bytes(data[len(_MAGIC):len(_MAGIC) + 4], "big")
    start = len(_MAGIC) + 4
    try:
        return data[start:start + n].decode(), data[start + n:]
    except UnicodeDecodeError:
        return None


def republish(qm, md: S.MQMD, data: bytes) -> bool:
    """A publication another member forwarded, published here to the subscribers it has (and no further)."""
    decoded = decode(data)
    if decoded is None:
        return False
    topic, body = decoded
    reg = qm.registry
    reg.cluster_republishing = True
    try:
        qm.publish(topic, md, body, options=C.MQPMO_NONE)
    finally:
        reg.cluster_republishing = False
    return True
