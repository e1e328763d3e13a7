"""What runmqsc prints when a command fails: the AMQ message a queue manager gives for each reason.

Texts are IBM's (the AMQ8xxx Administration messages, IBM MQ 9.x wording); a reason with no message
of its own gets AMQ8101S with the reason in hexadecimal, as runmqsc prints an unexpected reason.
docs/decisions.md MS3 records which were confirmed against published runmqsc output.
"""

from __future__ import annotations

from qmlite.pcf import constants as C

SYNTAX_ERROR = "AMQ8405I: Syntax error detected at or near end of command segment below:-"

_NOT_FOUND = frozenset({C.MQRC_UNKNOWN_OBJECT_NAME, C.MQRC_NO_SUBSCRIPTION, C.MQRCCF_UNKNOWN_OBJECT_NAME,
                        C.MQRCCF_NONE_FOUND,
                        C.MQRCCF_CHANNEL_NOT_FOUND, 
                        C.MQRCCF_CHL_STATUS_NOT_FOUND,
                        C.MQRCCF_LSTR_STATUS_NOT_FOUND, C.MQRCCF_SERV_STATUS_NOT_FOUND,
                        C.MQRCCF_TOPIC_STRING_NOT_FOUND})

_BY_REASON = {
    C.MQRCCF_OBJECT_ALREADY_EXISTS: "AMQ8150E: IBM MQ object already exists.",
    C.MQRC_NOT_AUTHORIZED: "AMQ8135E: Not authorized.",
    C.MQRCCF_NOT_AUTHORIZED: "AMQ8135E: Not authorized.",
    C.MQRC_OBJECT_IN_USE: "AMQ8148E: IBM MQ object in use.",
    C.MQRCCF_OBJECT_OPEN: "AMQ8148E: IBM MQ object in use.",
    C.MQRCCF_OBJECT_WRONG_TYPE: "AMQ8151E: IBM MQ object has different type.",
    C.MQRCCF_Q_WRONG_TYPE: "AMQ8151E: IBM MQ object has different type.",
    C.MQRCCF_SUBSCRIPTION_IN_USE: "AMQ8148E: IBM MQ object in use.",
    C.MQRCCF_CHLAUTH_NOT_FOUND: "AMQ8884I: Channel authentication record not found.",
    C.MQRCCF_CHANNEL_NOT_ACTIVE: "AMQ9533E: Channel '{name}' is not currently active.",
    C.MQRCCF_CHANNEL_IN_USE: "AMQ8148E: IBM MQ object in use.",
    # PING CHANNEL's round trip (server/mca/ping.py): IBM's channel messages for the partner's answer.
    C.MQRCCF_HOST_NOT_AVAILABLE: "AMQ9202E: Remote host not available, retry later.",
    C.MQRCCF_UNKNOWN_REMOTE_CHANNEL: "AMQ9520E: Channel not defined remotely.",
    C.MQRC_Q_MGR_QUIESCING: "AMQ8156E: IBM MQ queue manager quiescing.",
    C.MQRC_UNKNOWN_ENTITY: "AMQ7026E: A principal or group name was invalid.",
    C.MQRC_PUBSUB_INHIBITED: "AMQ8144E: Publish/subscribe engine is not available.",
}


def failure(reason: int, name: str, *, noun: str = "", not_found: str = "") -> str:
    """The message for a failed command on object ``name``."""
    if reason in _NOT_FOUND:
        if not_found:
            return not_found
        return f"AMQ8147E: IBM MQ object {name} not found." if name else "AMQ8147E: IBM MQ object not found."
    if reason == C.MQRC_Q_NOT_EMPTY:
        return f"AMQ8143E: IBM MQ queue {name} not empty."
    text = _BY_REASON.get(reason)
    if text is not None:
        return text.format(name=name)
    return f"AMQ8101S: IBM MQ error ({reason:X}) has occurred."


def reason_name(reason: int) -> str:
    return C.describe("MQRCCF", reason) if reason >= 3000 else C.describe("MQRC", reason)


def count_lines(read: int, syntax_errors: int, failed: int) -> list[str]:
    """The three lines runmqsc ends with."""
    first = "One MQSC command read." if read == 1 else \
        ("No MQSC commands read." if read == 0 else f"{read} MQSC commands read.")
    if syntax_errors == 0:
        second = "No commands have a syntax error."
    elif syntax_errors == 1:
        second = "One command has a syntax error."
    else:
        second = f"{syntax_errors} commands have a syntax error."
    if failed == 0:
        third = "All valid MQSC commands were processed."
    elif failed == 1:
        third = "One valid MQSC command could not be processed."
    else:
        third = f"{failed} valid MQSC commands could not be processed."
    return [first, second, third]
