#!/usr/bin/env python3
"""The server's own work per MQI call, in one process and without a socket: MQPUT+MQGET pairs of
many_putget.py's sizes fed to a ``Connection`` as the bytes its socket would have read (issue 35).

What it measures is everything the server does for a call that a bare trio server answering the same
sizes does not (many_putget.py ``--trio-bound``): the channel's framing and bookkeeping
(server/channel.py), the call's decoding, the queue manager's put and get (registry/), the reply's
encoding and the transport's send bookkeeping (server/connection.py ``send``, its write replaced by one
that takes every byte).  The queue manager is a real one on a temporary data directory, connected and
opened as our client does; the connection is put in the agreed, connected state directly (the ID
exchange and MQCONN are not part of the loop).  Every reply is checked: CompCode 0 and the length the
first one had.

    python scripts/bench/mqi_inprocess.py [--pairs 20000] [--rounds 5] [--profile N] [--batch CALLS]

Prints the CPU time (``time.process_time``) per MQI call, the best and the median of ``--rounds``
(a put+get pair is two calls); ``--profile N`` runs one more round under cProfile and prints its N
most expensive functions by their own time.  It measures whichever qmlite the interpreter imports:
run it from each tree in turn to compare two trees.  CPU time moves with the machine's load; instructions
do not: callgrind's totals of two runs that differ only in ``--pairs`` give the instructions per call
(docs/benchmarks.md "Issue 35: 16 connections, the server's work per call" has the command).
"""

from __future__ import annotations

import argparse
import cProfile
import pathlib
import pstats
import statistics
import struct
import tempfile
import time
import types

import trio

from qmlite.pcf import constants as C
from qmlite.pcf import fap
from qmlite.pcf.agreement import Agreement
from qmlite.pcf.calls import MQGetRequest, MQPutRequest
from qmlite.pcf.encoding import LITTLE
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO
from qmlite.registry.objects import channels
from qmlite.registry.qmgr import QueueManager
from qmlite.server import channel as server_channel
from qmlite.server import coalesce
from qmlite.server import connection
from qmlite.server import log as qlog
from qmlite.server import sockio
from qmlite.server.mqi import MQI

QUEUE = "DEV.QUEUE.1"
MSG_SIZE = 1024  # many_putget.py's message
MAX_TR = 32768
_CC = struct.Struct("<i")  # a reply's CompCode, after the TSHM header and the API header's CallLength


class _Committer:
    """Nothing waits in this loop (non-persistent messages); a wait would flush on the spot."""

    def __init__(self, qm: QueueManager) -> None:
        self.qm = qm

    async def wait(self, position: int) -> None:
        self.qm.flush()


class _Replies:
    """The transport's write: takes every byte, and keeps the last reply for the check."""

    def __init__(self) -> None:
        self.last = b""
        self.count = 0

    def write(self, sock, data) -> int:
        self.last = data
        self.count += connection.segment_count(data)  # a flush writes a batch's held replies in one
        return len(data)


def _segment(segment_type: int, hobj: int, body: bytes, extra: int = 0) -> bytes:
    """One request as our client writes it on a shared conversation (client/protocol.py ``mqi``)."""
    total = fap.TSHM_LENGTH + fap.API_HEADER_LENGTH + len(body)
    api = fap.ApiHeader(total + extra, 0, 0, hobj).pack(LITTLE)
    return fap.encode_segment(segment_type, api + body, struct_id=fap.TSHM, conversation_id=1, ccsid=1208)


