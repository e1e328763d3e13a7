"""scripts/bench/tls.py's ceiling of new TLS connections (issue 35): the handshake alone, in one process
over memory BIOs with qmlite's server context and ibmmqc's client context.  No timing is asserted: that it
handshakes as the real connections do (resumed, each offering the session the one before left)."""

from __future__ import annotations

import importlib
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench"


def test_the_handshake_alone_resumes_as_the_client_does(tmp_path):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    tls_bench = importlib.import_module("tls")
    from qmlite.keys import testpki

    made = testpki.init(tmp_path)
    found = tls_bench.handshake_cpu(made, 5)
    assert found["version"] == "TLSv1.3"  # ANY_TLS12_OR_HIGHER, as the bench's channel
    assert found["rounds"] == 5 and found["resumed"] == 5
    assert found["cpu_us_per_resumed_handshake"] > 0
