"""A plain TCP socket written on its descriptor directly, without the two passes through trio's scheduler
its stream makes per send (decisions HP1, HP7): what the plain channel (server/connection.py) and the TLS
stream under a channel (server/tls.py) share.  Their read loops read the descriptor inline: a call saved
on the hottest path."""

from __future__ import annotations

import os

import trio

POSIX = os.name == "posix"  # a socket is a file descriptor os.read and os.write take (elsewhere: the stream)
FAIR_RUN = 32  # reads served in a row without a wait before a read loop yields to other connections


def write(sock, data) -> int:
    """Bytes of ``data`` the non-blocking plain socket ``sock`` took now (0 when it has no room);
    a closed or broken socket raises what trio's stream would (decision HP1)."""
    fd = sock.fileno()
    if fd < 0:
        raise trio.ClosedResourceError("the socket was closed")
    try:
        return os.write(fd, data)
    except BlockingIOError:
        return 0
    except ConnectionError:
        raise
    except OSError as exc:
        raise trio.BrokenResourceError(str(exc)) from exc


async def send_rest(sock, data) -> None:
    """What ``write`` did not take of a send: written as the socket makes room, in order.  The caller
    holds its connection's send turn, so nobody's bytes come between."""
    view = memoryview(data)
    while view:
        await trio.lowlevel.wait_writable(sock)
        view = view[write(sock, view):]
