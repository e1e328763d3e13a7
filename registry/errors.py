"""The MQI's answer when a verb fails: a reason code (MQRC) and its completion code."""

from __future__ import annotations

from qmlite.pcf import constants as C


class MQIError(Exception):
    """An MQI verb ends with ``reason``; ``comp`` is MQCC_FAILED unless the reason is a warning."""

    def __init__(self, reason: int, comp: int = C.MQCC_FAILED) -> None:
        super().__init__(C.describe("MQRC", reason))
        self.reason = reason
        self.comp = comp
