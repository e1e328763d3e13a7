"""qmlite.client: a pure-Python IBM MQ client (client channel / FAP, no IBM libraries).

Modules:

* :mod:`qmlite.client.aio` -- ``AsyncQueueManager`` (trio): ``connect``, ``open``, ``close``, ``put``,
  ``put1``, ``get``, ``inq``, ``sub``, ``subrq``, ``cmit``, ``back``, ``disc``, ``ping``, ``pcf``.
* :mod:`qmlite.client.sync` -- ``QueueManager``: the same methods, blocking, in the caller's thread
  (a plain socket; no event loop), plus ``call``/``put_nowait``/``async_status`` for the ``ibmmqc``
  transport.
* :mod:`qmlite.client.channel` -- ``ClientChannel``: the client side of the conversation, sans-IO
  (bytes in, events out); both drivers above only move its bytes.
* :mod:`qmlite.client.verbs` -- the MQI verbs and PCF as generators the drivers run.
* :mod:`qmlite.client.errors` -- ``MQIError`` (``comp``, ``reason``, ``reason_name``; MQGET extras
  ``md``, ``gmo``, ``data_length``, ``data``; PCF ``responses``) and ``ConnectionBroken``.
* :mod:`qmlite.client.protocol` -- which values the client sends (ID, UID, CAUT, MQCONN, segments).
* :mod:`qmlite.client.pytest_plugin` -- the ``qmlite_server`` / ``qmlite_server_session`` fixtures.
* :mod:`qmlite.client.mqsc` -- ``ServerTarget``: MQSC on a running queue manager, each command a PCF
  Escape (the plugin's ``server.mqsc()`` and ``qmlite runmqsc -c``).
* :mod:`qmlite.client.locks` -- taking a lock on a path a finalizer or the interpreter's exit runs
  (never waiting, at exit, for a thread the interpreter stopped).

The MQI structures (``MQMD``, ``MQOD``, ``MQPMO``, ``MQGMO``, ``MQSD``, ``MQSRO``, ``MQCHARV``) are
those of :mod:`qmlite.pcf.mqi`; PCF parameters (``CFST``, ``CFIN``, ...) those of :mod:`qmlite.pcf.pcf`.
"""

from __future__ import annotations

from .errors import ConnectionBroken, MQIError

__all__ = ["AsyncQueueManager", "ConnectionBroken", "MQIError", "QueueManager"]


def __getattr__(name: str):
    # imported on first use: ``qmlite.client.errors`` alone must not pull in trio
    if name == "AsyncQueueManager":
        from .aio import AsyncQueueManager

        return AsyncQueueManager
    if name == "QueueManager":
        from .sync import QueueManager

        return QueueManager
    raise AttributeError(name)
