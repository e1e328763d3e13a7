"""The docs' JSON and ini examples, read by what reads them: REST request bodies posted to a server of
this module (``<!-- example: POST path -->``; each JSON value in the block one request, every one
answered 200 with overall completion 0), the shown answer to a request sent again
(``<!-- example: response -->``) compared, a CCDT read by qmlite's CCDT reader, mqclient.ini by its
mqclient.ini reader."""

from __future__ import annotations

import json

import httpx
import pytest

from qmlite.client import clientconf
from qmlite.client.pytest_plugin import running_qmlite
from qmlite.pcf import ccdt
from tests.support import docexamples as D

AUTH = ("admin", "passw0rd")
HEADERS = {"ibm-mq-rest-csrf-token": "x"}
BLOCKS = D.blocks()
REQUESTS = [b for b in BLOCKS if b.marker.startswith("POST ")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_qmlite(tmp_path_factory.mktemp("restdocs"), http_port=0) as srv:
        yield srv


def _values(text: str) -> list:
    """Each JSON value in the text, one after another."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


def _post(server, block: D.Block, body) -> httpx.Response:
    path = block.marker.removeprefix("POST ")
    return httpx.post(f"http://127.0.0.1:{server.http_port}{path}", json=body, auth=AUTH, headers=HEADERS)


@pytest.mark.parametrize("block", [D.param(b) for b in REQUESTS])
def test_rest_request_example(server, block):
    server.reset()
    for body in _values(block.text):
        reply = _post(server, block, body)
        assert reply.status_code == 200, reply.text
        assert reply.json()["overallCompletionCode"] == 0, reply.json()
    after = BLOCKS[BLOCKS.index(block) + 1]
    if after.marker == "response":  # the answer the docs show is the one to the same request sent again
        [shown] = _values(after.text)
        assert [_post(server, block, body).json() for body in _values(block.text)][-1] == shown


def test_json_blocks_are_requests_responses_ccdts_or_skipped():
    for block in D.of("json"):
        assert block.marker.startswith("POST ") or block.marker == "response" or '"channel"' in block.text, block.where


@pytest.mark.parametrize("block", [D.param(b) for b in D.of("json") if '"channel"' in b.text])
def test_ccdt_example(block):
    channels = ccdt.parse(block.text)
    assert channels and all(ch.name for ch in channels)


@pytest.mark.parametrize("block", [D.param(b) for b in D.of("ini")])
def test_mqclient_ini_example(block):
    config = clientconf.parse(block.text, block.where)
    assert config.problems == ()  # every key read, none refused
