"""IBM's REST error answer: ``{"error": [{"msgId", "message", "explanation", "action", "completionCode",
"reasonCode", "type": "rest"}]}`` with an HTTP status, and the MQ reason codes' statuses."""

from __future__ import annotations

import json

from starlette.responses import Response

from qmlite.pcf import constants as C


class RestError(Exception):
    """Raised anywhere in a request; the app answers it as IBM's error JSON."""

    def __init__(self, status: int, msg_id: str, message: str, explanation: str, action: str, *,
                 reason: int = 0, completion: int = C.MQCC_FAILED, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.msg_id = msg_id
        self.message = message
        self.explanation = explanation
        self.action = action
        self.reason = reason
        self.completion = completion if reason else 0
        self.headers = headers or {}

    def body(self) -> dict:
        return {"error": [{"msgId": self.msg_id, "message": f"{self.msg_id}: {self.message}",
                           "explanation": self.explanation, "action": self.action,
                           "completionCode": self.completion, "reasonCode": self.reason, "type": "rest"}]}

    def response(self) -> Response:
        return Response(json.dumps(self.body()), status_code=self.status, headers=self.headers,
                        media_type="application/json; charset=utf-8")


def not_authenticated(path: str) -> RestError:
    return RestError(401, "MQWB0104E", f"The REST API request to '{path}' is not authenticated.",
                     "The REST API request cannot be completed because no valid credentials were given.",
                     "Resubmit the request with a valid user name and password (HTTP basic authentication).",
                     headers={"WWW-Authenticate": 'Basic realm="qmlite"'})


def csrf_missing() -> RestError:
    return RestError(403, "MQWB0100E", "The CSRF header 'ibm-mq-rest-csrf-token' was omitted from the request.",
                     "The REST API request cannot be completed because the CSRF header was omitted.",
                     "Resubmit the request with the ibm-mq-rest-csrf-token header (any value).")


def not_authorized(what: str = "") -> RestError:
    text = f"Not authorized to {what}." if what else "Not authorized."
    return RestError(403, "MQWB0103E", text,
                     "The authenticated principal is not authorized to perform the requested REST API operation.",
                     "Obtain the necessary authorization to perform the operation and resubmit the request.",
                     reason=C.MQRC_NOT_AUTHORIZED)


def role_refused(user: str, role: str) -> RestError:
    return RestError(403, "MQWB0103E", f"Not authorized: user '{user}' is not in the {role} role.",
                     "The messaging REST API needs the MQWebUser role (user 'app'); the administrative REST API "
                     "needs MQWebAdmin (user 'admin'), as in IBM's developer container.",
                     "Resubmit the request as a user in the role.", reason=C.MQRC_NOT_AUTHORIZED)


def unknown_qmgr(name: str) -> RestError:
    return RestError(404, "MQWB0009E", f"Could not query the queue manager '{name}'.",
                     "The REST API was invoked specifying a queue manager name which cannot be located.",
                     "Resubmit the request with a valid queue manager name.", reason=C.MQRC_Q_MGR_NAME_ERROR)


def unknown_queue(name: str, qmgr: str) -> RestError:
    return RestError(404, "MQWB0009E", f"Could not find the queue '{name}' on queue manager '{qmgr}'.",
                     "The REST API was invoked specifying a queue name which cannot be located.",
                     "Resubmit the request with a valid queue name.", reason=C.MQRC_UNKNOWN_OBJECT_NAME)


def bad_request(message: str, action: str = "Correct the request and resubmit it.", *, reason: int = 0) -> RestError:
    return RestError(400, "MQWB0004E" if reason else "MQWB0007E", message,
                     "The request is not valid for this REST API resource.", action, reason=reason)


def body_too_large(limit: int) -> RestError:
    """A request body longer than the resource takes (docs/rest.md "Request bodies"; a message put's
    limit is MAXMSGL instead, answered with its MQ reason by ``from_reason``)."""
    return RestError(413, "MQWB0007E", f"The request body is longer than the {limit} bytes this resource accepts.",
                     "The request body was refused before it was read whole.",
                     "Resubmit a shorter body (qmlite serve --http-max-body sets the limit).")


def not_found(path: str) -> RestError:
    return RestError(404, "MQWB0002E", f"The resource '{path}' does not exist.",
                     "The URL names no REST API resource.", "Check the URL (docs/rest.md lists what qmlite serves).")


def unavailable(what: str, detail: str) -> RestError:
    return RestError(503, "MQWB0003E", f"{what} is not available: {detail}",
                     "This qmlite installation does not provide the function the request needs.",
                     "Install a qmlite that provides it, or use the PCF or MQI interface.")


# MQ reasons a messaging or admin call can end with, as HTTP statuses (the rest are 500).
_STATUS = {
    C.MQRC_NOT_AUTHORIZED: 403,
    C.MQRC_UNKNOWN_OBJECT_NAME: 404,
    C.MQRC_Q_MGR_NAME_ERROR: 404,
    C.MQRC_Q_MGR_QUIESCING: 503,
    C.MQRC_Q_MGR_STOPPING: 503,
    C.MQRC_OBJECT_IN_USE: 409,
    C.MQRC_Q_FULL: 409,
    C.MQRC_PUT_INHIBITED: 409,
    C.MQRC_GET_INHIBITED: 409,
    C.MQRC_MSG_TOO_BIG_FOR_Q: 413,
    C.MQRC_MSG_TOO_BIG_FOR_Q_MGR: 413,
    C.MQRC_PRIORITY_ERROR: 400,
    C.MQRC_PERSISTENCE_ERROR: 400,
    C.MQRC_EXPIRY_ERROR: 400,
    C.MQRC_OBJECT_TYPE_ERROR: 400,
    C.MQRC_OPTION_NOT_VALID_FOR_TYPE: 400,
    C.MQRC_PERSISTENT_NOT_ALLOWED: 400,
}


def from_reason(reason: int, action: str, name: str, qmgr: str) -> RestError:
    """The answer to a domain MQIError ``reason`` while doing ``action`` ("put to", ...) on ``name``."""
    if reason == C.MQRC_NOT_AUTHORIZED:
        return not_authorized(f"{action} {name}")
    if reason == C.MQRC_UNKNOWN_OBJECT_NAME:
        return unknown_queue(name, qmgr)
    label = C.describe("MQRC", reason)
    return RestError(_STATUS.get(reason, 500), "MQWB0004E",
                     f"An error occurred while the queue manager processed the request. The root MQ reason code "
                     f"was {reason} : {label}.",
                     f"The queue manager refused to {action} '{name}'.",
                     "Rectify the problem the reason code describes and resubmit the request.", reason=reason)
