"""``QueueManager``: the blocking face of :class:`qmlite.client.aio.AsyncQueueManager`.

Each ``QueueManager`` owns one background thread running ``trio.run``; every method hands its
coroutine to that thread (``trio.from_thread.run``) and blocks until it is done, so plain synchronous
code (scripts, the ``ibmmqc`` transport) can use it.  Exceptions are the same ``MQIError`` /
``ConnectionBroken`` the async client raises.  The thread also heartbeats the connection while it is
idle.  Several Python threads may share one ``QueueManager``: their calls run one at a time.

Do not call it from inside a trio task (trio refuses ``from_thread.run`` on the loop's own thread,
with a RuntimeError) -- use ``AsyncQueueManager`` there.

``close()`` without arguments disconnects (MQDISC) and stops the thread, like ``disc()``;
``close(hobj, options)`` is MQCLOSE.
"""

from __future__ import annotations

from typing import Any, Optional

from qmlite.pcf import constants as C
from qmlite.pcf.mqi import MQGMO, MQMD, MQOD, MQPMO, MQSD, MQSRO

from ._thread import TrioThread
from .aio import DEFAULT_REPLY_TIMEOUT, AsyncQueueManager
from .errors import MQIError

__all__ = ["QueueManager"]


class QueueManager:
    def __init__(self, loop: TrioThread, aqm: AsyncQueueManager) -> None:
        self._loop = loop
        self._aqm = aqm

    @classmethod
    def connect(cls, host: str, port: int, channel: str, qmgr: str = "", *,
                user: Optional[str] = None, password: Optional[str] = None,
                appl_name: str = "qmlite", appl_type: int = C.MQAT_UNIX, fap_level: int = 13,
                sharing_conversations: int = 10, heartbeat_interval: int = 300,
                max_message_length: int = 4194304, ccsid: int = 819,
                reply_timeout: float = DEFAULT_REPLY_TIMEOUT) -> "QueueManager":
        """Same arguments and errors as :meth:`AsyncQueueManager.connect`."""
        loop = TrioThread(name=f"qmlite-client-{channel}").start()

        async def _connect() -> AsyncQueueManager:
            return await AsyncQueueManager.connect(
                host, port, channel, qmgr, user=user, password=password, appl_name=appl_name,
                appl_type=appl_type, fap_level=fap_level, sharing_conversations=sharing_conversations,
                heartbeat_interval=heartbeat_interval, max_message_length=max_message_length, ccsid=ccsid,
                reply_timeout=reply_timeout, nursery=loop.nursery)

        try:
            aqm = loop.run(_connect)
        except BaseException:
            loop.stop()
            raise
        return cls(loop, aqm)

    # -- plumbing ---------------------------------------------------------------------------------

    def _run(self, afn, *args: Any) -> Any:
        if not self._loop.running:
            raise MQIError(C.MQCC_FAILED, C.MQRC_HCONN_ERROR, "disconnected")
        return self._loop.run(afn, *args)

    @property
    def connected(self) -> bool:
        return self._loop.running and self._aqm.connected

    @property
    def agreement(self):
        return self._aqm.agreement

    @property
    def connection_id(self) -> bytes:
        return self._aqm.connection_id

    @property
    def aio(self) -> AsyncQueueManager:
        """The underlying async connection (it lives in this object's thread)."""
        return self._aqm

    # -- MQI ----------------------------------------------------------------------------------------

    def open(self, od: MQOD, options: int) -> tuple[int, MQOD]:
        return self._run(self._aqm.open, od, options)

    def close(self, hobj: Optional[int] = None, options: int = C.MQCO_NONE) -> None:
        """``close(hobj[, options])``: MQCLOSE.  ``close()``: disconnect, like :meth:`disc`."""
        if hobj is None:
            self.disc()
            return
        self._run(self._aqm.close, hobj, options)

    def put(self, hobj: int, md: MQMD, pmo: MQPMO, data: bytes) -> tuple[MQMD, MQPMO]:
        return self._run(self._aqm.put, hobj, md, pmo, data)

    def put1(self, od: MQOD, md: MQMD, pmo: MQPMO, data: bytes) -> tuple[MQMD, MQPMO]:
        return self._run(self._aqm.put1, od, md, pmo, data)

    def get(self, hobj: int, md: MQMD, gmo: MQGMO, buffer_length: int) -> tuple[MQMD, MQGMO, bytes]:
        return self._run(self._aqm.get, hobj, md, gmo, buffer_length)

    def inq(self, hobj: int, selectors: list[int], int_attr_count: int, char_attr_length: int) -> tuple[list[int], str]:
        return self._run(self._aqm.inq, hobj, selectors, int_attr_count, char_attr_length)

    def sub(self, sd: MQSD, hobj: int = 0) -> tuple[int, int, MQSD]:
        return self._run(self._aqm.sub, sd, hobj)

    def subrq(self, hsub: int, action: int, sro: MQSRO) -> MQSRO:
        return self._run(self._aqm.subrq, hsub, action, sro)

    def cmit(self) -> None:
        self._run(self._aqm.cmit)

    def back(self) -> None:
        self._run(self._aqm.back)

    def pcf(self, command: int, parameters: list, *, wait_ms: int = 5000,
            cfh_type: int = C.MQCFT_COMMAND_XR) -> list:
        async def _pcf():
            return await self._aqm.pcf(command, parameters, wait_ms=wait_ms, cfh_type=cfh_type)
        return self._run(_pcf)

    def ping(self, timeout: float = 60.0) -> None:
        """Heartbeat round trip (see :meth:`AsyncQueueManager.ping`)."""
        self._run(self._aqm.ping, timeout)

    def disc(self) -> None:
        """MQDISC, close the socket, stop the thread.  Idempotent."""
        if not self._loop.running:
            return
        try:
            self._loop.run(self._aqm.disc)
        finally:
            self._loop.stop()

    def __enter__(self) -> "QueueManager":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self.disc()
        except MQIError:
            if exc_type is None:
                raise
