"""A qmlite queue manager for a test, outside pytest's machinery: ``running_qmlite(path)`` starts one in this
process (on a thread of its own, 127.0.0.1, a free port) and yields a :class:`QmliteServer`, the handle
tests and helpers use (connect through ibmmq or our client, MQSC, snapshots, the clock, fault rules).

The pytest plugin's fixtures (client/pytest_plugin.py) and the topologies of several queue managers
(client/topology.py) are both built on it; it lives apart from the plugin so that neither imports the other
(the plugin's ``qmlite_topology`` fixture runs client/topology.py, which starts queue managers here).
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
from typing import Iterator, Optional

from ._thread import TrioThread


@dataclasses.dataclass(frozen=True, slots=True)
class QmliteServer:
    host: str
    port: int
    qmgr: str
    admin_channel: str
    app_channel: str
    admin_user: str
    admin_password: str
    app_user: str
    data_dir: pathlib.Path
    http_port: Optional[int] = None  # the REST API's port, when started with http_port=0 (or a port)
    _runner: object = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def conn_name(self) -> str:
        return f"{self.host}({self.port})"

    @property
    def rest_url(self) -> str:
        """``http://127.0.0.1:PORT/ibmmq/rest/v2`` (ValueError when the REST API was not asked for)."""
        if self.http_port is None:
            raise ValueError("no REST API: start the server with http_port=0")
        return f"http://{self.host}:{self.http_port}/ibmmq/rest/v2"

    def connect(self, channel: Optional[str] = None, **kw):
        """A connected :class:`qmlite.client.sync.QueueManager`; the admin channel and credentials
        unless told otherwise (``channel=server.app_channel`` needs no password)."""
        from .sync import QueueManager

        channel = channel or self.admin_channel
        if channel == self.admin_channel:
            kw.setdefault("user", self.admin_user)
            kw.setdefault("password", self.admin_password)
        return QueueManager.connect(self.host, self.port, channel, self.qmgr, **kw)

    def mqsc(self, text: str, *, wait_s: float = 30.0) -> list:
        """Run MQSC on the server as the admin user, each command as a PCF Escape (as ``qmlite runmqsc
        -c``); the results carry runmqsc's text for each command."""
        from .mqsc import ServerTarget

        target = ServerTarget(self.host, self.port, self.admin_channel, self.admin_user, self.admin_password,
                              self.qmgr, wait_s)
        try:
            return target.run(text)
        finally:
            target.close()

    # -- restarting in place (docs/reconnect.md) ---------------------------------------------------

    def stop(self, *, reconnect: bool = True) -> None:
        """End the queue manager, as ``endmqm -r`` does (``reconnect``: reconnectable clients are asked
        to reconnect) or as ``endmqm`` does; returns once it has stopped and its port is closed."""
        self._runner.stop(reconnect=reconnect)

    def start(self, **overrides) -> "QmliteServer":
        """Start it again on the same port (and, unless ``overrides`` say otherwise -- ``data_dir``,
        ``qmgr_name`` ... -- the same data); returns once it accepts connections, having told this
        process's reconnecting clients to try now instead of waiting out their backoff."""
        import pathlib as _pathlib

        from qmlite.client import reconnect as _reconnect

        runner = self._runner
        if runner.server is not None:
            raise RuntimeError("the queue manager is running: stop() it first, or restart()")
        runner.cfg = dataclasses.replace(runner.cfg, port=self.port,
                                         **{k: (_pathlib.Path(v) if k == "data_dir" else v)
                                            for k, v in overrides.items()})
        server = runner.start()
        _reconnect.kick()
        return dataclasses.replace(self, qmgr=runner.cfg.qmgr_name, data_dir=_pathlib.Path(runner.cfg.data_dir),
                                   http_port=server.http_port)

    def restart(self, *, reconnect: bool = True, **overrides) -> "QmliteServer":
        """:meth:`stop` then :meth:`start`: the same port and data, so a test can prove its application
        survives a queue manager restart.  Returns once the queue manager accepts again."""
        self.stop(reconnect=reconnect)
        return self.start(**overrides)

    @property
    def clock(self) -> "QmliteClock":
        """The queue manager's clock (:class:`QmliteClock`); movable when the server was started with
        ``clock="virtual"`` (the ``qmlite_virtual`` fixture), as ``SET QMLITE CLOCK`` moves it."""
        return QmliteClock(self._runner)

    @property
    def faults(self) -> "FaultRules":
        """The queue manager's fault rules (docs/faults.md): ``faults.set("F1", verb="MQPUT",
        object="APP.*", reason=2053, count=1)``, ``faults.list()``, ``faults.delete("F1")``, ``faults.clear()``."""
        return FaultRules(self._runner)

    def reset(self) -> None:
        """Every queue cleared, every non-default object deleted (MQSC ``RESET QMLITE``)."""
        result = self.mqsc("RESET QMLITE")[0]
        if result.completion_code != 0:
            raise RuntimeError(f"RESET QMLITE failed: {result.text}")

    # -- several queue managers behind one port (docs/multiqm.md) ---------------------------------

    def add_qmgr(self, name: str) -> "QmliteServer":
        """Host another queue manager on this server (MQSC ``DEFINE QMLITE QMGR(name)``, the one path
        REST and MQSC take too) and return this server as seen through it; ValueError with the MQSC
        answer when the name is refused."""
        result = self.mqsc(f"DEFINE QMLITE QMGR({name})")[0]
        if result.completion_code != 0:
            raise ValueError(f"DEFINE QMLITE QMGR({name}) failed ({result.reason_code}): {' '.join(result.text)}")
        return self.on_qmgr(name)

    def on_qmgr(self, name: str) -> "QmliteServer":
        """The same server, connecting to queue manager ``name`` (one it hosts or creates on connect)."""
        from qmlite.registry.qmgrnames import directory_name  # IBM's transformation of the name (NM2)

        return dataclasses.replace(self, qmgr=name, data_dir=self.data_dir / "qmgrs" / directory_name(name)
                                   if name != self.qmgr else self.data_dir)

    def qmgrs(self) -> list[str]:
        """The names of the queue managers this server hosts (MQSC ``DISPLAY QMLITE QMGRS``)."""
        import re

        result = self.mqsc("DISPLAY QMLITE QMGRS")[0]
        return re.findall(r"QMNAME\(([^)]*)\)", " ".join(result.text))
    # -- the calls the applications made (qmlite's call trace, registry/monitoring/activity.py) -----

    def calls(self, *, after: int = 0, connection: str = "", appl: str = "", limit: int = 0) -> list:
        """The MQI calls recorded (every connection's, oldest first), as dicts: ``seq``, ``verb``,
        ``object``, ``optionNames``, ``reason``/``reasonName``, ``msgId``, ``micros``, ``line`` ...
        ``after`` a sequence number (``calls()[-1]["seq"]``), ``connection`` the ConnectionId (hex, or
        its end), ``appl`` the application name.  The same call log as DISPLAY QMLTRACE and REST."""
        server = self._runner.server

        def read():
            return [dict(c.to_dict(), line=c.line()) for c in server.qm.activity.calls(
                after=after, connection=connection, appl=appl, limit=limit)]
        return self._runner.loop.run_sync(read)

    def record_calls(self, on: bool = True) -> None:
        """Start (or stop) recording MQI calls; the plugin's servers record from the start."""
        server = self._runner.server

        def switch():
            server.qm.activity.recording = on
        self._runner.loop.run_sync(switch)

    def last_call_seq(self) -> int:
        server = self._runner.server
        return self._runner.loop.run_sync(lambda: server.qm.activity.seq)

    # -- why clients were refused (a 2035 that explains itself, docs/errorlog.md) ---------------------
    def refusals(self, *, after: int = 0) -> list[dict]:
        """The recent refusals, oldest first, as dicts: ``kind``, ``reason``/``reason_name``, ``user``,
        ``address``, ``channel``, ``object``, ``rule``, ``missing``, ``message_id`` (the error log's
        AMQ message), ``mqsc`` (what would allow it), ``line`` (one line for a report)."""
        server = self._runner.server
        return self._runner.loop.run_sync(lambda: [dict(r.to_dict(), line=r.line())
                                                   for r in server.qm.diagnostics.refusals.recent(after=after)])

    def last_refusal_seq(self) -> int:
        server = self._runner.server
        return self._runner.loop.run_sync(lambda: server.qm.diagnostics.refusals.seq)

    @property
    def error_log(self) -> pathlib.Path:
        """The queue manager's AMQERR01.LOG (``<data dir>/errors``, docs/errorlog.md)."""
        return self._runner.server.qm.diagnostics.log.path

    # -- snapshots (MQSC SET/RESET/DISPLAY/DELETE QMLITE SNAPSHOT, docs/mqsc.md "Snapshots") -----------

    def _snapshot_command(self, verb: str, name: str):
        quoted = "'" + name.replace("'", "''") + "'"  # quoted: the name keeps its case
        result = self.mqsc(f"{verb} QMLITE SNAPSHOT({quoted})")[0]
        if result.completion_code != 0:
            raise SnapshotFailed(result.reason_code, " ".join(result.text).strip())
        return result

    def snapshot(self, name: str) -> None:
        """Save the queue manager's whole state (definitions, messages, subscriptions, retained
        publications, authority) as ``name``, replacing a snapshot of that name."""
        self._snapshot_command("SET", name)

    def restore(self, name: str) -> None:
        """Put the queue manager back to snapshot ``name`` (only what changed is touched); returns
        once the restore is on disk.  SnapshotFailed(2085) when there is no such snapshot."""
        self._snapshot_command("RESET", name)

    def snapshots(self, pattern: str = "*") -> list:
        """The saved snapshots matching ``pattern`` (a name or generic name): one dict each (SNAPSHOT,
        SAVEDATE, SAVETIME, OBJECTS, MESSAGES, SUBS, RETAINED, as DISPLAY QMLITE SNAPSHOT shows them)."""
        import re as _re

        from qmlite.registry.qmlmessages import SNAPSHOT_SHOWN

        shown: list = []
        for line in self._snapshot_command("DISPLAY", pattern).text:  # runmqsc's text, as Escape carries it
            if line.startswith(SNAPSHOT_SHOWN.id):
                shown.append({})
            elif shown:
                shown[-1].update(_re.findall(r"([A-Z]+)\(([^)]*)\)", line))
        return shown

    def delete_snapshot(self, name: str) -> None:
        self._snapshot_command("DELETE", name)


