"""IBM's cluster workload management algorithm as a pure function (IBM Docs "The cluster workload
management algorithm"): given every instance of a cluster queue, which one gets the next message.

The steps, in IBM's order (docs/decisions.md CLU4):

1. Instances that are PUT(DISABLED) go.
2. CLWLUSEQ: a local instance is chosen outright when the queue's CLWLUSEQ is LOCAL (or QMGR, and the
   queue manager's is LOCAL); with ANY it competes with the remote ones.
3. The highest CLWLRANK of the cluster-receiver channel, then of the queue.
4. Suspended queue managers go, unless all are.
5. Channel status: INACTIVE or RUNNING first; else BINDING, INITIALIZING, STARTING, STOPPING; else
   RETRYING; STOPPED (or PAUSED) only when nothing else is left.  The highest NETPRTY among those kept.
6. The highest CLWLPRTY of the channel, then of the queue.
7. CLWLMRUC: when more remote instances are left than the queue manager's CLWLMRUC and at least that
   many have been used, only the CLWLMRUC most recently used stay (so at most that many outbound
   cluster channels are in use; CLV7).
8. The least used, weighted by CLWLWGHT: the instance with the fewest messages sent per unit of weight
   (``sent / weight``), ties to the earlier name -- so equal weights alternate and weights 1 and 3
   split 1 : 3, deterministically (IBM's "least recently used" with weighting; CLU5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from qmlite.pcf import constants as C

_BEST = frozenset({C.MQCHS_INACTIVE, C.MQCHS_RUNNING})
_STARTING = frozenset({C.MQCHS_BINDING, C.MQCHS_INITIALIZING, C.MQCHS_STARTING, C.MQCHS_STOPPING,
                       C.MQCHS_REQUESTING, C.MQCHS_SWITCHING})
_RETRYING = frozenset({C.MQCHS_RETRYING})


@dataclass(frozen=True, slots=True)
class Instance:
    """One instance of a cluster queue: the queue manager hosting it and what the algorithm weighs."""

    qmgr: str
    local: bool = False
    put_enabled: bool = True
    channel_rank: int = 0  # CLWLRANK of the queue manager's cluster-receiver channel
    queue_rank: int = 0  # CLWLRANK of the queue
    channel_priority: int = 0  # CLWLPRTY of the channel
    queue_priority: int = 0  # CLWLPRTY of the queue
    weight: int = 50  # CLWLWGHT of the channel (1-99)
    network_priority: int = 0  # NETPRTY of the channel
    channel_status: int = C.MQCHS_INACTIVE  # the cluster-sender's to it (a local instance: INACTIVE)
    suspended: bool = False
    sent: int = 0  # messages this queue manager has sent it so far
    last_used: int = 0  # when its channel was last chosen (a counter; 0: never), for CLWLMRUC


def uses_local(queue_use: int, qmgr_use: int) -> bool:
    """Whether CLWLUSEQ makes a local instance the only choice (the queue's, or AS_Q_MGR the queue manager's)."""
    use = qmgr_use if queue_use == C.MQCLWL_USEQ_AS_Q_MGR else queue_use
    return use != C.MQCLWL_USEQ_ANY


def _highest(items: list[Instance], key) -> list[Instance]:
    top = max(key(i) for i in items)
    return [i for i in items if key(i) == top]


def _status_class(i: Instance) -> int:
    if i.local or i.channel_status in _BEST:
        return 0
    if i.channel_status in _STARTING:
        return 1
    if i.channel_status in _RETRYING:
        return 2
    return 3


def eligible(instances: Sequence[Instance], *, local_only: bool) -> list[Instance]:
    """Steps 1-6: the instances left for the weighted choice (empty: none can take a message)."""
    left = [i for i in instances if i.put_enabled]
    if not left:
        return []
    if local_only and any(i.local for i in left):
        return [i for i in left if i.local]
    left = _highest(left, lambda i: i.channel_rank)
    left = _highest(left, lambda i: i.queue_rank)
    if not all(i.suspended for i in left):
        left = [i for i in left if not i.suspended]
    best = min(_status_class(i) for i in left)
    left = [i for i in left if _status_class(i) == best]
    left = _highest(left, lambda i: i.network_priority)
    left = _highest(left, lambda i: i.channel_priority)
    return _highest(left, lambda i: i.queue_priority)


def most_recently_used(left: list[Instance], mru: int) -> list[Instance]:
    """Step 7: the local instance and the ``mru`` most recently used remote ones, when more are left."""
    remote = [i for i in left if not i.local]
    used = sorted((i for i in remote if i.last_used), key=lambda i: i.last_used, reverse=True)
    if len(remote) <= mru or len(used) < mru:
        return left
    kept = {id(i) for i in used[:mru]}
    return [i for i in left if i.local or id(i) in kept]


def choose(instances: Sequence[Instance], *, local_only: bool = True, mru: int = 999_999_999) -> Instance | None:
    """The instance the next message goes to, or None when every instance is put-inhibited."""
    left = eligible(instances, local_only=local_only)
    if not left:
        return None
    left = most_recently_used(left, mru)
    best = left[0]
    for i in left[1:]:
        # i.sent / i.weight < best.sent / best.weight, without fractions; ties keep the earlier name.
        mine, theirs = i.sent * max(best.weight, 1), best.sent * max(i.weight, 1)
        if mine < theirs or (mine == theirs and i.qmgr < best.qmgr):
            best = i
    return best