def setup(data_dir: pathlib.Path) -> tuple[connection.Connection, bytes, bytes, _Replies]:
    qm = QueueManager.open(data_dir, "QM1")
    host = types.SimpleNamespace(cfg=None, qm=qm, registry=qm.registry, connections=set(), ready=trio.Event())
    host.committer = _Committer(qm)
    host.mqi = MQI(host)
    host.ready.set()
    conn = connection.Connection(host, types.SimpleNamespace(), 1, qlog.get(component="bench"))
    replies = _Replies()
    conn._sock = object()  # a plain socket's send path, its write the stand-in's (below)
    sockio.write = replies.write
    ch = conn.ch
    ch.agreement = Agreement(12, MAX_TR, 4 * 1024 * 1024, 300, 10, 1208)
    ch.state = server_channel.State.RUNNING
    ch._opening = None  # what the client's ID does: the opening bytes are no longer kept
    ch.multiplexed = True
    ch.framer.max_segment_length = MAX_TR
    ch.reassembler = server_channel.Reassembler(max_call_length=4 * 1024 * 1024 + 65536)
    conv = ch.conversations[1] = server_channel.Conversation(1)
    reg = qm.registry
    definition = reg.objects(channels.KIND)["DEV.APP.SVRCONN"]
    conn.channel = types.SimpleNamespace(name=definition.name)
    conn.definition = definition
    conn.instance = reg.running.start_instance(definition, "127.0.0.1", reg.now())
    conn._instance_started(conn.instance)
    conv.session = qm.connect("QM1", user="app", admin=False, appl_name="mqi_inprocess.py",
                              appl_type=C.MQAT_DEFAULT, channel=definition.name, conname="127.0.0.1")
    handle, _ = qm.open_object(conv.session, MQOD(ObjectName=QUEUE),
                               C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_FAIL_IF_QUIESCING)
    msg_id = b"MANY%08d" % 1 + bytes(12)
    put = MQPutRequest(MQMD(Version=2, MsgId=msg_id, Persistence=C.MQPER_NOT_PERSISTENT),
                       MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT), b"A" * MSG_SIZE).pack(LITTLE)
    get = MQGetRequest(MQMD(Version=2, MsgId=msg_id),
                       MQGMO(Version=2, Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT,
                             MatchOptions=C.MQMO_MATCH_MSG_ID), MSG_SIZE).pack(LITTLE)
    return (conn, _segment(fap.MQPUT, handle.hobj, put), _segment(fap.MQGET, handle.hobj, get, MSG_SIZE),
            replies)


async def _pairs(conn: connection.Connection, put: bytes, get: bytes, replies: _Replies, pairs: int,
                 batch: int = 1) -> float:
    """CPU seconds per MQI call over ``pairs`` put+get pairs, the event loop's batch of tasks ending every
    ``batch`` calls (the coalescer's flush, HP10: a batch's first reply is written at once, the later ones
    held until then); every reply checked after the loop's end by count, and the last of each kind by its
    CompCode and length."""
    received = conn._received
    batch_ends = coalesce.of_this_run().before_io_wait
    first = replies.count
    calls = 0
    start = time.process_time()
    for _ in range(pairs):
        await received(put)
        calls += 1
        if calls == batch:
            calls = 0
            batch_ends(0)
        await received(get)
        calls += 1
        if calls == batch:
            calls = 0
            batch_ends(0)
    batch_ends(0)
    spent = time.process_time() - start
    if replies.count - first != 2 * pairs:
        raise SystemExit(f"{replies.count - first} replies for {2 * pairs} calls")
    return spent / (2 * pairs)


async def _check(conn: connection.Connection, put: bytes, get: bytes, replies: _Replies) -> tuple[int, int]:
    lengths = []
    for request in (put, get):
        await conn._received(request)
        coalesce.of_this_run().before_io_wait(0)
        reply = replies.last
        comp = _CC.unpack_from(reply, fap.TSHM_LENGTH + 4)[0]
        if comp != C.MQCC_OK:
            raise SystemExit(f"CompCode {comp} for segment type {request[13]:#x}")
        lengths.append(len(reply))
    return lengths[0], lengths[1]


async def run(args) -> None:
    with tempfile.TemporaryDirectory(prefix="qmlite-mqi-inprocess-") as tmp:
        conn, put, get, replies = setup(pathlib.Path(tmp) / "data")
        sizes = await _check(conn, put, get, replies)
        await _pairs(conn, put, get, replies, args.warm, args.batch)  # warm: the codec's memories filled
        per_call = [await _pairs(conn, put, get, replies, args.pairs, args.batch) for _ in range(args.rounds)]
        print(f"MQPUT {len(put)} -> {sizes[0]} bytes, MQGET {len(get)} -> {sizes[1]} bytes; "
              f"{args.pairs} pairs a round, {args.rounds} rounds, a batch of the loop's tasks every {args.batch} calls")
        print(f"CPU per MQI call: best {min(per_call) * 1e6:.2f} us, median {statistics.median(per_call) * 1e6:.2f} us "
              f"(rounds: {', '.join(f'{v * 1e6:.2f}' for v in per_call)})")
        if args.profile:
            profiler = cProfile.Profile(time.process_time)
            profiler.enable()
            await _pairs(conn, put, get, replies, args.pairs, args.batch)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)
        conn.server.qm.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warm", type=int, default=2000, help="pairs run before the rounds (not measured)")
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--batch", type=int, default=1, metavar="CALLS",
                        help="calls in a batch of the event loop's tasks: 1 (the default) writes every reply at "
                             "once, more holds all but the batch's first until it ends (HP10)")
    trio.run(run, parser.parse_args())


if __name__ == "__main__":
    main()