class SnapshotFailed(RuntimeError):
    """A snapshot command refused: ``reason`` is its MQRC/MQRCCF (MQRCCF_OBJECT_NAME_ERROR for a bad
    name, MQRC_UNKNOWN_OBJECT_NAME for one never saved)."""

    def __init__(self, reason: int, text: str) -> None:
        super().__init__(f"{reason}: {text}")
        self.reason = reason


class QmliteClock:
    """The test's handle on the queue manager's clock (issue 23; docs/mqsc.md "Clock").  Each call runs
    ``registry/testing/clock.py``'s ClockControl on the server's own thread -- the object MQSC's
    ``SET QMLITE CLOCK`` and REST's ``.../clock`` call -- and raises its ``ClockError`` (a ValueError
    with the MQ ``reason``) for a step it refuses."""

    def __init__(self, runner) -> None:
        self._runner = runner

    def _control(self):
        server = self._runner.server
        if server is None:
            raise RuntimeError("the queue manager is not running")
        return server

    def _move(self, step) -> dict:
        server = self._control()

        async def _run():
            state = step(server.qm.clock_control)
            await server.mqi.durable(server.qm.position)  # what the step wrote (statistics ...) is on disk
            return state

        return self._runner.loop.run(_run)

    def advance(self, seconds: float) -> dict:
        """Move a virtual clock ``seconds`` on: expiries, waits and intervals that have passed happen
        now; returns the clock's state (``mode``, ``now``, ``date``, ``time``, ``advanced``, ``waits``)."""
        return self._move(lambda control: control.advance(seconds))

    def set(self, date: str, time: str = "00.00.00") -> dict:
        """Move a virtual clock to ``date`` (yyyy-mm-dd) ``time`` (hh.mm.ss) GMT, never back."""
        from qmlite.registry.testing.clock import parse_datetime

        return self._move(lambda control: control.set_time(parse_datetime(date, time)))

    def status(self) -> dict:
        server = self._control()
        return self._runner.loop.run_sync(server.qm.clock_control.status)

    def now(self) -> float:
        return self.status()["now"]

    def wait_for_waits(self, count: int = 1, timeout: float = 30.0) -> None:
        """Return once ``count`` MQGET waits (or MQCB consumers' waits) follow the virtual clock: the
        application's call has reached the queue manager, so a step now ends it.  An event, not a poll;
        TimeoutError after ``timeout`` real seconds."""
        virtual = self._control().qm.clock_control.virtual
        if virtual is None:
            raise RuntimeError("the queue manager's clock is real: start it with clock='virtual'")
        if not virtual.wait_for_waits(count, timeout):
            raise TimeoutError(f"fewer than {count} waits on the virtual clock after {timeout} s")


