"""qmlite's own REST resource for fault rules (docs/rest.md "Fault rules"): JSON in, the domain's
rules out.  Every rule is checked and kept by registry/testing/faults.py, as MQSC's
``SET/DISPLAY/DELETE QMLITE FAULT`` and the pytest plugin keep them, so the three cannot disagree;
a malformed rule is a 400 in IBM's error JSON carrying the domain's MQRCCF reason."""

from __future__ import annotations

from qmlite.pcf import constants as C
from qmlite.registry.testing import faults as FR

from . import errors

# JSON member -> Faults.define() argument (the MQSC keywords, lower case)
_MEMBERS = {"verb": "verb", "action": "action", "reason": "reason", "delay": "delay", "object": "object",
            "user": "user", "channel": "channel", "appl": "appl", "nth": "nth", "count": "count",
            "probability": "probability", "seed": "seed"}


def rule_json(rule: FR.Rule) -> dict:
    return {"name": rule.name, "verb": FR.verb_names(rule), "action": rule.action, "reason": rule.reason,
            "delay": rule.delay_ms, "object": rule.object, "user": rule.user, "channel": rule.channel,
            "appl": rule.appl, "nth": rule.nth, "count": rule.count, "probability": rule.probability,
            "seed": rule.seed, "matched": rule.matched, "fired": rule.fired}


def _bad(err: FR.FaultRuleError) -> errors.RestError:
    return errors.bad_request(f"The fault rule is not valid: {err.keyword.lower()}: {err.why}.",
                              "Correct the rule (docs/faults.md) and resubmit it.", reason=err.reason)


def listing(faults: FR.Faults, name: str = "*") -> dict:
    try:
        rules = faults.rules(name)
    except FR.FaultRuleError as err:
        raise _bad(err) from None
    if not rules and "*" not in name:
        raise not_found(name)
    return {"fault": [rule_json(rule) for rule in rules]}


def define(faults: FR.Faults, body: object) -> dict:
    if not isinstance(body, dict):
        raise errors.bad_request("The request body must be a JSON object describing one fault rule.",
                                 reason=C.MQRCCF_PARM_SYNTAX_ERROR)
    unknown = sorted(set(body) - set(_MEMBERS) - {"name"})
    if unknown:
        raise errors.bad_request(f"The fault rule has members qmlite does not know: {', '.join(unknown)}.",
                                 "Use the members docs/rest.md lists.", reason=C.MQRCCF_PARM_SYNTAX_ERROR)
    try:
        rule = faults.define(body.get("name"), **{_MEMBERS[k]: v for k, v in body.items() if k != "name"})
    except FR.FaultRuleError as err:
        raise _bad(err) from None
    except TypeError as err:  # a JSON value of a type no argument takes
        raise errors.bad_request(f"The fault rule is not valid: {err}.", reason=C.MQRCCF_PARM_SYNTAX_ERROR) from None
    return {"fault": [rule_json(rule)]}


def delete(faults: FR.Faults, name: str) -> dict:
    if name == "*":
        return {"deleted": faults.clear()}
    try:
        return {"deleted": faults.delete(name)}
    except FR.FaultRuleError as err:
        raise _bad(err) from None
    except FR.FaultNotFound:
        raise not_found(name) from None


def not_found(name: str) -> errors.RestError:
    return errors.RestError(404, "MQWB0009E", f"Could not find the fault rule '{name}'.",
                            "The REST API was invoked specifying a fault rule name which cannot be located.",
                            "Resubmit the request with the name of a rule that is set.",
                            reason=C.MQRC_UNKNOWN_OBJECT_NAME)
