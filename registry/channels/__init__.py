"""Message channels, the domain side (issue 34): what a channel agent decides, with no sockets and no trio.

``syncrecords.py`` holds each channel's synchronisation records as persistent messages on
SYSTEM.CHANNEL.SYNCQ, written in the same unit of work as the batch they describe; ``sendingend.py``
drains a transmission queue in batches and keeps the sender's sequence numbers and in-doubt batch;
``receivingend.py`` puts a batch's messages and commits them with the receiver's record;
``mcastatus.py`` the status fields both ends report.  The wire flows are ``pcf/msgchannel.py``; the
protocol objects and trio drivers are ``server/mca/`` (docs/channels.md).
"""
