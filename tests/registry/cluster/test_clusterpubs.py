"""registry/cluster/pubs.py: the forwarded publication's private format, and bad input refused quietly."""

from __future__ import annotations

import json

from qmlite.registry.cluster.pubs import _MAGIC, decode


def _framed(header: bytes, body: bytes = b"apples") -> bytes:
    return _MAGIC + len(header).to_bytes(4, "big") + header + body


def test_a_header_and_body_come_back_and_anything_else_is_none():
    header = {"topic": "prices/fruit", "format": "MQHRF2  ", "encoding": 546, "ccsid": 1208, "retain": True,
              "origin": "QM3", "relay": True}
    assert decode(_framed(json.dumps(header).encode())) == (header, b"apples")
    for bad in (b"QMLPUB1\0\0\0\0\x05prices", _MAGIC, _MAGIC + b"\0\0\0\x02{]", _framed(b"[]"),
                _framed(b'{"topic": 7}'), _framed(b'{"topic": "t", "encoding": "x"}'), b"anything"):
        assert decode(bad) is None
