"""The IBM MQ level qmlite presents, in one place (decision PV1).

Every place that names a level reads it from here, so they cannot disagree: DISPLAY QMGR VERSION and
CMDLEVEL, the ProductId of the ID exchange, the highest FAP level agreed, the error log's VRMF and AMQ8003I,
dspmq's INSTVER and ``qmlite --version``.  9.1.2 because the FAP-13 replies qmlite's wire layouts were
checked against came from a 9.1.2 queue manager (docs/decisions.md); a higher level would promise FAP 14+
flows (FCNO v3/v4, connection tags) that qmlite does not speak.
"""

from __future__ import annotations

VERSION = "09010200"  # MQ_VERSION_LENGTH 8: VVRRMMFF
VRMF = ".".join(str(int(VERSION[i:i + 2])) for i in range(0, 8, 2))  # "9.1.2.0"
COMMAND_LEVEL = 912  # MQCMDL_LEVEL_912
PRODUCT_ID = "MQMM" + VERSION  # the ID exchange's ProductId: MQMM, a queue manager on a distributed platform
FAP_LEVEL = 13  # the level of the real 9.1.2 replies
