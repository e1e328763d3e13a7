"""Namelist commands: Create/Copy/Change/Delete Namelist, Inquire Namelist, Inquire Namelist Names.

The generic definition commands (definitions.py) with one check of their own: at most 256 names.
NamelistType is z/OS only (IBM: "This parameter applies to z/OS only"), so it is neither accepted
nor reported here.
"""

from __future__ import annotations

from qmlite.pcf import constants as C

from qmlite.registry.objects import defaults
from qmlite.registry.admin.attributes import AttrTable, attr
from qmlite.registry.objects.definitions import Namelist, mq_date, mq_time
from qmlite.registry.admin.params import INT, STR, STR_LIST, CommandError, Param, p_str
from qmlite.registry.admin.commands import definitions
from qmlite.registry.admin.commands.definitions import CommandIds, DefinitionKind
from qmlite.registry.admin.commands.definitions import matching  # noqa: F401  (still importable as namelists.matching)

NAME_LENGTH = C.MQ_NAMELIST_NAME_LENGTH  # 48
DESC_LENGTH = C.MQ_NAMELIST_DESC_LENGTH  # 64
ENTRY_LENGTH = C.MQ_OBJECT_NAME_LENGTH  # each of Names
MAX_NAMES = C.MQNC_MAX_NAMELIST_NAME_COUNT  # 256

# (parameter, Namelist field)
DEFINITION = (
    (p_str(C.MQCA_NAMELIST_DESC, DESC_LENGTH), "description"),
    (Param(C.MQCA_NAMES, STR_LIST, max_length=ENTRY_LENGTH), "names"),
)


def _check_count(values: dict) -> None:
    names = values.get(C.MQCA_NAMES)
    if names is not None and len(names) > MAX_NAMES:  # type: ignore[arg-type]
        raise CommandError(C.MQRCCF_CFSL_COUNT_ERROR, parameter=C.MQCA_NAMES)


TABLE = AttrTable([
    attr(C.MQCA_NAMELIST_NAME, STR, "name", pad=NAME_LENGTH, always=True),
    attr(C.MQCA_NAMELIST_DESC, STR, "description", pad=DESC_LENGTH),
    attr(C.MQIA_NAME_COUNT, INT, lambda n: len(n.names)),
    attr(C.MQCA_NAMES, STR_LIST, "names", pad=ENTRY_LENGTH),
    attr(C.MQCA_ALTERATION_DATE, STR, lambda n: mq_date(n.altered), pad=C.MQ_DATE_LENGTH),
    attr(C.MQCA_ALTERATION_TIME, STR, lambda n: mq_time(n.altered), pad=C.MQ_TIME_LENGTH),
])

KIND = DefinitionKind(
    model=Namelist,
    name_param=C.MQCA_NAMELIST_NAME,
    from_param=C.MQCACF_FROM_NAMELIST_NAME,
    to_param=C.MQCACF_TO_NAMELIST_NAME,
    attrs_param=C.MQIACF_NAMELIST_ATTRS,
    names_param=C.MQCACF_NAMELIST_NAMES,
    name_length=NAME_LENGTH,
    registry_dict="namelists",
    put_method="put_namelist",
    remove_method="remove_namelist",
    default_name=defaults.DEFAULT_NAMELIST,
    definition=DEFINITION,
    table=TABLE,
    commands=CommandIds(C.MQCMD_CREATE_NAMELIST, C.MQCMD_COPY_NAMELIST, C.MQCMD_CHANGE_NAMELIST,
                        C.MQCMD_DELETE_NAMELIST, C.MQCMD_INQUIRE_NAMELIST, C.MQCMD_INQUIRE_NAMELIST_NAMES),
    validate=_check_count,
)
FIELDS = KIND.fields
(create_namelist, copy_namelist, change_namelist, delete_namelist, inquire_namelist,
 inquire_namelist_names) = KIND.handlers


def register(engine) -> None:
    definitions.register(engine, KIND)
