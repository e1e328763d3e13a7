"""MQSC run on a running queue manager over qmlite's own client, each command in a PCF Escape
(MQCMD_ESCAPE, MQET_MQSC), as ``qmlite runmqsc -c`` (and IBM's ``runmqsc``) sends it and as the pytest
plugin's ``server.mqsc()`` runs it; and the Inquire commands ``dmpmqcfg`` and ``dspmqaut`` send.  The
results are the registry's ``MqscResult`` values, carrying runmqsc's text.

It lives in ``client/`` because the pytest plugin needs it and the client may not import the command
line (docs/architecture.md, decision HS3); ``qmlite/control.py`` imports it from here.
"""

from __future__ import annotations

from qmlite.pcf import constants as C


class Unreachable(Exception):
    """No queue manager to run against (the message says why; ``reason`` the MQRC when one was given)."""

    def __init__(self, message: str, reason: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason


class ServerTarget:
    """A running server, over our client, each MQSC command in a PCF Escape: ``run(text)`` gives MqscResults."""

    def __init__(self, host: str, port: int, channel: str, user: str | None, password: str | None,
                 qmgr: str = "", wait_s: float = 30.0) -> None:
        from .sync import QueueManager

        self.wait_ms = int(wait_s * 1000)
        self.qm = QueueManager.connect(host, port, channel, qmgr, user=user, password=password)
        self.qmgr_name = qmgr or self._name()

    def _name(self) -> str:
        from qmlite.pcf import pcf as P

        try:
            for response in self.qm.pcf(C.MQCMD_INQUIRE_Q_MGR, [P.CFIL(C.MQIACF_Q_MGR_ATTRS, (C.MQCA_Q_MGR_NAME,))],
                                        wait_ms=self.wait_ms):
                for param in response.parameters:
                    if param.parameter == C.MQCA_Q_MGR_NAME:
                        return str(param.value).strip()
        except Exception:  # the name is only for the banner
            pass
        return ""

    def run(self, text: str) -> list:
        from .errors import MQIError
        from qmlite.pcf import pcf as P
        from qmlite.registry.mqsc import MqscResult
        from qmlite.registry.mqsc.reader import split_commands

        results = []
        for source in split_commands(text):
            if source.text.strip().upper() == "END":
                break
            params = [P.CFIN(C.MQIACF_ESCAPE_TYPE, C.MQET_MQSC), P.CFST(C.MQCACF_ESCAPE_TEXT, source.text)]
            try:
                responses = self.qm.pcf(C.MQCMD_ESCAPE, params, wait_ms=self.wait_ms)
            except MQIError as exc:
                responses = exc.responses or []
                if not responses:
                    raise Unreachable(f"no answer to the Escape command (reason {exc.reason})", exc.reason) from exc
            text_lines: list[str] = []
            for response in responses:
                for param in response.parameters:
                    if param.parameter == C.MQCACF_ESCAPE_TEXT:
                        text_lines += str(param.value).rstrip(" \x00").split("\n")
            first = responses[0].header
            if first.CompCode == C.MQCC_FAILED and not text_lines:  # the Escape itself failed
                text_lines = [f"AMQ8101S: IBM MQ error ({first.Reason:X}) has occurred."]
            results.append(MqscResult(source.text, first.CompCode, first.Reason, text_lines, [],
                                      [*source.comments, *source.lines]))
        return results

    def inquire(self, message) -> list:
        """A PCF request (an Inquire dmpmqcfg or dspmqaut sends) and its responses, failed ones included."""
        from .errors import MQIError

        try:
            return self.qm.pcf(message.header.Command, list(message.parameters), wait_ms=self.wait_ms)
        except MQIError as exc:
            if exc.responses:
                return exc.responses
            raise Unreachable(f"no answer to the command (reason {exc.reason})") from exc

    def close(self) -> None:
        try:
            self.qm.disc()
        except Exception:
            pass
