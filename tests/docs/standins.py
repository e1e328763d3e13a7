"""What the docs' pytest examples call but leave to the reader: ``my_app`` and ``start_my_app`` stand
for the reader's application. Here they do what an application does (connect with pymqi, put a
message, retry once on MQRC_Q_FULL), so the examples around them run for real."""

from __future__ import annotations

import pymqi


class _App:
    def run(self, conn_name: str, channel: str, user: str, password: str, queue: str = "DEV.QUEUE.1") -> None:
        qm = pymqi.connect("", channel, conn_name, user, password)
        try:
            target = pymqi.Queue(qm, queue)
            try:
                target.put(b"order")
            except pymqi.MQMIError as err:
                if err.reason != pymqi.CMQC.MQRC_Q_FULL:
                    raise
                target.put(b"order")  # a full queue: once more, as the application is written to
            target.close()
        finally:
            qm.disconnect()


my_app = _App()


def start_my_app(conn_name: str):
    """A consumer connected with MQCNO_RECONNECT, as the reconnect example's application is."""
    cd = pymqi.CD(ChannelName=b"DEV.APP.SVRCONN", ConnectionName=conn_name.encode())
    qm = pymqi.QueueManager(None)
    qm.connectWithOptions("QM1", cd=cd, opts=pymqi.CMQC.MQCNO_RECONNECT, user="app", password="passw0rd")
    return qm
