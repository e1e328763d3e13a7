"""Hypercorn's HTTP/2 protocol, made safe for a request answered before its body has all arrived.

Hypercorn (0.18, its issue #329, fixes proposed in its PRs #312, #334 and #365, none released) forgets
a stream once the app has answered it, and a DATA frame the client was still sending for it then ends
in a KeyError in the protocol's event loop.  Under trio that error is not confined to the connection:
it ends hypercorn's nursery and with it the whole queue manager.  Any HTTP/2 client could do it --
over TLS (ALPN) or in plain HTTP by prior knowledge -- with a body the app refuses early: a 401 for a
wrong password, or now (RB1) a 413 for a body over its limit.

The guard hands hypercorn its events one at a time and takes out, first, the DATA for a stream
hypercorn no longer has: the bytes are dropped and acknowledged, so that the client, which has its
answer waiting, can finish sending and read it (memory stays bounded: one frame at a time).  A
RST_STREAM with NO_ERROR (RFC 9113 section 8.1) would stop the sending sooner, but httpx's HTTP/2
client then never reads the answer and ends in a timeout (tried), so it is not sent.

It also resets, as RFC 9113 section 8.1.1 requires of a malformed request (a stream error of type
PROTOCOL_ERROR), a request whose ``:method`` or ``:path`` is not ASCII: h2 passes such values through,
and hypercorn's ``value.decode("ascii")`` on them raised in the protocol's event loop -- the whole
server ended (decision HC2; ``connguard.py`` confines whatever else may).  RFC 9110 makes a method a
token and RFC 3986 a path ASCII, so no valid request is reset."""

from __future__ import annotations

import h2.errors
import h2.events
import hypercorn.protocol
from hypercorn.protocol.h2 import H2Protocol


class GuardedH2Protocol(H2Protocol):
    async def _handle_events(self, events: list[h2.events.Event]) -> None:
        for event in events:
            # One at a time: the app may answer (and the stream be forgotten) while an earlier event is handled.
            if isinstance(event, h2.events.DataReceived) and event.stream_id not in self.streams:
                self.connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                await self._flush()
            elif isinstance(event, h2.events.RequestReceived) and not _ascii_target(event.headers):
                self.connection.reset_stream(event.stream_id, h2.errors.ErrorCodes.PROTOCOL_ERROR)
                await self._flush()
            else:
                await super()._handle_events([event])


def _ascii_target(headers) -> bool:
    return all(value.isascii() for name, value in headers if name in (b":method", b":path"))


def install() -> None:
    """Make hypercorn build the guarded protocol for every HTTP/2 connection (ALPN h2, h2c, prior
    knowledge): its ProtocolWrapper looks the class up in ``hypercorn.protocol`` each time."""
    hypercorn.protocol.H2Protocol = GuardedH2Protocol
