"""``qmlite serve`` as a separate process, for tests that SIGKILL or SIGTERM it.

``Served(data_dir)`` starts ``python -m qmlite serve --port 0 --data-dir DATA_DIR --log-level warning``
with the developer defaults (no ``MQ_*`` variable from the caller's environment, so MQ_DEV is unset:
DEV.* objects, admin/passw0rd on DEV.ADMIN.SVRCONN) and the serve command's own sync mode
(synchronous=FULL), reads its ready line (the synchronisation point) and keeps the port.  The
server's stderr is appended to ``serve.stderr`` next to the data directory.  Every instance is
remembered in ``Served.running`` so a fixture can reap what a failing test left behind
(:meth:`Served.reap_all`).
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys

from qmlite.client.sync import QueueManager

ROOT = pathlib.Path(__file__).resolve().parents[2]
READY = "qmlite ready: queue manager "
ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
ADMIN_USER = "admin"
ADMIN_PASSWORD = "passw0rd"


class Served:
    running: list[Served] = []

    def __init__(self, data_dir: pathlib.Path, *extra: str, qmgr: str = "QM1", command: list[str] | None = None,
                 cwd: pathlib.Path = ROOT, env: dict[str, str] | None = None) -> None:
        """``command``: the whole argv instead of this checkout's ``qmlite serve`` (an installed qmlite,
        the Dockerfile's ENTRYPOINT), run in ``cwd`` with exactly ``env``; it must listen on 127.0.0.1
        and keep its data in ``data_dir``.  Without ``command``, ``env`` is added to the caller's
        environment less its ``MQ_*`` variables (``{"MQ_APP_PASSWORD": ...}`` gives ``app`` a password)."""
        data_dir = pathlib.Path(data_dir)
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        self.data_dir = data_dir
        self.qmgr = qmgr
        self.stderr_path = data_dir.parent / "serve.stderr"
        if command is None:
            command = [sys.executable, "-m", "qmlite", "serve", "--port", "0", "--data-dir", str(data_dir),
                       "--log-level", "warning", *extra]
            env = {**{k: v for k, v in os.environ.items() if not k.startswith("MQ_")}, **(env or {})}
        with open(self.stderr_path, "a") as err:
            self.proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=err, text=True)
        Served.running.append(self)
        line = self.proc.stdout.readline()
        if not line.startswith(f"{READY}{qmgr} listening on 127.0.0.1:"):
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"qmlite serve did not get ready: {line!r}\n{self.stderr_tail()}")
        self.port = int(line.split("127.0.0.1:")[1].split()[0])
        http = line.split(" and http://127.0.0.1:")  # with --http-port
        self.http_port = int(http[1].split()[0]) if len(http) > 1 else None

    def stderr_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.stderr_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def connect(self, **kw) -> QueueManager:
        """A blocking client connection on the admin channel."""
        kw.setdefault("reply_timeout", 30.0)
        return QueueManager.connect("127.0.0.1", self.port, ADMIN_CHANNEL, self.qmgr, user=ADMIN_USER,
                                    password=ADMIN_PASSWORD, **kw)

    def kill(self) -> None:
        """SIGKILL and reap: no shutdown code runs in the server."""
        self.proc.send_signal(signal.SIGKILL)
        rc = self.proc.wait()
        assert rc == -signal.SIGKILL, f"the server ended with {rc} before it was killed\n{self.stderr_tail()}"
        self._forget()

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM (a clean quiesce) and wait for the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self._forget()

    def _forget(self) -> None:
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        if self in Served.running:
            Served.running.remove(self)

    @classmethod
    def reap_all(cls) -> None:
        while cls.running:
            served = cls.running.pop()
            if served.proc.poll() is None:
                served.proc.kill()
            served.proc.wait()
            if served.proc.stdout is not None:
                served.proc.stdout.close()
