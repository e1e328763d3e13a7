"""A process always ends (issue 29 item 4, docs/decisions.md FN1-FN3).

Scripts that leave ibmmq's and pymqi's objects to their finalizers -- connect, open, put, exit, no
close and no disconnect -- run as real processes against a server the test starts.  At interpreter exit
CPython stops every daemon thread wherever it is, possibly holding a lock; then the finalizers run
MQCLOSE and MQDISC.  Each child arms ``faulthandler.dump_traceback_later``, so a child that hangs
prints every thread's stack and ends, and the test names the run and shows that stack.

* Deterministically: a thread of the child takes a lock the finalizers' paths take (the keepalive's,
  the connection's, the transport's tables ...) and then stops for good, as a daemon thread stopped at
  exit does; the child must still end at once, and the put is on the queue.
* Under load: each script a hundred times, several at a time, while two busy loops keep both cores
  busy; none hangs, and every acknowledged put is on the queue afterwards.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import pytest

if os.environ.get("QMLITE_REQUIRE_PYMQI"):  # scripts/test installs pymqi: never skip there
    import pymqi  # noqa: F401 - the children import it
else:
    pytest.importorskip("pymqi", reason="install with: CC=true LDSHARED=true pip install pymqi==1.12.13")

import ibmmq  # noqa: E402
from ibmmq import CMQC  # noqa: E402

from qmlite.client import sync  # noqa: E402
from qmlite.client.pytest_plugin import running_qmlite  # noqa: E402

WATCHDOG_S = 45  # the child dumps its threads' stacks and ends (exit code 1) after this long
TIMEOUT_S = 60  # the parent's limit for one child, should even the watchdog not fire

# The scripts as users write them.  argv: connection name, queue, watchdog seconds.
PRELUDE = """\
import faulthandler
import sys

faulthandler.dump_traceback_later(float(sys.argv[3]), exit=True)  # a hang prints where it waits
"""
SCRIPTS = {
    "ibmmq": PRELUDE + """
import ibmmq

qmgr = ibmmq.connect("QM1", "DEV.APP.SVRCONN", sys.argv[1], "app", "passw0rd")
queue = ibmmq.Queue(qmgr, sys.argv[2], ibmmq.CMQC.MQOO_OUTPUT)
queue.put(b"left to the finalizers")
""",
    "pymqi": PRELUDE + """
import pymqi

qmgr = pymqi.connect("QM1", "DEV.APP.SVRCONN", sys.argv[1], "app", "passw0rd")
queue = pymqi.Queue(qmgr, sys.argv[2], pymqi.CMQC.MQOO_OUTPUT)
queue.put(b"left to the finalizers")
""",
}
# The same script connecting with MQCNO_RECONNECT (client/reconnect.py's connection wraps the socket's).
RECONNECTING = PRELUDE + """
import ibmmq
from ibmmq import CMQC, CMQXC

cd = ibmmq.CD(ChannelName=b"DEV.APP.SVRCONN", ConnectionName=sys.argv[1].encode(),
              ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)
qmgr = ibmmq.QueueManager(None)
qmgr.connect_with_options("QM1", cd=cd, cno=ibmmq.CNO(Options=CMQC.MQCNO_RECONNECT), user="app",
                          password="passw0rd")
queue = ibmmq.Queue(qmgr, sys.argv[2], CMQC.MQOO_OUTPUT)
queue.put(b"left to the finalizers")
"""

# Appended to a script: a thread takes the locks named by argv[4] and stops for good, as a daemon
# thread stopped at interpreter exit does.  Its function is made in a namespace of its own: a frame
# whose globals were the script's would keep them (and the objects) alive past the finalizers' turn.
HOLD = """
import threading

import ibmmqc
from qmlite.client import reconnect, sync

namespace = {}
exec("def free(lock):\\n"
     "    if lock.acquire(False):\\n"
     "        lock.release()\\n"
     "        return True\\n"
     "    return False\\n"
     "def stop_holding(locks, taken, ready, never):\\n"
     "    taken.extend(lock for lock in locks if lock.acquire(False))\\n"
     "    ready.set()\\n"
     "    never.wait()\\n", namespace)
