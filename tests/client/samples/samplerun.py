"""Running the installed sample programs and scripts from a test: the environment a CI job gives them
(the venv's bin first on PATH, MQSERVER naming the test's server), and reading a running sample's output
line by line with a deadline (a sample that waits on a virtual clock never ends by itself)."""

from __future__ import annotations

import os
import pathlib
import selectors
import subprocess
import sys
import time

BIN = pathlib.Path(sys.executable).parent
SCRIPTS = pathlib.Path(__file__).parent / "scripts"
PATIENCE = 30.0  # real seconds a step may take on a loaded machine before the test gives up


def environment(server, channel: str = "DEV.APP.SVRCONN", **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MQ", "QMLITE_"))}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", LC_ALL="C", LANG="C",
               MQSERVER=f"{channel}/TCP/127.0.0.1({server.port})", QMLITE_PORT=str(server.port),
               MQ_ADMIN_PASSWORD=server.admin_password)
    env.update(extra)
    return env


def run(command: list[str] | str, env: dict[str, str], stdin: bytes = b"") -> subprocess.CompletedProcess:
    """A sample or script to its end: (returncode, stdout as text)."""
    if isinstance(command, str):
        command = ["bash", str(SCRIPTS / command)] if command.endswith(".sh") else ["bash", "-c", command]
    return subprocess.run(command, input=stdin, capture_output=True, env=env, timeout=PATIENCE * 2)


class Running:
    """A sample or script started in the background; :meth:`read_until` its output so far."""

    def __init__(self, command: list[str] | str, env: dict[str, str], stdin: bytes = b"") -> None:
        if isinstance(command, str):
            command = ["bash", str(SCRIPTS / command)] if command.endswith(".sh") else ["bash", "-c", command]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, bufsize=0)
        self.proc.stdin.write(stdin)
        self.proc.stdin.close()
        self.proc.stdin = None  # written and closed: communicate() has nothing more to send
        self.out = b""

    def read_until(self, text: str, timeout: float = PATIENCE) -> str:
        """The output up to and with ``text``; AssertionError when it does not come in ``timeout``."""
        want = text.encode()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while want not in self.out:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise AssertionError(f"{text!r} not printed; so far: {self.out.decode(errors='replace')}")
                chunk = self.proc.stdout.read(65536)
                if not chunk:
                    raise AssertionError(f"ended before {text!r}; output: {self.out.decode(errors='replace')}")
                self.out += chunk
        return self.out.decode()

    def finish(self) -> tuple[int, str]:
        rest, err = self.proc.communicate(timeout=PATIENCE)
        self.out += rest
        assert not err, err.decode(errors="replace")  # a traceback is never a sample's answer
        return self.proc.returncode, self.out.decode()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
