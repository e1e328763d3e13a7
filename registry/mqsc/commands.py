"""The MQSC command table: each verb and object type, the PCF command it runs and what runmqsc prints.

A row names the PCF command, the object type's keyword table (keywords.py), the parameter the
``(name)`` after the object type fills, the parameters the object type implies (``QLOCAL`` is
Q_TYPE LOCAL), the Inquire's attribute-selector parameter, the keywords only this command takes
(``REPLACE``, ``PURGE``, ``AUTHREC``), and IBM's AMQ message for success and for each object shown.
The messages are IBM's texts (the AMQ8xxx Administration messages); docs/decisions.md MS3 lists
which were confirmed against published runmqsc output.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

from qmlite.registry.security import vocab as A
from qmlite.registry.admin.commands import topics as TP
from qmlite.registry.mqsc import extensions
from qmlite.registry.mqsc import keywords as K
from qmlite.registry.mqsc.keywords import Keyword, ObjectType, e, flag, i, s

# Verb synonyms (IBM's "Synonym:" lines) and object-type synonyms.
VERBS = {"DEFINE": "DEFINE", "DEF": "DEFINE", "ALTER": "ALTER", "ALT": "ALTER", "DELETE": "DELETE",
         "DEL": "DELETE", "DISPLAY": "DISPLAY", "DIS": "DISPLAY", "CLEAR": "CLEAR", "START": "START",
         "STA": "START", "STOP": "STOP", "PING": "PING", "SET": "SET", "REFRESH": "REFRESH", "REF": "REFRESH",
         "RESET": "RESET", "RESOLVE": "RESOLVE", "RES": "RESOLVE", "SUSPEND": "SUSPEND", "RESUME": "RESUME",
         "END": "END", "PURGE": "PURGE"}
NOUNS = {"QLOCAL": "QLOCAL", "QL": "QLOCAL", "QMODEL": "QMODEL", "QM": "QMODEL", "QALIAS": "QALIAS",
         "QA": "QALIAS", "QREMOTE": "QREMOTE", "QR": "QREMOTE", "QUEUE": "QUEUE", "Q": "QUEUE",
         "QCLUSTER": "QCLUSTER", "QC": "QCLUSTER", "CHANNEL": "CHANNEL", "CHL": "CHANNEL",
         "CHSTATUS": "CHSTATUS", "CHS": "CHSTATUS", "NAMELIST": "NAMELIST", "NL": "NAMELIST",
         "PROCESS": "PROCESS", "PRO": "PROCESS", "QSTATUS": "QSTATUS", "QS": "QSTATUS",
         "LISTENER": "LISTENER", "LSTR": "LISTENER", "LSSTATUS": "LSSTATUS", "SERVICE": "SERVICE",
         "SVSTATUS": "SVSTATUS", "SUB": "SUB", "SUBSCR": "SUB", "SBSTATUS": "SBSTATUS", "TOPIC": "TOPIC",
         "TOPICSTR": "TOPICSTR", "TPSTATUS": "TPSTATUS", "QMGR": "QMGR", "QMSTATUS": "QMSTATUS",
         "CONN": "CONN", "AUTHINFO": "AUTHINFO", "AUTHREC": "AUTHREC", "AUTHSERV": "AUTHSERV",
         "ENTAUTH": "ENTAUTH", "CHLAUTH": "CHLAUTH", "COMMINFO": "COMMINFO", "SECURITY": "SECURITY",
         "CLUSQMGR": "CLUSQMGR", "CLUSTER": "CLUSTER", "QSTATS": "QSTATS", "PUBSUB": "PUBSUB"}
NOUNS.update({noun: noun for noun in extensions.NOUNS})  # qmlite's own (QMLITE, QMLTRACE): registry/mqsc/extensions/

NAME_REQUIRED, NAME_OPTIONAL, NAME_NONE = "required", "optional", "none"


@dataclasses.dataclass(frozen=True)
class Command:
    verb: str
    noun: str
    pcf: int
    otype: ObjectType
    name_pid: int | None = None
    name: str = NAME_REQUIRED
    fixed: tuple[tuple[int, int], ...] = ()
    attrs_pid: int | None = None  # DISPLAY: the attribute-selector list
    default_all: bool = False  # DISPLAY without attributes shows every attribute (DISPLAY QMGR)
    message: str = ""  # printed on success (not DISPLAY)
    display: str = ""  # printed before each object a DISPLAY shows
    like: tuple[int, int, int] | None = None  # DEFINE ... LIKE(x): (copy command, from, to)
    extra: tuple[Keyword, ...] = ()
    not_found: str = ""  # DISPLAY that finds nothing: the message instead of AMQ8147E
    generic: bool = False  # the name may be generic (ABC*)
    summary: tuple[str, ...] | None = None  # DISPLAY without attributes shows these (None: every one)


# DISPLAY AUTHREC MATCH(...): the Inquire Authority Records options it stands for.
MATCH = {"PROFILE": A.MQAUTHOPT_NAME_ALL_MATCHING | A.MQAUTHOPT_ENTITY_EXPLICIT,
         "EXACT": A.MQAUTHOPT_NAME_EXPLICIT | A.MQAUTHOPT_ENTITY_EXPLICIT,
         "MEMBERSHIP": A.MQAUTHOPT_NAME_ALL_MATCHING | A.MQAUTHOPT_ENTITY_SET}
REPLACE = flag("REPLACE", "NOREPLACE", C.MQIACF_REPLACE, C.MQRP_YES, C.MQRP_NO)
PURGE = flag("PURGE", "NOPURGE", C.MQIACF_PURGE, C.MQPO_YES, C.MQPO_NO)
AUTHREC = e("AUTHREC", C.MQIACF_REMOVE_AUTHREC, {"YES": C.MQRAR_YES, "NO": C.MQRAR_NO})
IGNSTATE = e("IGNSTATE", C.MQIACF_IGNORE_STATE, {"NO": C.MQIS_NO, "YES": C.MQIS_YES})
CMDSCOPE = s("CMDSCOPE", C.MQCACF_COMMAND_SCOPE)

_Q_FIXED = {"QLOCAL": C.MQQT_LOCAL, "QMODEL": C.MQQT_MODEL, "QALIAS": C.MQQT_ALIAS, "QREMOTE": C.MQQT_REMOTE,
            "QCLUSTER": C.MQQT_CLUSTER}


def _table() -> dict[tuple[str, str], Command]:
    rows: list[Command] = []
    # ---- queues
    for noun, qtype in _Q_FIXED.items():
        fixed = ((C.MQIA_Q_TYPE, qtype),)
        if noun != "QCLUSTER":
            rows += [
                Command("DEFINE", noun, C.MQCMD_CREATE_Q, K.QUEUE, C.MQCA_Q_NAME, fixed=fixed,
                        message="AMQ8006I: IBM MQ queue created.", extra=(REPLACE,),
                        like=(C.MQCMD_COPY_Q, C.MQCACF_FROM_Q_NAME, C.MQCACF_TO_Q_NAME)),
                Command("ALTER", noun, C.MQCMD_CHANGE_Q, K.QUEUE, C.MQCA_Q_NAME, fixed=fixed,
                        message="AMQ8008I: IBM MQ queue changed.", extra=(flag("FORCE", "NOFORCE", C.MQIACF_FORCE,
                                                                               1, 0),)),
                Command("DELETE", noun, C.MQCMD_DELETE_Q, K.QUEUE, C.MQCA_Q_NAME, fixed=fixed,
                        message="AMQ8007I: IBM MQ queue deleted.",
                        extra=(PURGE, AUTHREC) if noun == "QLOCAL" else (AUTHREC,)),
            ]
        rows.append(Command("DISPLAY", noun, C.MQCMD_INQUIRE_Q, K.QUEUE, C.MQCA_Q_NAME, fixed=fixed,
                            attrs_pid=C.MQIACF_Q_ATTRS, display="AMQ8409I: Display Queue details.", generic=True))
    rows += [
        Command("DISPLAY", "QUEUE", C.MQCMD_INQUIRE_Q, K.QUEUE, C.MQCA_Q_NAME, attrs_pid=C.MQIACF_Q_ATTRS,
                display="AMQ8409I: Display Queue details.", generic=True),
        Command("CLEAR", "QLOCAL", C.MQCMD_CLEAR_Q, K.QUEUE, C.MQCA_Q_NAME,
                message="AMQ8022I: IBM MQ queue cleared."),
        # RESET QSTATS answers with the statistics it reset, displayed like a DISPLAY
        Command("RESET", "QSTATS", C.MQCMD_RESET_Q_STATS, K.QSTATS, C.MQCA_Q_NAME,
                display="AMQ8450I: Display queue status details.", generic=True),
        Command("DISPLAY", "QSTATUS", C.MQCMD_INQUIRE_Q_STATUS, K.QSTATUS, C.MQCA_Q_NAME,
                attrs_pid=C.MQIACF_Q_STATUS_ATTRS, display="AMQ8450I: Display queue status details.", generic=True),
    ]
    # ---- subscriptions
    rows += [
        Command("DEFINE", "SUB", C.MQCMD_CREATE_SUBSCRIPTION, K.SUB, C.MQCACF_SUB_NAME,
                message="AMQ8094I: IBM MQ subscription created.", extra=(REPLACE,),
                like=(C.MQCMD_COPY_SUBSCRIPTION, C.MQCACF_FROM_SUB_NAME, C.MQCACF_TO_SUB_NAME)),
        Command("ALTER", "SUB", C.MQCMD_CHANGE_SUBSCRIPTION, K.SUB, C.MQCACF_SUB_NAME, name=NAME_OPTIONAL,
                message="AMQ8095I: IBM MQ subscription changed."),
        Command("DELETE", "SUB", C.MQCMD_DELETE_SUBSCRIPTION, K.SUB, C.MQCACF_SUB_NAME, name=NAME_OPTIONAL,
                message="AMQ8097I: IBM MQ subscription deleted.", extra=(IGNSTATE,)),
        Command("DISPLAY", "SUB", C.MQCMD_INQUIRE_SUBSCRIPTION, K.SUB, C.MQCACF_SUB_NAME, name=NAME_OPTIONAL,
                attrs_pid=C.MQIACF_SUB_ATTRS, display="AMQ8096I: IBM MQ subscription inquired.", generic=True),
        Command("DISPLAY", "SBSTATUS", C.MQCMD_INQUIRE_SUB_STATUS, K.SBSTATUS, C.MQCACF_SUB_NAME,
                name=NAME_OPTIONAL, attrs_pid=C.MQIACF_SUB_STATUS_ATTRS,
                display="AMQ8099I: IBM MQ subscription status inquired.", generic=True),
    ]
    # ---- topics
    rows += [
        Command("DEFINE", "TOPIC", C.MQCMD_CREATE_TOPIC, K.TOPIC, C.MQCA_TOPIC_NAME,
                message="AMQ8690I: IBM MQ topic created.", extra=(REPLACE,),
                like=(C.MQCMD_COPY_TOPIC, C.MQCACF_FROM_TOPIC_NAME, C.MQCACF_TO_TOPIC_NAME)),
        Command("ALTER", "TOPIC", C.MQCMD_CHANGE_TOPIC, K.TOPIC, C.MQCA_TOPIC_NAME,
                message="AMQ8691I: IBM MQ topic changed."),
        Command("DELETE", "TOPIC", C.MQCMD_DELETE_TOPIC, K.TOPIC, C.MQCA_TOPIC_NAME,
                message="AMQ8692I: IBM MQ topic deleted.", extra=(AUTHREC, IGNSTATE)),
        Command("DISPLAY", "TOPIC", C.MQCMD_INQUIRE_TOPIC, K.TOPIC, C.MQCA_TOPIC_NAME, attrs_pid=C.MQIACF_TOPIC_ATTRS,
                display="AMQ8633I: Display topic details.", generic=True),
        Command("DISPLAY", "TPSTATUS", C.MQCMD_INQUIRE_TOPIC_STATUS, K.TPSTATUS, C.MQCA_TOPIC_STRING,
                attrs_pid=C.MQIACF_TOPIC_STATUS_ATTRS, display="AMQ8754I: Display topic status details.",
                extra=(e("TYPE", C.MQIACF_TOPIC_STATUS_TYPE, {"TOPIC": C.MQIACF_TOPIC_STATUS,
                                                              "SUB": C.MQIACF_TOPIC_SUB,
                                                              "PUB": C.MQIACF_TOPIC_PUB}),), generic=True),
        Command("CLEAR", "TOPICSTR", C.MQCMD_CLEAR_TOPIC_STRING, K.TPSTATUS, C.MQCA_TOPIC_STRING,
                message="AMQ8927I: Topic string cleared.",
                extra=(e("CLRTYPE", C.MQIACF_CLEAR_TYPE, {"RETAINED": TP.MQCLRT_RETAINED}),
                       e("SCOPE", C.MQIACF_CLEAR_SCOPE, {"LOCAL": TP.MQCLRS_LOCAL, "ALL": TP.MQCLRS_GLOBAL}))),
    ]
    # ---- queue manager
    rows += [
        Command("ALTER", "QMGR", C.MQCMD_CHANGE_Q_MGR, K.QMGR, name=NAME_NONE,
                message="AMQ8005I: IBM MQ queue manager changed.", extra=(flag("FORCE", "NOFORCE", C.MQIACF_FORCE,
                                                                               1, 0),)),
        Command("DISPLAY", "QMGR", C.MQCMD_INQUIRE_Q_MGR, K.QMGR, name=NAME_NONE, attrs_pid=C.MQIACF_Q_MGR_ATTRS,
                default_all=True, display="AMQ8408I: Display Queue Manager details."),
        Command("DISPLAY", "QMSTATUS", C.MQCMD_INQUIRE_Q_MGR_STATUS, K.QMSTATUS, name=NAME_NONE,
                attrs_pid=C.MQIACF_Q_MGR_STATUS_ATTRS, default_all=True,
                display="AMQ8705I: Display Queue Manager Status Details."),
        # AMQ8723I: IBM's number for this display, not yet seen in a published transcript (docs/decisions.md MS3)
        Command("DISPLAY", "PUBSUB", C.MQCMD_INQUIRE_PUBSUB_STATUS, K.PUBSUB, name=NAME_NONE,
                attrs_pid=C.MQIACF_PUBSUB_STATUS_ATTRS, default_all=True,
                display="AMQ8723I: Display pub/sub status details."),
        Command("PING", "QMGR", C.MQCMD_PING_Q_MGR, K.EMPTY, name=NAME_NONE,
                message="AMQ8415I: Ping IBM MQ Queue Manager command complete."),
        # RESET QMGR TYPE(STATISTICS): Reset Queue Manager with Action MQACT_COLLECT_STATISTICS
        Command("RESET", "QMGR", C.MQCMD_RESET_Q_MGR, K.EMPTY, name=NAME_NONE,
                message="AMQ8079I: IBM MQ queue manager reset.",
                extra=(e("TYPE", C.MQIACF_ACTION, {"ADVANCELOG": C.MQACT_ADVANCE_LOG,
                                                   "STATISTICS": C.MQACT_COLLECT_STATISTICS,
                                                   "PUBSUB": C.MQACT_PUBSUB, "REDUCELOG": C.MQACT_REDUCE_LOG}),
                       s("CHILD", C.MQCA_CHILD), s("PARENT", C.MQCA_PARENT))),
        # REFRESH QMGR TYPE(CONFIGEV) OBJECT(...) NAME(...) INCLINT(...): configuration events for what
        # exists (registry/admin/commands/refresh.py); the message is docs/decisions.md V-numbered.
        Command("REFRESH", "QMGR", C.MQCMD_REFRESH_Q_MGR, K.EMPTY, name=NAME_NONE,
                message="AMQ8005I: IBM MQ queue manager changed.",
                extra=(e("TYPE", C.MQIACF_REFRESH_TYPE, {"CONFIGEV": 1, "PROXYSUB": 4}),  # MQRT_*, cmqcfc.h
                       e("OBJECT", C.MQIACF_OBJECT_TYPE, {
                           "ALL": C.MQOT_ALL, "AUTHINFO": C.MQOT_AUTH_INFO, "AUTHREC": C.MQOT_AUTH_REC,
                           "CHANNEL": C.MQOT_CHANNEL, "CHLAUTH": C.MQOT_CHLAUTH, "COMMINFO": C.MQOT_COMM_INFO,
                           "LISTENER": C.MQOT_LISTENER, "NAMELIST": C.MQOT_NAMELIST, "PROCESS": C.MQOT_PROCESS,
                           "QALIAS": C.MQOT_ALIAS_Q, "QLOCAL": C.MQOT_LOCAL_Q, "QMODEL": C.MQOT_MODEL_Q,
                           "QREMOTE": C.MQOT_REMOTE_Q, "QUEUE": C.MQOT_Q, "QMGR": C.MQOT_Q_MGR,
                           "SERVICE": C.MQOT_SERVICE, "TOPIC": C.MQOT_TOPIC}),
                       s("NAME", C.MQCACF_OBJECT_NAME), i("INCLINT", C.MQIACF_REFRESH_INTERVAL))),
        Command("DISPLAY", "CONN", C.MQCMD_INQUIRE_CONNECTION, K.CONN, C.MQBACF_GENERIC_CONNECTION_ID,
                attrs_pid=C.MQIACF_CONNECTION_ATTRS, display="AMQ8276I: Display Connection details.", generic=True),
        Command("STOP", "CONN", C.MQCMD_STOP_CONNECTION, K.CONN, C.MQBACF_CONNECTION_ID,
                message="AMQ8458I: Stop connection request accepted."),
    ]
    # ---- channels
    rows += [
        Command("DEFINE", "CHANNEL", C.MQCMD_CREATE_CHANNEL, K.CHANNEL, C.MQCACH_CHANNEL_NAME,
                message="AMQ8014I: IBM MQ channel created.", extra=(REPLACE,),
                like=(C.MQCMD_COPY_CHANNEL, C.MQCACF_FROM_CHANNEL_NAME, C.MQCACF_TO_CHANNEL_NAME)),
        Command("ALTER", "CHANNEL", C.MQCMD_CHANGE_CHANNEL, K.CHANNEL, C.MQCACH_CHANNEL_NAME,
                message="AMQ8016I: IBM MQ channel changed."),
        Command("DELETE", "CHANNEL", C.MQCMD_DELETE_CHANNEL, K.CHANNEL, C.MQCACH_CHANNEL_NAME,
                message="AMQ8015I: IBM MQ channel deleted.", extra=(AUTHREC,)),
        Command("DISPLAY", "CHANNEL", C.MQCMD_INQUIRE_CHANNEL, K.CHANNEL, C.MQCACH_CHANNEL_NAME,
                attrs_pid=C.MQIACF_CHANNEL_ATTRS, display="AMQ8414I: Display Channel details.", generic=True),
        Command("DISPLAY", "CHSTATUS", C.MQCMD_INQUIRE_CHANNEL_STATUS, K.CHSTATUS, C.MQCACH_CHANNEL_NAME,
                attrs_pid=C.MQIACH_CHANNEL_INSTANCE_ATTRS, display="AMQ8417I: Display Channel Status details.",
                not_found="AMQ8420I: Channel Status not found.", generic=True,
                extra=(K.CHSTATUS.keyword("CURRENT"),)),  # type: ignore[arg-type]  # CURRENT or SAVED
        Command("START", "CHANNEL", C.MQCMD_START_CHANNEL, K.CHANNEL, C.MQCACH_CHANNEL_NAME,
                message="AMQ8018I: Start IBM MQ channel accepted."),
        Command("STOP", "CHANNEL", C.MQCMD_STOP_CHANNEL, K.CHSTATUS, C.MQCACH_CHANNEL_NAME,
                message="AMQ8019I: Stop IBM MQ channel accepted.",
                extra=(e("MODE", C.MQIACF_MODE, {"QUIESCE": 1, "FORCE": 0, "TERMINATE": 2}),)),
        # Telemetry channels only (IBM, PURGE CHANNEL; "Synonym: None").
        Command("PURGE", "CHANNEL", C.MQCMD_PURGE_CHANNEL, K.CHSTATUS, C.MQCACH_CHANNEL_NAME,
                message="AMQ8019I: Stop IBM MQ channel accepted."),
        Command("PING", "CHANNEL", C.MQCMD_PING_CHANNEL, K.CHANNEL, C.MQCACH_CHANNEL_NAME,
                message="AMQ8020I: Ping IBM MQ channel complete.", extra=(i("DATALEN", C.MQIACH_DATA_COUNT),)),
        Command("RESET", "CHANNEL", C.MQCMD_RESET_CHANNEL, K.CHANNEL, C.MQCACH_CHANNEL_NAME,
                message="AMQ8023I: IBM MQ channel reset.", extra=(i("SEQNUM", C.MQIACH_MSG_SEQUENCE_NUMBER),)),
        Command("RESOLVE", "CHANNEL", C.MQCMD_RESOLVE_CHANNEL, K.CHANNEL, C.MQCACH_CHANNEL_NAME,
                message="AMQ8025I: IBM MQ channel resolved.",
                extra=(e("ACTION", C.MQIACH_IN_DOUBT, {"COMMIT": 1, "BACKOUT": 2}),)),
        Command("DISPLAY", "CLUSQMGR", C.MQCMD_INQUIRE_CLUSTER_Q_MGR, K.CLUSQMGR, C.MQCA_CLUSTER_Q_MGR_NAME,
                attrs_pid=C.MQIACF_CLUSTER_Q_MGR_ATTRS, display="AMQ8441I: Display Cluster Queue Manager details.",
                generic=True),
    ]
    # ---- clusters (docs/decisions.md L6: the messages)
    clusters = (s("CLUSTER", C.MQCA_CLUSTER_NAME), s("CLUSNL", C.MQCA_CLUSTER_NAMELIST), CMDSCOPE)
    rows += [
        Command("SUSPEND", "QMGR", C.MQCMD_SUSPEND_Q_MGR_CLUSTER, K.EMPTY, name=NAME_NONE,
                message="AMQ8559I: Suspend Queue Manager Cluster command accepted.",
                extra=clusters + (e("MODE", C.MQIACF_MODE, {"QUIESCE": 1, "FORCE": 0}),)),
        Command("RESUME", "QMGR", C.MQCMD_RESUME_Q_MGR_CLUSTER, K.EMPTY, name=NAME_NONE,
                message="AMQ8558I: Resume Queue Manager Cluster command accepted.", extra=clusters),
        Command("REFRESH", "CLUSTER", C.MQCMD_REFRESH_CLUSTER, K.EMPTY, C.MQCA_CLUSTER_NAME,
                message="AMQ8557I: Refresh Cluster command accepted.",
                extra=(e("REPOS", C.MQIACF_REFRESH_REPOSITORY, {"YES": 1, "NO": 0}), CMDSCOPE)),
        Command("RESET", "CLUSTER", C.MQCMD_RESET_CLUSTER, K.EMPTY, C.MQCA_CLUSTER_NAME,
                message="AMQ8556I: Reset Cluster command accepted.",
                extra=(e("ACTION", C.MQIACF_ACTION, {"FORCEREMOVE": C.MQACT_FORCE_REMOVE}),
                       s("QMNAME", C.MQCA_Q_MGR_NAME), s("QMID", C.MQCA_Q_MGR_IDENTIFIER),
                       e("QUEUES", C.MQIACF_REMOVE_QUEUES, {"YES": 1, "NO": 0}), CMDSCOPE)),
    ]
    # ---- definitions with one name
    simple = (
        ("NAMELIST", K.NAMELIST, C.MQCA_NAMELIST_NAME, C.MQCMD_CREATE_NAMELIST, C.MQCMD_CHANGE_NAMELIST,
         C.MQCMD_DELETE_NAMELIST, C.MQCMD_INQUIRE_NAMELIST, C.MQCMD_COPY_NAMELIST, C.MQCACF_FROM_NAMELIST_NAME,
         C.MQCACF_TO_NAMELIST_NAME, C.MQIACF_NAMELIST_ATTRS,
         ("AMQ8552I: IBM MQ namelist created.", "AMQ8551I: IBM MQ namelist changed.",
          "AMQ8553I: IBM MQ namelist deleted.", "AMQ8550I: Display namelist details.")),
        ("PROCESS", K.PROCESS, C.MQCA_PROCESS_NAME, C.MQCMD_CREATE_PROCESS, C.MQCMD_CHANGE_PROCESS,
         C.MQCMD_DELETE_PROCESS, C.MQCMD_INQUIRE_PROCESS, C.MQCMD_COPY_PROCESS, C.MQCACF_FROM_PROCESS_NAME,
         C.MQCACF_TO_PROCESS_NAME, C.MQIACF_PROCESS_ATTRS,
         ("AMQ8010I: IBM MQ process created.", "AMQ8011I: IBM MQ process changed.",
          "AMQ8012I: IBM MQ process deleted.", "AMQ8407I: Display Process details.")),
        ("AUTHINFO", K.AUTHINFO, C.MQCA_AUTH_INFO_NAME, C.MQCMD_CREATE_AUTH_INFO, C.MQCMD_CHANGE_AUTH_INFO,
         C.MQCMD_DELETE_AUTH_INFO, C.MQCMD_INQUIRE_AUTH_INFO, C.MQCMD_COPY_AUTH_INFO, C.MQCACF_FROM_AUTH_INFO_NAME,
         C.MQCACF_TO_AUTH_INFO_NAME, C.MQIACF_AUTH_INFO_ATTRS,
         ("AMQ8563I: IBM MQ authentication information object created.",
          "AMQ8567I: IBM MQ authentication information changed.",
          "AMQ8568I: IBM MQ authentication information object deleted.",
          "AMQ8566I: Display authentication information details.")),
        ("LISTENER", K.LISTENER, C.MQCACH_LISTENER_NAME, C.MQCMD_CREATE_LISTENER, C.MQCMD_CHANGE_LISTENER,
         C.MQCMD_DELETE_LISTENER, C.MQCMD_INQUIRE_LISTENER, C.MQCMD_COPY_LISTENER, C.MQCACF_FROM_LISTENER_NAME,
         C.MQCACF_TO_LISTENER_NAME, C.MQIACF_LISTENER_ATTRS,
         ("AMQ8626I: IBM MQ listener created.", "AMQ8623I: IBM MQ listener changed.",
          "AMQ8627I: IBM MQ listener deleted.", "AMQ8630I: Display listener information details.")),
        ("SERVICE", K.SERVICE, C.MQCA_SERVICE_NAME, C.MQCMD_CREATE_SERVICE, C.MQCMD_CHANGE_SERVICE,
         C.MQCMD_DELETE_SERVICE, C.MQCMD_INQUIRE_SERVICE, C.MQCMD_COPY_SERVICE, C.MQCACF_FROM_SERVICE_NAME,
         C.MQCACF_TO_SERVICE_NAME, C.MQIACF_SERVICE_ATTRS,
         ("AMQ8628I: IBM MQ service created.", "AMQ8624I: IBM MQ service changed.",
          "AMQ8625I: IBM MQ service deleted.", "AMQ8629I: Display service information details.")),
        ("COMMINFO", K.COMMINFO, C.MQCA_COMM_INFO_NAME, C.MQCMD_CREATE_COMM_INFO, C.MQCMD_CHANGE_COMM_INFO,
         C.MQCMD_DELETE_COMM_INFO, C.MQCMD_INQUIRE_COMM_INFO, C.MQCMD_COPY_COMM_INFO, C.MQCACF_FROM_COMM_INFO_NAME,
         C.MQCACF_TO_COMM_INFO_NAME, C.MQIACF_COMM_INFO_ATTRS,
         ("AMQ8804I: IBM MQ communication information object created.",
          "AMQ8805I: IBM MQ communication information object changed.",
          "AMQ8806I: IBM MQ communication information object deleted.",
          "AMQ8807I: Display communication information details.")),
    )
    for (noun, otype, name_pid, create, change, delete, inquire, copy, from_pid, to_pid, attrs,
         (created, changed, deleted, shown)) in simple:
        rows += [
            Command("DEFINE", noun, create, otype, name_pid, message=created, extra=(REPLACE,),
                    like=(copy, from_pid, to_pid)),
            Command("ALTER", noun, change, otype, name_pid, message=changed),
            Command("DELETE", noun, delete, otype, name_pid, message=deleted,
                    extra=(AUTHREC, IGNSTATE) if noun == "SERVICE" else (AUTHREC,)),
            Command("DISPLAY", noun, inquire, otype, name_pid, attrs_pid=attrs, display=shown, generic=True),
        ]
    rows += [
        Command("DISPLAY", "LSSTATUS", C.MQCMD_INQUIRE_LISTENER_STATUS, K.LSSTATUS, C.MQCACH_LISTENER_NAME,
                attrs_pid=C.MQIACF_LISTENER_STATUS_ATTRS, display="AMQ8631I: Display listener status details.",
                generic=True),
        Command("DISPLAY", "SVSTATUS", C.MQCMD_INQUIRE_SERVICE_STATUS, K.SVSTATUS, C.MQCA_SERVICE_NAME,
                attrs_pid=C.MQIACF_SERVICE_STATUS_ATTRS, display="AMQ8632I: Display service status details.",
                generic=True),
        Command("START", "LISTENER", C.MQCMD_START_CHANNEL_LISTENER, K.LISTENER, C.MQCACH_LISTENER_NAME,
                message="AMQ8021I: Request to start IBM MQ listener accepted."),
        Command("STOP", "LISTENER", C.MQCMD_STOP_CHANNEL_LISTENER, K.LISTENER, C.MQCACH_LISTENER_NAME,
                message="AMQ8706I: Request to stop IBM MQ listener accepted."),
        Command("START", "SERVICE", C.MQCMD_START_SERVICE, K.SERVICE, C.MQCA_SERVICE_NAME,
                message="AMQ8733I: Request to start Service accepted."),
        Command("STOP", "SERVICE", C.MQCMD_STOP_SERVICE, K.SERVICE, C.MQCA_SERVICE_NAME,
                message="AMQ8735I: Request to stop Service accepted."),
    ]
    # ---- security
    entity = (s("PRINCIPAL", C.MQCACF_ENTITY_NAME), s("GROUP", C.MQCACF_ENTITY_NAME),
              e("MATCH", C.MQIACF_AUTH_OPTIONS, MATCH))
    rows += [
        Command("SET", "AUTHREC", C.MQCMD_SET_AUTH_REC, K.AUTHREC, name=NAME_NONE,
                message="AMQ8862I: IBM MQ authority record set."),
        Command("DELETE", "AUTHREC", C.MQCMD_DELETE_AUTH_REC, K.AUTHREC, name=NAME_NONE,
                message="AMQ8863I: IBM MQ authority record deleted."),
        Command("DISPLAY", "AUTHREC", C.MQCMD_INQUIRE_AUTH_RECS, K.AUTHREC, name=NAME_NONE,
                attrs_pid=C.MQIACF_AUTH_PROFILE_ATTRS, default_all=True,
                display="AMQ8864I: Display authority record details.", extra=entity,
                not_found="AMQ8865I: Authority records not found."),
        Command("DISPLAY", "ENTAUTH", C.MQCMD_INQUIRE_ENTITY_AUTH, K.ENTAUTH, name=NAME_NONE,
                attrs_pid=C.MQIACF_AUTH_PROFILE_ATTRS, default_all=True,
                display="AMQ8866I: Display entity authority details.", extra=entity),
        Command("DISPLAY", "AUTHSERV", C.MQCMD_INQUIRE_AUTH_SERVICE, K.AUTHSERV, name=NAME_NONE,
                attrs_pid=C.MQIACF_AUTH_SERVICE_ATTRS, default_all=True,
                display="AMQ8869I: Display authority service details."),
        Command("SET", "CHLAUTH", C.MQCMD_SET_CHLAUTH_REC, K.CHLAUTH, C.MQCACH_CHANNEL_NAME,
                message="AMQ8877I: IBM MQ channel authentication record set."),
        Command("DISPLAY", "CHLAUTH", C.MQCMD_INQUIRE_CHLAUTH_RECS, K.CHLAUTH, C.MQCACH_CHANNEL_NAME,
                attrs_pid=C.MQIACF_CHLAUTH_ATTRS, display="AMQ8878I: Display channel authentication record details.",
                not_found="AMQ8884I: Channel authentication record not found.", generic=True),
        Command("REFRESH", "SECURITY", C.MQCMD_REFRESH_SECURITY, K.EMPTY, C.MQIACF_SECURITY_ITEM,
                name=NAME_OPTIONAL, message="AMQ8560I: IBM MQ security cache refreshed.",
                extra=(e("TYPE", C.MQIACF_SECURITY_TYPE, {"AUTHSERV": A.MQSECTYPE_AUTHSERV, "SSL": A.MQSECTYPE_SSL,
                                                          "CONNAUTH": A.MQSECTYPE_CONNAUTH}),)),
    ]
    table = {}
    for row in rows:
        if row.verb == "DISPLAY" and row.noun in SUMMARY:
            row = dataclasses.replace(row, summary=SUMMARY[row.noun])
        table[(row.verb, row.noun)] = row
    return table


# What DISPLAY of a generic name shows when no attribute is named (IBM: the name and type, for
# definitions); a specific name without attributes shows them all (translate.py).
_Q_SUMMARY = ("QUEUE", "TYPE")
SUMMARY = {"QUEUE": _Q_SUMMARY, "QLOCAL": _Q_SUMMARY, "QMODEL": _Q_SUMMARY, "QALIAS": _Q_SUMMARY,
           "QREMOTE": _Q_SUMMARY, "QCLUSTER": _Q_SUMMARY, "SUB": ("SUBID", "SUB"), "SBSTATUS": ("SUB", "SUBID"),
           "TOPIC": ("TOPIC", "TYPE"), "CHANNEL": ("CHANNEL", "CHLTYPE"), "NAMELIST": ("NAMELIST",),
           "PROCESS": ("PROCESS",), "AUTHINFO": ("AUTHINFO", "AUTHTYPE"), "LISTENER": ("LISTENER",),
           "SERVICE": ("SERVICE",), "COMMINFO": ("COMMINFO",), "CONN": ("CONN",),
           "CLUSQMGR": ("CLUSQMGR", "CHANNEL", "CLUSTER"),
           "CHSTATUS": ("CHANNEL", "CHLTYPE", "CONNAME", "CURRENT", "STATUS", "SUBSTATE", "XMITQ")}


TABLE = _table()
