"""What the two ends of a client channel settled on in the ID exchange (docs/reference/fap.md section 6.3).

One dataclass for both ends: the server's ``server/negotiation.py`` builds it from the ID it answers, the
client's ``client/protocol.py`` from the server's accepting ID.  The fields each end fills are the same
negotiated values; the server adds whether its answer was an acceptance, the client who answered and in
how many rounds.  Sans-IO, standard library only.
"""

from __future__ import annotations

import dataclasses

from .fap import multiplexed as _multiplexed


@dataclasses.dataclass(slots=True)
class Agreement:
    """The negotiated values of one channel; the server's is valid once ``accepted``."""

    fap_level: int
    max_transmission_size: int
    max_message_size: int
    heartbeat_interval: int
    sharing_conversations: int
    ccsid: int
    accepted: bool = True  # the server's answer changed none of the client's values
    # The client's side: the queue manager that answered, and how many IDs it took.
    qmgr_name: str = ""
    qmgr_id: str = ""
    product_id: str = ""
    id_rounds: int = 0

    @property
    def multiplexed(self) -> bool:
        """Whether the channel's segments after the first ID exchange travel in TSHM."""
        return _multiplexed(self.sharing_conversations, self.fap_level)
