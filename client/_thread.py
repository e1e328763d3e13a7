"""A trio event loop in a background thread, driven from synchronous code.

One :class:`TrioThread` = one thread running ``trio.run`` with a nursery that stays open until
:meth:`stop`.  Synchronous callers run coroutines in it with :meth:`run` (``trio.from_thread.run``);
exceptions travel back to the caller unchanged.  Used by the pytest plugin (the in-process server);
the clients need none (:mod:`qmlite.client.sync` runs in the caller's thread).
"""

from __future__ import annotations

import threading
from typing import Any, Awaitable, Callable, Optional

import trio


class TrioThread:
    def __init__(self, name: str = "qmlite-trio") -> None:
        self._name = name
        self._thread: Optional[threading.Thread] = None
        self._token: Optional[trio.lowlevel.TrioToken] = None
        self._nursery: Optional[trio.Nursery] = None
        self._stop: Optional[trio.Event] = None
        self._ready = threading.Event()
        self._error: Optional[BaseException] = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and self._token is not None

    @property
    def nursery(self) -> trio.Nursery:
        """The loop's long-lived nursery (only touch it from inside the loop, e.g. in a coroutine
        passed to :meth:`run`)."""
        if self._nursery is None:
            raise RuntimeError("the trio thread is not running")
        return self._nursery

    def start(self) -> "TrioThread":
        if self._thread is not None:
            raise RuntimeError("already started")
        self._thread = threading.Thread(target=self._main, name=self._name, daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise RuntimeError(f"the trio thread failed to start: {self._error!r}") from self._error
        return self

    def _main(self) -> None:
        try:
            trio.run(self._loop)
        except BaseException as exc:  # noqa: BLE001 - reported to whoever waits on the thread
            self._error = exc
        finally:
            self._token = None
            self._ready.set()

    async def _loop(self) -> None:
        self._stop = trio.Event()
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self._token = trio.lowlevel.current_trio_token()
            self._ready.set()
            await self._stop.wait()
            nursery.cancel_scope.cancel()
        self._nursery = None

    def run(self, afn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run ``afn(*args)`` in the loop and return its result (or raise its exception)."""
        token = self._token
        if token is None:
            raise RuntimeError("the trio thread is not running")
        return trio.from_thread.run(afn, *args, trio_token=token)

    def run_sync(self, fn: Callable[..., Any], *args: Any) -> Any:
        token = self._token
        if token is None:
            raise RuntimeError("the trio thread is not running")
        return trio.from_thread.run_sync(fn, *args, trio_token=token)

    def stop(self, timeout: Optional[float] = 30) -> None:
        """Cancel everything still running in the loop and join the thread.  Idempotent."""
        thread = self._thread
        if thread is None:
            return
        token = self._token
        if token is not None and self._stop is not None:
            try:
                trio.from_thread.run_sync(self._stop.set, trio_token=token)
            except trio.RunFinishedError:
                pass
        thread.join(timeout)
        if thread.is_alive():
            raise RuntimeError(f"the trio thread {self._name} did not stop within {timeout} s")
        self._thread = None
        if self._error is not None:
            err, self._error = self._error, None
            raise RuntimeError(f"the trio thread {self._name} failed: {err!r}") from err
