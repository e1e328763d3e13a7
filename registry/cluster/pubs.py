"""Clustered topics (IBM Docs "Direct routing in publish/subscribe clusters", "Topic host routing in
publish/subscribe clusters"): a publication on a topic at or below a clustered topic object goes, besides
this queue manager's own subscribers, to the other members with a subscription that selects it, and is
published there.

Each member's snapshot (snapshots.py) lists the clustered topic objects it defines (``topics``, with
CLROUTE) and the topic patterns of its subscriptions below any clustered topic it knows (``subs``, IBM's
proxy subscriptions).  The clustered topic object nearest above the topic string decides the route:

* DIRECT: the publisher's queue manager sends it to each member with a matching subscription;
* TOPICHOST: a queue manager that does not host the topic (define that object) sends it to one host,
  which publishes it to its own subscribers and sends it on to the members with a matching subscription
  (not back to where it came from); a host routes its own publications as DIRECT.

A retained publication goes to every member (each keeps it, so a later subscriber anywhere gets it).
A forwarded publication waits on SYSTEM.CLUSTER.TRANSMIT.QUEUE for the member's cluster-sender,
addressed to its SYSTEM.INTER.QMGR.PUBS, its data ``QMLPUB2\0``, a 4-byte big-endian length, a JSON
header (topic string, the body's Format/Encoding/CCSID, retain, origin, relay) and the body, the
publication's message properties in an MQRFH2 in front of it: a private format between qmlite queue
managers (docs/decisions.md CLU13, CLV4-CLV6).  The member's cluster agent publishes it there.
"""

from __future__ import annotations

import json

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S
from qmlite.pcf import properties as PR

from qmlite.registry.channels.syncrecords import correl_id
from qmlite.registry.cluster import resolution
from qmlite.registry.cluster.snapshots import SCTQ, Repository
from qmlite.registry.pubsub import topics

INTER_QMGR_PUBS = "SYSTEM.INTER.QMGR.PUBS"
_MAGIC = b"QMLPUB2\0"


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


def _covering(reg, repo: Repository, topic: str) -> tuple[str, int, set[str]] | None:
    """(topic string, CLROUTE, hosts) of the clustered topic object nearest above ``topic``."""
    me = reg.qmgr.name
    found: dict[str, tuple[int, set[str]]] = {}
    for t in reg.topics.values():
        if t.cluster_name and _under(topic, t.topic_string):
            found.setdefault(t.topic_string, (t.cluster_pub_route, set()))[1].add(me)
    for snap in repo.snapshots.values():
        for t in snap.get("topics", ()):
            if _under(topic, t["topicstr"]):
                found.setdefault(t["topicstr"], (t.get("clroute", C.MQCLROUTE_DIRECT), set()))[1].add(snap["qmgr"])
    if not found:
        return None
    root = max(found, key=len)
    return root, found[root][0], found[root][1]


def learnt_topic(reg, topic: str) -> tuple[str, int] | None:
    """(cluster, CLROUTE) of the clustered topic object nearest above ``topic`` among those other members
    define (DISPLAY TPSTATUS on a member that does not define it)."""
    repo: Repository | None = getattr(reg, "cluster_repository", None)
    best: tuple[str, str, int] | None = None
    for snap in repo.snapshots.values() if repo is not None else ():
        for t in snap.get("topics", ()):
            if _under(topic, t["topicstr"]) and (best is None or len(t["topicstr"]) > len(best[0])):
                best = (t["topicstr"], snap["cluster"], t.get("clroute", C.MQCLROUTE_DIRECT))
    return None if best is None else best[1:]


def learnt_topic_strings(reg) -> set[str]:
    repo: Repository | None = getattr(reg, "cluster_repository", None)
    return {t["topicstr"] for snap in (repo.snapshots.values() if repo is not None else ()) for t in
            snap.get("topics", ())}


def _host(reg, repo: Repository, hosts: set[str]) -> dict | None:
    """The host a non-host sends to: the first by name whose cluster-sender is not stopped, else the first
    (IBM balances hosts with the workload algorithm; CLV4)."""
    snaps = [s for (_, q), s in sorted(repo.snapshots.items()) if q in hosts]
    running = [s for s in snaps if resolution.channel_status(reg, s["channel"]["name"]) != C.MQCHS_STOPPED]
    return (running or snaps or [None])[0]


def forward(qm, topic: str, md: S.MQMD, body: bytes, props=None, retain: bool = False) -> int:
    """Send a publication made here on through the cluster; returns how many other members have a
    subscription that selects it."""
    reg = qm.registry
    repo: Repository | None = getattr(reg, "cluster_repository", None)
    if repo is None or getattr(reg, "cluster_republishing", False) or SCTQ not in reg.queues:
        return 0
    covering = _covering(reg, repo, topic)
    if covering is None:
        return 0
    _, route, hosts = covering
    payload = _payload(md, body, props)
    me = reg.qmgr.name
    if route == C.MQCLROUTE_TOPIC_HOST and me not in hosts:
        host = _host(reg, repo, hosts)
        if host is not None:
            _send(qm, host, topic, md, payload, retain, origin=me, relay=True)
        return len(_selecting(repo, topic, {me}))
    return fan_out(qm, repo, topic, md, payload, retain, origin=me, exclude={me})


