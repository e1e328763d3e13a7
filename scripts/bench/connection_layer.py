#!/usr/bin/env python3
"""The connection layer alone: CPU per MQPUT segment from the socket's bytes to the MQI's entry point.

Issue 31 moved the FAP conversation out of ``server/connection.py`` into the sans-IO ``server/channel.py``;
this bench measures what that costs a call on the hot path, without the domain or a socket: a
``Connection`` in the agreed state over a memory stream is fed one 600-byte MQPUT segment at a time and
hands each call to an MQI that does nothing.  The figure is CPU time (``time.process_time``) per call,
the best of ``--rounds``; the bound is the same loop over a trio checkpoint alone, measured in the run.

It measures whichever qmlite the interpreter imports: run it with each tree's interpreter in turn to
compare two trees (docs/benchmarks.md, issue 31):

    python scripts/bench/connection_layer.py [--calls 100000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import time
import types

import trio
import trio.testing

from qmlite.pcf import fap
from qmlite.server import connection


class _MQI:
    activity = types.SimpleNamespace(wakes=0)

    async def call(self, conn, conv, seg, call) -> None:
        pass


def _agreed_connection() -> connection.Connection:
    ours, _ = trio.testing.memory_stream_pair()
    conn = connection.Connection(types.SimpleNamespace(cfg=None, mqi=_MQI()), ours, 1, None)
    if hasattr(conn, "ch"):  # the tree after the move: the channel holds the state
        from qmlite.server.channel import Conversation, State

        conn.ch.state = State.AGREED
        conn.ch.conversations[0] = Conversation(0)
    else:  # before it (f129cd0 and earlier)
        conn._agreed = True
        conn.conversations[0] = connection.Conversation(0)
    return conn


async def _measure(calls: int, rounds: int) -> tuple[float, float]:
    api = fap.ApiHeader(CallLength=28 + 16 + 600).pack(fap.LITTLE)
    segment = fap.encode_segment(fap.MQPUT, api + bytes(600), struct_id=fap.TSH)
    conn = _agreed_connection()
    best = bound = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            await conn._received(segment)
        best = min(best, (time.process_time() - start) / calls)
        start = time.process_time()
        for _ in range(calls):
            await trio.lowlevel.checkpoint()
        bound = min(bound, (time.process_time() - start) / calls)
    return best, bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    best, bound = trio.run(_measure, args.calls, args.rounds)
    print(f"{connection.__file__}: {best * 1e6:.2f} us CPU per MQPUT segment (best of {args.rounds}); "
          f"a trio checkpoint alone {bound * 1e6:.2f} us")


if __name__ == "__main__":
    main()
