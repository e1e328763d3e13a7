"""Escape (MQCMD_ESCAPE): MQSC text run through the same engine (registry/mqsc/escape.py)."""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.pcf import pcf as P

from qmlite.registry.admin.params import CommandError, p_int, p_str, parse

_PARAMS = (p_int(C.MQIACF_ESCAPE_TYPE), p_str(C.MQCACF_ESCAPE_TEXT, 32_768))


def register(engine) -> None:
    def escape(ctx, request: P.PCFMessage) -> list[P.PCFMessage]:
        values = parse(request, _PARAMS).values
        if C.MQIACF_ESCAPE_TYPE not in values:
            raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQIACF_ESCAPE_TYPE)
        if values[C.MQIACF_ESCAPE_TYPE] != C.MQET_MQSC:
            raise CommandError(C.MQRCCF_ESCAPE_TYPE_ERROR, parameter=C.MQIACF_ESCAPE_TYPE)
        text = values.get(C.MQCACF_ESCAPE_TEXT)
        if not text:
            raise CommandError(C.MQRCCF_PARM_MISSING, parameter=C.MQCACF_ESCAPE_TEXT)
        from qmlite.registry.mqsc.escape import escape_responses

        return escape_responses(engine, str(text), ctx.requester)

    engine.register(C.MQCMD_ESCAPE, escape)