def _selecting(repo: Repository, topic: str, exclude: set[str]) -> list[dict]:
    """One snapshot per other member with a subscription that selects ``topic``."""
    out, seen = [], set(exclude)
    for (_, qmgr), snap in sorted(repo.snapshots.items()):
        if qmgr in seen:
            continue
        if any(topics.matches(pattern, topic, schema) for pattern, schema in snap.get("subs", ())):
            seen.add(qmgr)
            out.append(snap)
    return out


def fan_out(qm, repo: Repository, topic: str, md: S.MQMD, payload: tuple, retain: bool, *, origin: str,
            exclude: set[str]) -> int:
    """Send to each member with a matching subscription (every member for a retained publication)."""
    selecting = _selecting(repo, topic, exclude)
    targets = selecting
    if retain:
        seen = set(exclude)
        targets = []
        for (_, qmgr), snap in sorted(repo.snapshots.items()):
            if qmgr not in seen:
                seen.add(qmgr)
                targets.append(snap)
    for snap in targets:
        _send(qm, snap, topic, md, payload, retain, origin=origin, relay=False)
    return len(selecting)


def _payload(md: S.MQMD, body: bytes, props) -> tuple[bytes, str, int, int]:
    """The body with the publication's properties in an MQRFH2 before it, and its Format/Encoding/CCSID."""
    if not props:
        return bytes(body), md.Format, md.Encoding, md.CodedCharSetId
    data, fmt = PR.join(props, bytes(body), md.Format, md.Encoding, md.CodedCharSetId)
    return data, fmt, md.Encoding, md.CodedCharSetId


def _send(qm, snap: dict, topic: str, md: S.MQMD, payload: tuple, retain: bool, *, origin: str,
          relay: bool) -> None:
    reg = qm.registry
    data, fmt, encoding, ccsid = payload
    header = json.dumps({"topic": topic, "format": fmt, "encoding": encoding, "ccsid": ccsid, "retain": retain,
                         "origin": origin, "relay": relay}, sort_keys=True).encode()
    inner = md.copy()
    inner.Format = C.MQFMT_NONE  # the queue sees our own format; the body's is in the header
    outer, packed = qm.puts.for_transmission(inner, _MAGIC + len(header).to_bytes(4, "big") + header + data,
                                             INTER_QMGR_PUBS, snap["qmgr"])
    outer.CorrelId = correl_id(snap["channel"]["name"])
    qm.enqueuer.put_message(reg.queues[SCTQ], outer, packed, qm.now())


def decode(data: bytes) -> tuple[dict, bytes] | None:
    """A forwarded publication's header (topic string, the body's format, ...) and body; None for
    anything else."""
    if not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + 4:
        return None
    n = int.from_bytes(data[len(_MAGIC):len(_MAGIC) + 4], "big")
    start = len(_MAGIC) + 4
    try:
        header = json.loads(data[start:start + n])
    except ValueError:
        return None
    if not (isinstance(header, dict) and isinstance(header.get("topic"), str)
            and isinstance(header.get("format", ""), str) and isinstance(header.get("encoding", 0), int)
            and isinstance(header.get("ccsid", 0), int) and isinstance(header.get("origin", ""), str)):
        return None
    return header, data[start + n:]


def republish(qm, md: S.MQMD, data: bytes) -> bool:
    """A publication another member forwarded, published here to the subscribers it has (kept when
    retained); a host relaying one (TOPICHOST) then sends it on to the members that want it."""
    decoded = decode(data)
    if decoded is None:
        return False
    header, body = decoded
    reg = qm.registry
    md = md.copy()
    md.Format = header.get("format", C.MQFMT_NONE)
    md.Encoding = header.get("encoding", md.Encoding)
    md.CodedCharSetId = header.get("ccsid", md.CodedCharSetId)
    retain = bool(header.get("retain"))
    reg.cluster_republishing = True
    try:
        qm.publish(header["topic"], md.copy(), body, options=C.MQPMO_RETAIN if retain else C.MQPMO_NONE)
    finally:
        reg.cluster_republishing = False
    repo = getattr(reg, "cluster_repository", None)
    if header.get("relay") and repo is not None and SCTQ in reg.queues:
        me, origin = reg.qmgr.name, header.get("origin", "")
        fan_out(qm, repo, header["topic"], md, (body, md.Format, md.Encoding, md.CodedCharSetId), retain,
                origin=origin, exclude={me, origin})
    return True
