"""scripts/bench/tls.py's ceiling of new TLS connections (issue 35): the handshake alone, in one process
over memory BIOs with qmlite's server context and ibmmqc's client context.  No timing is asserted: that it
handshakes as the real connections do (resumed, each offering the session the one before left).  And the
event loop's work per new connection, counted: a TLS connection costs the loop about what a plain one
does (decision HP7), where trio's socket stream under TLS cost it five more task steps."""

from __future__ import annotations

import importlib
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "bench"


def _bench():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module("tls")


def test_the_handshake_alone_resumes_as_the_client_does(tmp_path):
    tls_bench = _bench()
    from qmlite.keys import testpki

    made = testpki.init(tmp_path)
    found = tls_bench.handshake_cpu(made, 5)
    assert found["version"] == "TLSv1.3"  # ANY_TLS12_OR_HIGHER, as the bench's channel
    assert found["rounds"] == 5 and found["resumed"] == 5
    assert found["cpu_us_per_resumed_handshake"] > 0


def test_a_new_tls_connection_costs_the_loop_about_what_a_plain_one_does(tmp_path):
    from qmlite.keys import testpki

    work = _bench().scheduler_work(testpki.init(tmp_path), 30)
    plain, tls = work["plain"], work["tls"]
    assert plain["tasks_spawned"] == tls["tasks_spawned"] == 1.0  # the connection's own task, nothing more
    assert 8 <= plain["task_steps"] <= 16
    # The handshake's one extra round trip: a step and a wait more, not trio's two per receive and send
    assert tls["task_steps"] <= plain["task_steps"] + 2.5
    # Waits move with timing (whether the client's next bytes are in before the loop waits): plain's 9.9-11.6
    # across runs of the same tree, TLS's 12.3-12.9. Before HP7 a TLS connection waited 4-5 times more.
    assert tls["io_waits"] <= plain["io_waits"] + 3.5


def test_the_replayed_ceiling_answers_the_real_client_and_resumes_its_sessions(tmp_path, capsys):
    # The bare server answers ibmmq's MQCONNX and MQDISC with the bytes qmlite answered (a refused or
    # garbled answer raises in ibmmq), and its TLS connections resume the client's session as qmlite's
    # do: every handshake but the first full one.
    import json

    out = tmp_path / "r.json"
    assert _bench().main(["--calls", "20", "--connects", "4", "--batches", "2", "--steps", "0", "--replay", "3",
                          "--json", str(out)]) == 0
    ceiling = json.loads(out.read_text())["replay_ceiling"]
    assert ceiling["steps"]["plain"] == ceiling["steps"]["tls"] >= 3  # the ID exchange, MQCONN, MQDISC
    assert ceiling["bare_handshakes"] == 5 + 2 * 3  # the warm-up's and the batches' TLS connections
    assert ceiling["bare_resumed"] == ceiling["bare_handshakes"] - 1
    us = ceiling["us_per_connection"]
    assert set(us) == {"qmlite plain", "qmlite TLS", "bare plain", "bare TLS"} and min(us.values()) > 0
    assert 0 < ceiling["ceiling"] < 1 and ceiling["out_of_reach"] == (ceiling["ceiling"] < 0.5)
    assert '"replay_ceiling"' in capsys.readouterr().out
