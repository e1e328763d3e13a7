"""``qmlite`` as the docs' shell examples meet it in tests/docs/test_sh_examples.py: the real command,
aimed at the test's server.

* ``qmlite serve ...``: the line is parsed and its settings loaded (``config.load``) as a start would,
  and nothing is started -- the examples' servers would each hold a port until stopped; the test's
  server stands for them;
* ``runmqsc``, ``dspmq``, ``setmqaut``, ``ccdt`` reach the test's server: ``--host`` is 127.0.0.1 and
  ``--port`` the server's (given or not); with ``--data-dir`` they open the data directory as written,
  ``/var/lib/qmlite`` read as ``./data``;
* ``trace --http-port N`` reads the test's REST port once (``--once``) instead of tailing for ever;
* anything else (``decode``, ``tls init``) runs as written.
"""

from __future__ import annotations

import os
import sys

_CLIENTS = ("runmqsc", "dspmq", "setmqaut", "ccdt")


def _set(argv: list[str], option: str, value: str) -> list[str]:
    if option in argv:
        at = argv.index(option)
        return argv[:at + 1] + [value] + argv[at + 2:]
    return argv + [option, value]


def arguments(argv: list[str], port: str, http_port: str) -> list[str]:
    if argv[:1] == ["trace"]:
        return _set(argv, "--http-port", http_port) + ["--once"]
    if argv[:1] and argv[0] in _CLIENTS:
        if "--data-dir" in argv:
            return ["./data" if a == "/var/lib/qmlite" else a for a in argv]
        return _set(_set(argv, "--host", "127.0.0.1"), "--port", port)
    return argv


def main(argv: list[str]) -> int:
    from qmlite import cli

    if argv[:1] == ["serve"]:
        from qmlite.server import app

        app.run = lambda cfg, **kw: 0  # checked, not started
        return cli.main(argv)
    return cli.main(arguments(argv, os.environ["QMLITE_DOCS_PORT"], os.environ["QMLITE_DOCS_HTTP_PORT"]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
