"""Helpers for engine tests: build commands, run them as real bytes, read the responses back.

``Harness.run`` encodes a command with our encoder in the chosen MQ encoding, executes the bytes the
way the command server will, and decodes every response from bytes again, so each test exercises
the codec in both directions as well as the engine.
"""

from __future__ import annotations

import dataclasses
import pathlib

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P
from qmlite.registry.admin.engine import Engine, Requester
from qmlite.registry.storage.catalog import Registry

LE, BE = C.MQENC_NATIVE, 0x111  # 546 little-endian (x86 clients), 273 big-endian
T0 = 1_700_000_000.0  # where the engine tests' fake clock starts


class Clock:
    """A clock the test moves by hand (``clock.t += 10``): expiry and dates without sleeping."""

    def __init__(self, t: float = T0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def command(cmd: int, *params, cfh_type: int = C.MQCFT_COMMAND_XR, version: int = 3) -> P.PCFMessage:
    header = P.CFH(Type=cfh_type, StrucLength=36, Version=version, Command=cmd, MsgSeqNumber=1,
                   Control=C.MQCFC_LAST, CompCode=0, Reason=0, ParameterCount=len(params))
    return P.PCFMessage(header, list(params))


def st(pid: int, value: str) -> P.CFST:
    return P.CFST(pid, value, 0)


def i(pid: int, value: int) -> P.CFIN:
    return P.CFIN(pid, value)


def bs(pid: int, value: bytes) -> P.CFBS:
    return P.CFBS(pid, value)


def il(pid: int, *values: int) -> P.CFIL:
    return P.CFIL(pid, tuple(values))


@dataclasses.dataclass
class Reply:
    messages: list[P.PCFMessage]

    @property
    def ok(self) -> bool:
        return all(m.header.CompCode == C.MQCC_OK for m in self.messages)

    @property
    def reason(self) -> int:
        """The first non-zero reason (the specific one of a failure pair), or 0."""
        for m in self.messages:
            if m.header.Reason:
                return m.header.Reason
        return 0

    @property
    def objects(self) -> list[dict[int, object]]:
        """Each data response as {parameter id: value}; strings stripped of blank padding."""
        out = []
        for m in self.messages:
            obj = {}
            for p in m.parameters:
                v = p.value
                obj[p.parameter] = v.rstrip(" ") if isinstance(v, str) else v
            out.append(obj)
        return out

    def error_parameter(self) -> int | None:
        for m in self.messages:
            for p in m.parameters:
                if p.parameter == C.MQIACF_PARAMETER_ID:
                    return p.value
        return None


class Harness:
    def __init__(self, data_dir: pathlib.Path, *, qmgr: str = "QM1", dev_objects: bool = True,
                 clock=None, user: str = "admin") -> None:
        kwargs = {"clock": clock} if clock is not None else {}
        self.registry = Registry.open(data_dir, qmgr, dev_objects=dev_objects, synchronous="NORMAL", **kwargs)
        self.engine = Engine(self.registry)
        self.requester = Requester(user=user)

    def run(self, request: P.PCFMessage, encoding: int = LE) -> Reply:
        raw = P.encode(request, encoding)
        responses = self.engine.execute_bytes(raw, encoding, 0, self.requester)
        decoded = [P.decode(P.encode(r, encoding), encoding, 819) for r in responses]
        check_response_shape(request.header.Command, decoded)
        return Reply(decoded)

    def close(self) -> None:
        self.registry.close()


def failed(reply: Reply, reason: int, parameter: int | None = None) -> bool:
    """A failure answered as a queue manager does: the reason, then MQRCCF_COMMAND_FAILED."""
    assert not reply.ok
    assert len(reply.messages) == 2
    assert reply.messages[0].header.Reason == reason
    assert reply.messages[1].header.Reason == C.MQRCCF_COMMAND_FAILED
    assert reply.error_parameter() == parameter
    return True


def check_response_shape(command: int, messages: list[P.PCFMessage]) -> None:
    """Invariants of every command-server answer (docs/reference/pcf.md section 5)."""
    assert messages, "a command always gets at least one response"
    for n, m in enumerate(messages, start=1):
        h = m.header
        assert h.Type == C.MQCFT_RESPONSE
        assert h.Command == command
        assert h.MsgSeqNumber == n
        assert h.Version == 3
        assert h.Control == (C.MQCFC_LAST if n == len(messages) else C.MQCFC_NOT_LAST)
        assert h.ParameterCount == len(m.parameters)
    if messages[0].header.CompCode == C.MQCC_FAILED:
        assert messages[-1].header.Reason == C.MQRCCF_COMMAND_FAILED