hconn = qmgr.get_handle()
conn = ibmmqc._mqi._lookup(hconn)
locks = {
    # every lock of the process's keepalive that is free (its thread once held one MQDISC waited for)
    "keepalive": [v for v in vars(sync._KEEPALIVE).values() if hasattr(v, "acquire") and namespace["free"](v)],
    # a thread stopped inside a call on the connection: the keepalive's heartbeat, a consumer's MQGET
    "connection": [getattr(conn.qm, "inner", conn.qm)._lock],
    "connection table": [ibmmqc._mqi._table_lock],
    "message handles": [ibmmqc.msghandles._lock],
    "consumers": [ibmmqc.consume._table, ibmmqc.consume._control(conn.qm, hconn).lock],
    "reconnection": [conn.qm._lock, reconnect._kick],
}[sys.argv[4]]
taken, ready = [], threading.Event()
threading.Thread(target=namespace["stop_holding"], args=(locks, taken, ready, threading.Event()),
                 daemon=True).start()
ready.wait()
if not locks or len(taken) != len(locks):
    sys.exit(f"could not take the locks of {sys.argv[4]!r}: {locks}")
del hconn, conn, locks, namespace, taken, ready
"""


def _run(script, conn_name: str, queue: str, *extra: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-X", "faulthandler", str(script), conn_name, queue,
                               str(WATCHDOG_S), *extra], capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:  # the watchdog did not fire either: report what came
        return subprocess.CompletedProcess(exc.cmd, -9, exc.stdout or "", (exc.stderr or "") + "\n(killed)")


def _depth(admin, queue: str) -> int:
    q = ibmmq.Queue(admin, queue, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()


def _disconnects(server, appl: str) -> int:
    """The MQDISCs the server received from the application ``appl`` (ibmmq and pymqi name it after
    the script's file); a connection that merely closed its socket made none."""
    return sum(1 for call in server.calls(appl=appl) if call["verb"] == "MQDISC")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("exit")) as srv:
        yield srv


@pytest.fixture(scope="module")
def admin(server):
    qm = ibmmq.connect("QM1", "DEV.ADMIN.SVRCONN", server.conn_name, "admin", "passw0rd")
    yield qm
    qm.disconnect()


def _fresh_queue(server, name: str) -> str:
    server.mqsc(f"DEFINE QLOCAL({name}) REPLACE")
    server.mqsc(f"CLEAR QLOCAL({name})")
    return name


# (client, what the stopped thread holds, whether the finalizers' MQDISC still reaches the server)
CASES = [
    ("ibmmq", "keepalive", True),
    ("ibmmq", "connection", False),  # busy for good: MQCLOSE and MQDISC deferred, the socket just closes
    ("ibmmq", "connection table", True),
    ("ibmmq", "message handles", True),
    ("ibmmq", "consumers", True),
    ("reconnecting", "reconnection", True),
    ("reconnecting", "connection", False),
    ("pymqi", "keepalive", True),
    ("pymqi", "connection", False),
    ("pymqi", "connection table", True),
]


@pytest.mark.parametrize("client, held, disconnects", CASES, ids=[f"{c}-{h}" for c, h, _ in CASES])
def test_the_finalizers_at_exit_never_wait_for_a_thread_stopped_holding_a_lock(
        server, admin, tmp_path, client, held, disconnects):
    appl = f"held{CASES.index((client, held, disconnects))}.py"  # the script's name is its ApplName
    script = tmp_path / appl
    script.write_text((RECONNECTING if client == "reconnecting" else SCRIPTS[client]) + HOLD)
    queue = _fresh_queue(server, f"DEV.EXIT.HELD.{CASES.index((client, held, disconnects))}")
    out = _run(script, server.conn_name, queue, held)
    assert out.returncode == 0 and not out.stderr, f"the child did not end cleanly:\n{out.stderr}"
    assert _depth(admin, queue) == 1  # the put was acknowledged before exit: it is there
    assert _disconnects(server, appl) == (1 if disconnects else 0)


