"""qmlite's own REST resource for the test's clock (issue 23; docs/rest.md "clock"):
``GET .../admin/qmgr/{qmgr}/clock`` shows it, ``POST .../admin/action/qmgr/{qmgr}/clock`` moves a
virtual one (``{"advance": seconds}`` or ``{"date": "yyyy-mm-dd", "time": "hh.mm.ss"}``).  Every rule
is ``registry/testing/clock.py``'s ClockControl, the object MQSC's SET QMLITE CLOCK calls too; a
request it refuses is a 400 carrying the clock's reason in IBM's error JSON."""

from __future__ import annotations

from qmlite.registry.testing import clock as vclock

from . import errors

_FORMS = ({"advance"}, {"date"}, {"date", "time"})


def state(server) -> dict:
    return {"clock": server.qm.clock_control.status()}


def _refused(err: vclock.ClockError) -> errors.RestError:
    return errors.bad_request(f"The clock request is not valid: {err.message}.",
                              "Correct the request and resubmit it (docs/rest.md, clock).", reason=err.reason)


async def move(server, body: object) -> dict:
    """One step of a virtual clock; answers the clock's state once what the step wrote is durable
    (statistics, accounting and monitoring messages it produced)."""
    if not isinstance(body, dict) or set(body) not in _FORMS:
        raise errors.bad_request("The clock request must be a JSON object: {\"advance\": seconds} or "
                                 "{\"date\": \"yyyy-mm-dd\", \"time\": \"hh.mm.ss\"}.",
                                 reason=vclock.C.MQRCCF_PARM_VALUE_ERROR)
    control = server.qm.clock_control
    try:
        if "advance" in body:
            control.advance(body["advance"])
        else:
            date, time_of_day = body["date"], body.get("time", "00.00.00")
            if not isinstance(date, str) or not isinstance(time_of_day, str):
                raise vclock.ClockError(vclock.C.MQRCCF_PARM_VALUE_ERROR, "date and time are strings", "DATE")
            control.set_time(vclock.parse_datetime(date, time_of_day))
    except vclock.ClockError as err:
        raise _refused(err) from None
    await server.mqi.durable(server.qm.position)
    return state(server)
