"""The one exception the codec raises.

Every malformed input becomes a ``CodecError`` carrying the reason a queue manager would answer, so
callers never translate exceptions: a PCF decode failure already holds its MQRCCF_* code (and the
offending parameter id), an MQI structure failure its MQRC_* code, a FAP framing failure the STATUS
code the server sends before closing the channel.
"""

from __future__ import annotations

from . import constants as C

# The family tells the caller which answer channel the reason belongs to.
MQRCCF = "MQRCCF"  # PCF response reason (MQCFH.Reason), or MQRC_* where PCF reuses one
MQRC = "MQRC"  # MQI reason code in an API reply
STATUS = "STATUS"  # FAP STATUS_DATA error code (docs/reference/fap.md section 9)

_STATUS_NAMES = {
    1: "NO_CHANNEL", 2: "CHANNEL_WRONG_TYPE", 3: "QM_UNAVAILABLE", 4: "MSG_SEQUENCE_ERROR",
    5: "QM_TERMINATING", 6: "CAN_NOT_STORE", 7: "USER_CLOSED", 8: "TIMEOUT_EXPIRED",
    9: "TARGET_Q_UNKNOWN", 10: "PROTOCOL_SEGMENT_TYPE", 11: "PROTOCOL_LENGTH_ERROR",
    12: "PROTOCOL_INVALID_DATA", 13: "PROTOCOL_SEGMENT_ERROR", 14: "PROTOCOL_ID_ERROR",
    15: "PROTOCOL_MSH_ERROR", 16: "PROTOCOL_GENERAL", 17: "BATCH_FAILURE", 18: "MESSAGE_LENGTH_ERROR",
    19: "SEGMENT_NUMBER_ERROR", 20: "SECURITY_FAILURE", 21: "WRAP_VALUE_ERROR",
    22: "CHANNEL_UNAVAILABLE", 23: "CLOSED_BY_EXIT", 24: "CIPHER_SPEC", 25: "PEER_NAME",
    26: "SSL_CLIENT_CERTIFICATE", 27: "RMT_RSRCS_IN_RECOVERY", 28: "SSL_REFRESHING",
    29: "INVALID_HOBJ", 30: "CONV_ID_ERROR", 31: "SOCKET_ACTION_TYPE", 32: "STANDBY_Q_MGR",
    36: "PASSWORD_PROTECTION", 37: "MAX_CONNS_LIMIT_REACHED",
    0xF0: "CCSID_NOT_SUPPORTED", 0xF1: "ENCODING_INVALID", 0xF2: "FAP_LEVEL", 0xF3: "NEGOTIATION_FAILED",
}


def status_name(code: int) -> str:
    return _STATUS_NAMES.get(code, str(code))


class CodecError(ValueError):
    """Malformed bytes.  ``reason`` is what a queue manager would answer, in ``family``'s code space."""

    __slots__ = ("reason", "family", "parameter", "offset", "detail")

    def __init__(self, reason: int, *, family: str = MQRCCF, parameter: int | None = None,
                 offset: int | None = None, detail: str = "") -> None:
        self.reason = reason
        self.family = family
        self.parameter = parameter
        self.offset = offset
        self.detail = detail
        super().__init__(self._text())

    @property
    def reason_name(self) -> str:
        if self.family == STATUS:
            return status_name(self.reason)
        # PCF answers mix MQRCCF_* and MQRC_* values; the ranges do not overlap.
        return C.name_of("MQRCCF", self.reason) or C.name_of("MQRC", self.reason) or str(self.reason)

    def _text(self) -> str:
        parts = [self.reason_name]
        if self.parameter is not None:
            parts.append(f"parameter {self.parameter}")
        if self.offset is not None:
            parts.append(f"offset {self.offset}")
        if self.detail:
            parts.append(self.detail)
        return ", ".join(parts)

    def to_json(self) -> dict:
        out: dict = {"error": self.reason_name, "offset": self.offset}
        if self.parameter is not None:
            out["parameter"] = self.parameter
        if self.detail:
            out["detail"] = self.detail
        return out
