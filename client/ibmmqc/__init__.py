"""``ibmmqc``: qmlite's stand-in for the C extension of IBM's ``ibmmq`` package.

``ibmmq`` first tries its own extension (``ibmmq/ibmmqc.abi3.so``), which needs IBM's MQ C client
library; only when that import fails does it fall back to a top-level module named ``ibmmqc`` -- this
one.  So on a machine with IBM's library nothing here is ever imported, and on a machine without it
``import ibmmq`` works and its MQI verbs travel over qmlite's pure-Python MQ client (client
connections only: a channel and a ``host(port)`` connection name, MQSERVER, a JSON CCDT or the client
configuration file, found as IBM's client finds them: docs/ccdt.md).

See ``docs/ibmmq.md`` for what each verb does and what is refused.
"""

from __future__ import annotations

from importlib import metadata as _metadata

from qmlite.pcf import constants as _C

from ._mqi import (  # noqa: F401 - the module's public surface, as ibmmq calls it
    MQBACK, MQBEGIN, MQCB, MQCBINIT, MQCLOSE, MQCMIT, MQCONN, MQCONNX, MQCRTMH, MQCTL, MQDISC, MQDLTMH,
    MQDLTMP, MQGET, MQINQ, MQINQMP, MQLOGCF, MQOPEN, MQPUT, MQPUT1, MQSET, MQSETMP, MQSTAT, MQSUB, MQSUBRQ,
)


def _ibmmq_version() -> str:
    # ibmmq refuses to load unless the extension's version equals its own distribution's version.
    try:
        return _metadata.version("ibmmq")
    except _metadata.PackageNotFoundError:
        return "0"


__version__ = _ibmmq_version()
__cmdlevel__ = _C.MQCMDL_LEVEL_912  # the command level qmlite's queue manager reports
__mqbuild__ = "common"

# The structure versions "compiled in": ibmmq adds a structure's later fields only when this says so.
# These are the current versions of MQ 9.4's headers, as a real build would have; the transport
# accepts every version the caller actually sets.
__strucversions__ = {
    "bno": 1, "cbc": 2, "cbd": 1, "cd": 13, "cmho": 1, "cno": 8, "csp": 3, "ctlo": 1, "dh": 1, "dlh": 1,
    "dmho": 1, "dmpo": 1, "gmo": 4, "iih": 1, "impo": 1, "md": 2, "mde": 2, "od": 4, "pd": 1, "pmo": 3,
    "rfh": 2, "sco": 7, "sd": 1, "smpo": 1, "sro": 1, "sts": 2, "tm": 1, "tmc": 2, "xqh": 1,
}

__all__ = [
    "MQBACK", "MQBEGIN", "MQCB", "MQCBINIT", "MQCLOSE", "MQCMIT", "MQCONN", "MQCONNX", "MQCRTMH", "MQCTL",
    "MQDISC", "MQDLTMH", "MQDLTMP", "MQGET", "MQINQ", "MQINQMP", "MQLOGCF", "MQOPEN", "MQPUT", "MQPUT1",
    "MQSET", "MQSETMP", "MQSTAT", "MQSUB", "MQSUBRQ",
]
