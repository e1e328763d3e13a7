"""A cluster of qmlite queue managers (issue 34 item 4): what each member knows of the others
(``snapshots``), the workload algorithm choosing where a message goes (``workload``), MQOPEN's
resolution of a queue through the cluster (``resolution``), the cluster-sender's end of
SYSTEM.CLUSTER.TRANSMIT.QUEUE (``sending``), the other members as DISPLAY shows them (``members``) and
clustered topics (``pubs``).  No sockets, no trio: server/mca/clusteragent.py drives it
(docs/channels.md "Clusters").
"""