class FaultRules:
    """The fault rules of the running queue manager, called on its own thread: the same domain object
    (``QueueManager.faults``, registry/testing/faults.py) that MQSC ``SET QMLITE FAULT`` and the REST API
    reach.  A malformed rule raises the domain's ``FaultRuleError`` (its ``reason``: the MQRCCF code)."""

    def __init__(self, runner) -> None:
        self._runner = runner

    def _call(self, fn):
        runner = self._runner
        if runner.server is None:
            raise RuntimeError("the queue manager is not running")
        server = runner.server
        return runner.loop.run_sync(lambda: fn(server.qm.faults))

    def set(self, name: str, **rule) -> dict:
        """Set (or replace) rule ``name``: ``verb``, ``action``, ``reason``, ``delay`` (ms), ``object``,
        ``user``, ``channel``, ``appl``, ``nth``, ``count``, ``probability``, ``seed``; returns what it shows."""
        return self._call(lambda faults: faults.define(name, **rule).attributes())

    def list(self, name: str = "*") -> list:
        """Each rule ``name`` (exact or generic) names, as DISPLAY QMLITE FAULT shows it, with its MATCHED and FIRED."""
        return self._call(lambda faults: [rule.attributes() for rule in faults.rules(name)])

    def delete(self, name: str) -> int:
        return self._call(lambda faults: faults.delete(name))

    def clear(self) -> int:
        return self._call(lambda faults: faults.clear())


