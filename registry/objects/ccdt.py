"""The JSON CCDT for this queue manager's server-connection channels: what ``qmlite ccdt`` and the REST
resource write, so a test suite hands its application the file it reads in production.

Each SVRCONN channel becomes one clientConnection entry: the queue manager's name, the address a client
reaches the listener at, and the channel's attributes a client-connection channel also has and the two
ends negotiate (SHARECNV, HBINT, MAXMSGL, COMPHDR/COMPMSG, DESCR) or must agree on (SSLCIPH).  The
templates SYSTEM.DEF.SVRCONN and SYSTEM.AUTO.SVRCONN are left out unless named (docs/decisions.md Y7).
The format itself is ``qmlite.pcf.ccdt``'s, the one the client parses.
"""

from __future__ import annotations

from collections.abc import Iterable

from qmlite.pcf import ccdt

from qmlite.registry.objects import channels as M

TEMPLATES = frozenset({"SYSTEM.DEF.SVRCONN", "SYSTEM.AUTO.SVRCONN"})


class UnknownChannel(LookupError):
    """A channel asked for by name is not a server-connection channel of this queue manager."""


def client_channels(defined: Iterable[M.Channel], *, qmgr_name: str, host: str, port: int,
                    names: Iterable[str] = ()) -> list[ccdt.ClientChannel]:
    """The CCDT entries for ``defined`` (the queue manager's channels), by channel name."""
    svrconn = {ch.name: ch for ch in defined if ch.channel_type == M.SVRCONN}
    wanted = [n.strip() for n in names if n.strip()]
    if wanted:
        missing = [n for n in wanted if n not in svrconn]
        if missing:
            raise UnknownChannel(f"no server-connection channel {', '.join(missing)}")
        chosen = [svrconn[n] for n in dict.fromkeys(wanted)]
    else:
        chosen = [svrconn[n] for n in sorted(svrconn) if n not in TEMPLATES]
    return [entry_for(ch, qmgr_name=qmgr_name, host=host, port=port) for ch in chosen]


def entry_for(ch: M.Channel, *, qmgr_name: str, host: str, port: int) -> ccdt.ClientChannel:
    # A client-connection channel takes no ANY compression (a receiving end's value): it is left out.
    header = tuple(v for v in ch.header_compression if v in ccdt.HEADER_COMPRESSION.values()) or (0,)
    message = tuple(v for v in ch.message_compression if v in ccdt.MESSAGE_COMPRESSION.values()) or (0,)
    return ccdt.ClientChannel(
        name=ch.name, queue_manager=qmgr_name, connections=((host, port),),
        sharing_conversations=ch.sharing_conversations, heartbeat_interval=ch.heartbeat_interval,
        max_message_length=ch.max_msg_length, description=ch.description.strip(),
        header_compression=header, message_compression=message, cipher_spec=ch.ssl_cipher_spec.strip())


def render(defined: Iterable[M.Channel], **kwargs) -> str:
    return ccdt.render(client_channels(defined, **kwargs))
