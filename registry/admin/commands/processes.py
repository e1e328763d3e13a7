"""Process commands: Create/Copy/Change/Delete Process, Inquire Process, Inquire Process Names.

The generic definition commands (definitions.py).  qmlite starts no trigger monitor, so a process
definition is data only.
"""

from __future__ import annotations

from qmlite.pcf import constants as C

from qmlite.registry.objects import defaults
from qmlite.registry.admin.attributes import AttrTable, attr
from qmlite.registry.objects.definitions import Process, mq_date, mq_time
from qmlite.registry.admin.params import INT, STR, p_int, p_str
from qmlite.registry.admin.commands import definitions
from qmlite.registry.admin.commands.definitions import CommandIds, DefinitionKind

NAME_LENGTH = C.MQ_PROCESS_NAME_LENGTH  # 48

# (parameter, Process field); ApplType: IBM's MQAT_* values or a user type up to MQAT_USER_LAST.
DEFINITION = (
    (p_str(C.MQCA_PROCESS_DESC, C.MQ_PROCESS_DESC_LENGTH), "description"),
    (p_str(C.MQCA_APPL_ID, C.MQ_PROCESS_APPL_ID_LENGTH), "appl_id"),
    (p_int(C.MQIA_APPL_TYPE, low=0, high=C.MQAT_USER_LAST), "appl_type"),
    (p_str(C.MQCA_ENV_DATA, C.MQ_PROCESS_ENV_DATA_LENGTH), "env_data"),
    (p_str(C.MQCA_USER_DATA, C.MQ_PROCESS_USER_DATA_LENGTH), "user_data"),
)

TABLE = AttrTable([
    attr(C.MQCA_PROCESS_NAME, STR, "name", pad=NAME_LENGTH, always=True),
    attr(C.MQCA_PROCESS_DESC, STR, "description", pad=C.MQ_PROCESS_DESC_LENGTH),
    attr(C.MQIA_APPL_TYPE, INT, "appl_type"),
    attr(C.MQCA_APPL_ID, STR, "appl_id", pad=C.MQ_PROCESS_APPL_ID_LENGTH),
    attr(C.MQCA_ENV_DATA, STR, "env_data", pad=C.MQ_PROCESS_ENV_DATA_LENGTH),
    attr(C.MQCA_USER_DATA, STR, "user_data", pad=C.MQ_PROCESS_USER_DATA_LENGTH),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda p: mq_date(p.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda p: mq_time(p.altered), pad=C.MQ_TIME_LENGTH),
])

KIND = DefinitionKind(
    model=Process,
    name_param=C.MQCA_PROCESS_NAME,
    from_param=C.MQCACF_FROM_PROCESS_NAME,
    to_param=C.MQCACF_TO_PROCESS_NAME,
    attrs_param=C.MQIACF_PROCESS_ATTRS,
    names_param=C.MQCACF_PROCESS_NAMES,
    name_length=NAME_LENGTH,
    registry_dict="processes",
    put_method="put_process",
    remove_method="remove_process",
    default_name=defaults.DEFAULT_PROCESS,
    definition=DEFINITION,
    table=TABLE,
    commands=CommandIds(C.MQCMD_CREATE_PROCESS, C.MQCMD_COPY_PROCESS, C.MQCMD_CHANGE_PROCESS,
                        C.MQCMD_DELETE_PROCESS, C.MQCMD_INQUIRE_PROCESS, C.MQCMD_INQUIRE_PROCESS_NAMES),
)
FIELDS = KIND.fields
(create_process, copy_process, change_process, delete_process, inquire_process,
 inquire_process_names) = KIND.handlers


def register(engine) -> None:
    definitions.register(engine, KIND)
