"""The IBM MQ container's health checks, for qmlite: ``chkmqready``, ``chkmqhealthy``, ``chkmqstarted``.

IBM's (mq-container, cmd/chkmq*) run ``dspmq -n -m NAME`` and, for chkmqready, open a TCP connection to
127.0.0.1:1414.  qmlite's server is not on the machine's dspmq, so each check asks the server itself:
it opens a TCP connection to 127.0.0.1 (``QMLITE_HOST``), port 1414 (``QMLITE_PORT``), and sends the
first flow of the MQ client protocol (the initial data, TSH type ID); the queue manager is running when
a TSH segment comes back (docs/decisions.md SM3).  The queue manager's name is MQ_QMGR_NAME, else the
host name (IBM's rule).  A qmlite server listens only once its queue manager is open and its start-up
MQSC has run, so "started", "ready" and "running" are one observation here.

Exit codes are IBM's: chkmqready 0 ready, 1 not; chkmqhealthy and chkmqstarted 0 yes, 1 no (2 is
IBM's for dspmq failing to run, which cannot happen here).  chkmqhealthy prints the dspmq line IBM's
prints (``QMNAME(QM1)  STATUS(RUNNING)``).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Optional

from qmlite.pcf import constants as C

from ..channel import ClientChannel
from .. import protocol as proto
from .common import local_address

PROBE_TIMEOUT = 10.0  # seconds for the connect and the answer


def qmgr_name(environ=None) -> str:
    """MQ_QMGR_NAME, else the host name with the characters a queue-manager name cannot hold removed
    (IBM's pkg/name)."""
    env = os.environ if environ is None else environ
    name = env.get("MQ_QMGR_NAME", "")
    if name:
        return name
    return "".join(ch for ch in socket.gethostname() if ch.isalnum() or ch in "._%/")


def probe(host: str, port: int, name: str, timeout: float = PROBE_TIMEOUT) -> Optional[bool]:
    """None when nothing accepts a connection; False when something does but no queue manager answers
    the MQ initial data; True when one does."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError:
        return None
    with sock:
        channel = ClientChannel(proto.ConnectOptions(channel="SYSTEM.DEF.SVRCONN", qmgr=name[:C.MQ_Q_MGR_NAME_LENGTH],
                                                     appl_name="chkmq"))
        try:
            sock.sendall(channel.initiate())
            head = b""
            while len(head) < 4:
                chunk = sock.recv(4 - len(head))
                if not chunk:
                    return False
                head += chunk
        except OSError:
            return False
    return head[:3] == b"TSH"  # TSH, TSHM or TSHC: a queue manager's segment


def _state() -> tuple[str, Optional[bool]]:
    host, port = local_address()
    name = qmgr_name()
    return name, probe(host, port, name)


def ready() -> int:
    _name, answered = _state()
    return 0 if answered else 1


def healthy() -> int:
    name, answered = _state()
    status = "RUNNING" if answered else "ENDED UNEXPECTEDLY" if answered is False else "ENDED NORMALLY"
    print(f"QMNAME({name})".ljust(58) + f"STATUS({status})", flush=True)
    return 0 if answered else 1


def started() -> int:
    _name, answered = _state()
    return 0 if answered else 1


def chkmqready() -> None:
    sys.exit(ready())


def chkmqhealthy() -> None:
    sys.exit(healthy())


def chkmqstarted() -> None:
    sys.exit(started())
