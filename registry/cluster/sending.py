"""The sending end of a cluster-sender channel (CLUSSDR, defined by hand or auto-defined): a SendingEnd
(registry/channels/sendingend.py) whose transmission queue is SYSTEM.CLUSTER.TRANSMIT.QUEUE, shared by
every cluster-sender, each taking only the messages whose CorrelId names it (routing.py puts them so;
docs/decisions.md CLU3)."""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import mqi as S

from qmlite.registry.channels.sendingend import SendingEnd
from qmlite.registry.channels.syncrecords import correl_id


class ClusterSendingEnd(SendingEnd):
    open_options = C.MQOO_INPUT_SHARED | C.MQOO_BROWSE | C.MQOO_INQUIRE

    def wanted(self) -> tuple[S.MQMD, int | None]:
        return S.MQMD(CorrelId=correl_id(self.channel.name)), C.MQMO_MATCH_CORREL_ID

    def waiting(self) -> bool:
        contents = self.qm.registry.messages.peek(self.channel.xmit_q_name)
        return contents is not None and contents.find(None, correl_id(self.channel.name)) is not None


def sending_end_for(qm, channel) -> SendingEnd:
    """The sending end a sender-type channel's agent drives: a cluster-sender's takes its own messages."""
    from qmlite.registry.objects import channels as M

    return (ClusterSendingEnd if channel.channel_type == M.CLUSSDR else SendingEnd)(qm, channel)
