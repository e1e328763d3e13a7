"""IBM MQ's sample programs on qmlite's own client, under IBM's names and with IBM's arguments and output.

One module per sample (``amqsput``, ``amqsget``, ``amqsgbr``, ``amqsbcg``, ``amqspub``, ``amqssub``,
``amqsreq``, ``amqsinq``, ``amqsset``), each with two entry points: ``local`` (IBM's ``amqsput``, which
binds to a queue manager on the same machine) and ``client`` (IBM's ``amqsputc``, which finds its
channel through MQSERVER, a CCDT or the client configuration file).  ``common.py`` holds what they share:
how each kind connects, MQSAMP_USER_ID, reading standard input as IBM's fgets does, printing.  The
container's health checks (``chkmqready``, ``chkmqhealthy``, ``chkmqstarted``) are in ``chkmq.py``.
docs/samples.md; docs/decisions.md SM1-.
"""