class _Runner:
    """One queue manager in a background trio thread that can be stopped and started again on the same
    port (``QmliteServer.restart``)."""

    def __init__(self, loop, cfg) -> None:
        self.loop = loop
        self.cfg = cfg
        self.server = None
        self._stop = self._done = None

    def start(self):
        import trio

        from qmlite.server.listener import running

        cfg = self.cfg
        stop, done = trio.Event(), trio.Event()

        async def _serve(task_status=trio.TASK_STATUS_IGNORED):
            # One task enters and leaves the server's context (its nursery), so it runs here, not per call.
            try:
                async with running(cfg, synchronous="NORMAL") as server:
                    task_status.started(server)
                    await stop.wait()
            finally:
                done.set()

        self._stop, self._done = stop, done
        self.server = self.loop.run(lambda: self.loop.nursery.start(_serve))
        return self.server

    def stop(self, *, reconnect: bool = False) -> None:
        if self.server is None:
            return
        server, self.server = self.server, None

        def _end():
            server.reconnect_clients = reconnect
            self._stop.set()

        self.loop.run_sync(_end)
        self.loop.run(self._done.wait)


@contextlib.contextmanager
def running_qmlite(data_dir: pathlib.Path, *, record_calls: bool = True, **overrides) -> Iterator[QmliteServer]:
    """Run a queue manager in a background thread for the duration of the block.  ``overrides``
    are server settings (``qmgr_name``, ``admin_password``, ``app_password``, ...); ``record_calls``
    keeps qmlite's call log (``server.calls()``)."""
    from qmlite.server import config

    data_dir = pathlib.Path(data_dir)
    cfg = config.load(environ={}, overrides={"host": "127.0.0.1", "port": 0, "data_dir": data_dir, **overrides})
    loop = TrioThread(name="qmlite-server").start()
    runner = _Runner(loop, cfg)
    try:
        server = runner.start()
        if record_calls:  # the call log on from the start: a failing test shows what it did
            loop.run_sync(lambda: setattr(server.qm.activity, "recording", True))
        try:
            yield QmliteServer(host="127.0.0.1", port=server.port, qmgr=cfg.qmgr_name,
                               admin_channel=config.ADMIN_CHANNEL, app_channel=config.APP_CHANNEL,
                               admin_user="admin", admin_password=cfg.admin_password, app_user="app",
                               data_dir=data_dir, http_port=server.http_port, _runner=runner)
        finally:
            runner.stop()
    finally:
        loop.stop()
