"""Which CCDT channels a connect tries, and in what order: IBM's queue-manager name rules and its channel
selection (CLNTWGHT, AFFINITY), standard library only.

The name an application passes to MQCONN/MQCONNX decides the candidates and whether the queue
manager reached must have that name (IBM, "Queue manager groups in the CCDT" and "Examples of MQCONN
calls"):

* ``QM1``: the channels whose queueManager is ``QM1``; the queue manager reached must be QM1
  (otherwise MQRC_Q_MGR_NAME_ERROR);
* ``*QM1``: the same channels (the group QM1); the name of the queue manager reached is not checked;
* blank or ``*``: the channels whose queueManager is blank; not checked.

No candidate: MQRC_Q_MGR_NAME_ERROR (2058).  The candidates' order (IBM, "Client channel weight
(CLNTWGHT)" and "ConnectionAffinity"): those with CLNTWGHT(0) first, alphabetically by channel name
(same-name JSON entries in file order); then the others in a random order weighted by CLNTWGHT.  With
AFFINITY(PREFERRED) that order is the same on every connect from a host (seeded by the host name) and
kept for the process: a weighted channel that failed moves to the end of the list.  With AFFINITY(NONE)
every connect draws a new order.  Each channel's connection list is tried in order.
"""

from __future__ import annotations

import dataclasses
import random
import socket
import threading

from qmlite.pcf import ccdt

MQRC_Q_MGR_NAME_ERROR = 2058  # cmqc.h
MQCAFTY_PREFERRED = 1


@dataclasses.dataclass(frozen=True, slots=True)
class NameRule:
    """What an MQCONN name asks for: ``group`` is the queueManager value the candidates carry,
    ``check`` the name sent to the queue manager to be checked ("" when it is not checked)."""

    group: str
    check: str


def name_rule(qmgr_name: str) -> NameRule:
    name = (qmgr_name or "").rstrip(" \0")
    if name in ("", "*"):
        return NameRule("", "")
    if name.startswith("*"):
        return NameRule(name[1:], "")
    return NameRule(name, name)


class NoCandidate(LookupError):
    reason = MQRC_Q_MGR_NAME_ERROR


# The process's preferred orders (AFFINITY(PREFERRED)), by CCDT source and group: IBM keeps the list a
# first connect made, demoting weighted channels that failed, for every later connect in the process.
_preferred: dict[tuple[str, str], list[tuple[str, int]]] = {}
_lock = threading.Lock()


def candidates(channels: list[ccdt.ClientChannel], qmgr_name: str, *, source: str = "",
               rng: random.Random | None = None) -> tuple[list[ccdt.ClientChannel], NameRule]:
    """The channels to try for ``qmgr_name``, in order, and the name rule; NoCandidate when none match."""
    rule = name_rule(qmgr_name)
    matching = [ch for ch in channels if ch.queue_manager == rule.group]
    if not matching:
        shown = rule.group or "(blank)"
        raise NoCandidate(f"no client-connection channel in the CCDT has queueManager {shown!r}")
    ordered = sorted(matching, key=lambda ch: (ch.name, ch.sequence))
    fixed = [ch for ch in ordered if ch.client_weight == 0]
    weighted = [ch for ch in ordered if ch.client_weight > 0]
    if not weighted:
        return fixed, rule
    # AFFINITY is a per-channel attribute but orders the group as a whole: PREFERRED unless every
    # weighted candidate says NONE (docs/decisions.md Y4)
    preferred = any(ch.affinity == MQCAFTY_PREFERRED for ch in weighted)
    if not preferred:
        return fixed + _weighted_order(weighted, rng or random.Random()), rule
    key = (source, rule.group)
    ids = {(ch.name, ch.sequence): ch for ch in weighted}
    with _lock:
        kept = _preferred.get(key)
        if kept is None or set(kept) != set(ids):  # first connect, or the CCDT changed
            seed = rng or random.Random(socket.gethostname())
            kept = [(ch.name, ch.sequence) for ch in _weighted_order(weighted, seed)]
            _preferred[key] = kept
        order = [ids[k] for k in kept]
    return fixed + order, rule


def demote(channel: ccdt.ClientChannel, qmgr_name: str, *, source: str = "") -> None:
    """A weighted PREFERRED channel failed: it goes to the end of the process's list."""
    if channel.client_weight == 0:
        return
    key = (source, name_rule(qmgr_name).group)
    ident = (channel.name, channel.sequence)
    with _lock:
        kept = _preferred.get(key)
        if kept and ident in kept:
            kept.remove(ident)
            kept.append(ident)


def forget() -> None:
    """Drop the process's preferred orders (tests; IBM rebuilds them when the CCDT changes)."""
    with _lock:
        _preferred.clear()


def _weighted_order(channels: list[ccdt.ClientChannel], rng: random.Random) -> list[ccdt.ClientChannel]:
    """A random order in which each next channel is drawn with probability proportional to its weight."""
    left = list(channels)
    out = []
    while left:
        total = sum(ch.client_weight for ch in left)
        pick = rng.uniform(0, total)
        acc = 0.0
        for i, ch in enumerate(left):
            acc += ch.client_weight
            if pick <= acc:
                out.append(left.pop(i))
                break
        else:  # rounding at the top end
            out.append(left.pop())
    return out
