"""A cluster of qmlite queue managers (issue 34 item 4): what each member knows of the others
(``repository``), the workload algorithm choosing where a message goes (``workload``), MQOPEN's
resolution of a queue through the cluster (``routing``) and the cluster-sender's end of
SYSTEM.CLUSTER.TRANSMIT.QUEUE (``sending``).  No sockets, no trio: server/mca/clusteragent.py drives it.
"""