def test_without_a_stopped_thread_the_finalizers_disconnect(server, admin, tmp_path):
    """What the cases above compare with: the finalizers do run MQDISC at exit (the path exists)."""
    for client, script_text in SCRIPTS.items():
        appl = f"plain-{client}.py"
        (tmp_path / appl).write_text(script_text)
        queue = _fresh_queue(server, f"DEV.EXIT.PLAIN.{client.upper()}")
        out = _run(tmp_path / appl, server.conn_name, queue)
        assert out.returncode == 0 and not out.stderr, out.stderr
        assert _depth(admin, queue) == 1
        assert _disconnects(server, appl) == 1


# --------------------------------------------------------------------------------------------------
# In process: what the keepalive and a connection take, with another thread stopped holding locks
# --------------------------------------------------------------------------------------------------

def _returns(fn, timeout: float = 30.0) -> None:
    """Run ``fn`` on a thread; fail, rather than hang the suite, if it does not return."""
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), f"{fn} is waiting"


@pytest.fixture
def stopped_thread():
    """``hold(*locks)``: another thread takes those that are free and keeps them until the test ends;
    returns the ones it took."""
    end = threading.Event()
    threads = []

    def hold(*locks):
        ready, taken = threading.Event(), []

        def run():
            taken.extend(lock for lock in locks if lock.acquire(False))
            ready.set()
            end.wait()
            for lock in reversed(taken):
                lock.release()
        t = threading.Thread(target=run, daemon=True)
        t.start()
        threads.append(t)
        assert ready.wait(30)
        return taken
    yield hold
    end.set()
    for t in threads:
        t.join(30)


def _sync_connect(server):
    return sync.QueueManager.connect("127.0.0.1", server.port, "DEV.APP.SVRCONN", "QM1", user="app",
                                     password="passw0rd")


def test_the_keepalive_holds_no_lock_a_disconnect_waits_for(server, stopped_thread):
    keepalive = sync._KEEPALIVE
    forgotten = _sync_connect(server)  # dropped, never disconnected: its weak reference goes with it
    assert weakref.ref(forgotten) in keepalive._conns
    before = len(keepalive._conns)
    forgotten._sock.close()  # (the socket only, not through the client, which would discard it)
    del forgotten
    gc.collect()
    assert len(keepalive._conns) == before - 1
    qm = _sync_connect(server)
    assert weakref.ref(qm) in keepalive._conns
    taken = stopped_thread(*[v for v in vars(keepalive).values() if hasattr(v, "acquire")])
    assert keepalive._starting in taken  # (only connecting threads take it: never the keepalive's own)
    _returns(qm.disc)
    assert weakref.ref(qm) not in keepalive._conns


def test_poll_never_waits_for_a_call_on_another_thread(server, stopped_thread):
    """A reconnecting connection polls before each call; ibmmq's finalizers' MQCLOSE goes through it."""
    qm = _sync_connect(server)
    try:
        assert stopped_thread(qm._lock)  # a thread inside a call on the connection
        _returns(qm.poll)
    finally:
        qm.abort()


RUNS = 100
AT_ONCE = 4  # children at a time: several starting and exiting together on the two loaded cores


@pytest.fixture
def busy_cores():
    """Two busy loops (two cores' worth of load) for the test's duration."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for p in loops:
        p.kill()
    for p in loops:
        p.wait()


@pytest.mark.slow
@pytest.mark.parametrize("client", sorted(SCRIPTS))
def test_a_hundred_runs_on_loaded_cores_all_end_and_every_put_is_kept(server, admin, tmp_path, busy_cores, client):
    appl = f"runs-{client}.py"
    script = tmp_path / appl
    script.write_text(SCRIPTS[client])
    queue = _fresh_queue(server, f"DEV.EXIT.RUNS.{client.upper()}")
    with ThreadPoolExecutor(AT_ONCE) as pool:
        results = list(pool.map(lambda _: _run(script, server.conn_name, queue), range(RUNS)))
    hung = [(i, r) for i, r in enumerate(results) if r.returncode != 0 or r.stderr]
    assert not hung, "\n\n".join(f"run {i} of {RUNS} (exit code {r.returncode}):\n{r.stderr}" for i, r in hung)
    assert _depth(admin, queue) == RUNS  # nothing acknowledged is lost
    assert _disconnects(server, appl) == RUNS  # each run's finalizers disconnected at exit
