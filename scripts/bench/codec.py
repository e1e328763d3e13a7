"""Codec throughput on one core: a 20-parameter PCF command, and an MQPUT segment with MQMD + MQPMO +
1 KiB of data, decoded and encoded.  Targets (issue 2): >= 50k PCF commands/s and >= 100k segments/s
decoded; encoding within 1.5x of decoding.

Usage:  python scripts/bench/codec.py [--seconds 2] [--cpu 0]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from qmlite.pcf import calls, fap, mqi
from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.pcf.framer import Framer


def pcf_command() -> P.PCFMessage:
    """A Create Subscription with 20 parameters, the mix a real admin client sends."""
    params = [
        P.CFST(C.MQCACF_SUB_NAME, "BENCH.SUBSCRIPTION.0001", 0),
        P.CFST(C.MQCA_TOPIC_STRING, "price/fruit/apples/granny-smith", 0),
        P.CFST(C.MQCA_TOPIC_NAME, "DEV.BASE.TOPIC", 0),
        P.CFST(C.MQCACF_DESTINATION, "DEV.QUEUE.1", 0),
        P.CFST(C.MQCACF_DESTINATION_Q_MGR, "QM1", 0),
        P.CFIN(C.MQIACF_DESTINATION_CLASS, C.MQDC_PROVIDED),
        P.CFBS(C.MQBACF_DESTINATION_CORREL_ID, bytes(range(24))),
        P.CFIN(C.MQIACF_EXPIRY, -1),
        P.CFBS(C.MQBACF_ACCOUNTING_TOKEN, bytes(32)),
        P.CFST(C.MQCACF_APPL_IDENTITY_DATA, "bench", 0),
        P.CFIN(C.MQIACF_PUB_PRIORITY, C.MQPRI_PRIORITY_AS_PUBLISHED),
        P.CFIN(C.MQIACF_PUBSUB_PROPERTIES, C.MQPSPROP_MSGPROP),
        P.CFST(C.MQCACF_SUB_SELECTOR, "colour = 'green' AND weight > 100", 0),
        P.CFIN(C.MQIACF_SUB_LEVEL, 1),
        P.CFIN(C.MQIACF_SUBSCRIPTION_SCOPE, C.MQTSCOPE_ALL),
        P.CFST(C.MQCACF_SUB_USER_ID, "admin", 0),
        P.CFST(C.MQCACF_SUB_USER_DATA, "user data for the benchmark", 0),
        P.CFIN(C.MQIACF_VARIABLE_USER_ID, C.MQVU_ANY_USER),
        P.CFIN(C.MQIACF_WILDCARD_SCHEMA, C.MQWS_TOPIC),
        P.CFIL(C.MQIACF_SUB_ATTRS, (C.MQIACF_ALL,)),
    ]
    header = P.CFH(Type=C.MQCFT_COMMAND_XR, StrucLength=36, Version=3, Command=C.MQCMD_CREATE_SUBSCRIPTION,
                   MsgSeqNumber=1, Control=C.MQCFC_LAST, CompCode=0, Reason=0, ParameterCount=len(params))
    return P.PCFMessage(header, params)


def put_segment() -> tuple[bytes, calls.MQPutRequest]:
    md = mqi.MQMD(Version=1, MsgType=C.MQMT_DATAGRAM, Format="MQSTR", Persistence=0, Priority=4,
                  ReplyToQ="DEV.QUEUE.2", ReplyToQMgr="QM1", UserIdentifier="app", PutApplType=28,
                  PutApplName="bench")
    pmo = mqi.MQPMO(Version=2, Options=C.MQPMO_NO_SYNCPOINT | C.MQPMO_NEW_MSG_ID)
    body = calls.MQPutRequest(md, pmo, bytes(range(256)) * 4)
    raw = body.pack("<")
    api = fap.ApiHeader(CallLength=fap.TSHM_LENGTH + 16 + len(raw), Hobj=2).pack("<")
    segment = fap.encode_segment(fap.MQPUT, api + raw, conversation_id=1, request_id=0)
    return segment, body


def rate(fn, seconds: float) -> float:
    n = 0
    batch = 1000
    end = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < end:
        for _ in range(batch):
            fn()
        n += batch
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--cpu", type=int, default=0, help="pin to this core (one core, as the targets say)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})

    msg = pcf_command()
    raw_pcf = P.encode(msg, C.MQENC_NATIVE)
    assert P.decode(raw_pcf, C.MQENC_NATIVE) == msg
    segment, body = put_segment()
    framer = Framer(max_segment_length=32748)

    def decode_put() -> None:
        (seg,) = framer.feed(segment)
        call = fap.decode_body(seg)
        calls.MQPutRequest.unpack(call.Data, 0, seg.header.order)

    def encode_put() -> None:
        raw = body.pack("<")
        api = fap.ApiHeader(CallLength=fap.TSHM_LENGTH + 16 + len(raw), Hobj=2).pack("<")
        fap.encode_segment(fap.MQPUT, api + raw, conversation_id=1, request_id=0)

    results = {
        "pcf_decode_20_params": rate(lambda: P.decode(raw_pcf, C.MQENC_NATIVE), args.seconds),
        "pcf_encode_20_params": rate(lambda: P.encode(msg, C.MQENC_NATIVE), args.seconds),
        "mqput_segment_decode": rate(decode_put, args.seconds),
        "mqput_segment_encode": rate(encode_put, args.seconds),
    }
    print(f"python {platform.python_version()} on {platform.machine()}, one core (cpu {args.cpu}); "
          f"PCF message {len(raw_pcf)} bytes, MQPUT segment {len(segment)} bytes")
    for name, value in results.items():
        print(f"{name:24s} {value:12,.0f} /s")
    print(f"{'pcf encode/decode time':24s} {results['pcf_decode_20_params'] / results['pcf_encode_20_params']:12.2f}x")
    mqput_ratio = results['mqput_segment_decode'] / results['mqput_segment_encode']
    print(f"{'mqput encode/decode time':24s} {mqput_ratio:12.2f}x")


if __name__ == "__main__":
    main()
