"""Exceptions of the qmlite client.

Every failure an MQI call reports is an :class:`MQIError` with the completion code and reason the
queue manager returned (``comp``, ``reason``; ``reason_name`` for logs).  A connection that can no
longer be used -- the socket dropped, the server sent a STATUS with ERROR, a reply did not arrive in
time, the protocol went out of step -- raises :class:`ConnectionBroken`, a subclass, so
``except MQIError`` catches both.

MQGET extras: when MQGET completes with a non-zero CompCode (2080 TRUNCATED_MSG_FAILED, 2079
TRUNCATED_MSG_ACCEPTED, ...) and the reply carried the structures, the exception also holds

* ``md``: the returned MQMD (for 2080 the message's full MQMD: MsgId, CorrelId, Encoding, ...; a
  caller may retry with it, as ibmmq does),
* ``gmo``: the returned MQGMO,
* ``data_length``: the message's full length (the DataLength of the reply),
* ``data``: the bytes that came back (for 2079 the truncated message, which is gone from the queue;
  for 2080 at most BufferLength bytes, possibly none).

They are ``None`` for other calls and when the reply carried only the API header.
"""

from __future__ import annotations

from typing import Any, Optional

from qmlite.pcf import constants as C

__all__ = ["MQIError", "ConnectionBroken", "reason_name"]


def reason_name(reason: int) -> str:
    """``MQRC_*`` (or ``MQRCCF_*``) name of a reason code; the number when it has no name."""
    return C.name_of("MQRC", reason) or C.name_of("MQRCCF", reason) or str(reason)


class MQIError(Exception):
    """An MQI call failed (or warned): ``comp`` (MQCC_*), ``reason`` (MQRC_*)."""

    def __init__(self, comp: int, reason: int, detail: str = "", *, md: Any = None, gmo: Any = None,
                 data_length: Optional[int] = None, data: Optional[bytes] = None,
                 responses: Optional[list] = None) -> None:
        self.comp = comp
        self.reason = reason
        self.detail = detail
        self.md = md
        self.gmo = gmo
        self.data_length = data_length
        self.data = data
        self.responses = responses
        super().__init__(comp, reason)

    @property
    def reason_name(self) -> str:
        return reason_name(self.reason)

    @property
    def comp_name(self) -> str:
        return C.name_of("MQCC", self.comp) or str(self.comp)

    def __str__(self) -> str:
        text = f"MQI error: CompCode {self.comp} ({self.comp_name}), Reason {self.reason} ({self.reason_name})"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}(comp={self.comp}, reason={self.reason}, detail={self.detail!r})"


class ConnectionBroken(MQIError):
    """The connection is unusable.  ``reason`` is 2009 CONNECTION_BROKEN unless the server said more
    (a STATUS code mapped as in docs/reference/fap.md section 9, e.g. 2540 UNKNOWN_CHANNEL_NAME); ``status_code`` is
    the STATUS code when one was received."""

    def __init__(self, reason: int = C.MQRC_CONNECTION_BROKEN, detail: str = "", *,
                 status_code: Optional[int] = None) -> None:
        super().__init__(C.MQCC_FAILED, reason, detail)
        self.status_code = status_code
