"""IBM's Change Queue Manager parameters on Multiplatforms (MQCMD_CHANGE_Q_MGR / ALTER QMGR, IBM MQ 9.4),
each with a valid value that is not a new queue manager's, how MQSC writes and DISPLAY QMGR shows it, and
for integers a value IBM refuses.  Written from IBM's pages, not from registry/: the sweeps in
tests/registry/admin/test_cmd_qmgr_attrs.py and tests/client/test_ibmmq_qmgr_attrs.py check the
queue manager against this list.

REPOS and REPOSNL cannot both be non-blank (MQRCCF_REPOS_NAME_CONFLICT): SWEEP sets REPOSNL, and
REPOS_STEP sets REPOS (clearing REPOSNL) afterwards.
"""

from __future__ import annotations

import dataclasses

from qmlite.pcf import constants as C

MANY = 999_999_999


@dataclasses.dataclass(frozen=True)
class Swept:
    keyword: str  # ALTER QMGR keyword
    pid: int  # PCF parameter
    value: object  # a valid value a new queue manager does not have
    shown: str  # how DISPLAY QMGR shows it (and how ALTER QMGR writes it, quoted when a string)
    bad: int | None = None  # an integer IBM refuses (MQRCCF_PARM_VALUE_ERROR)
    hidden: bool = False  # a secret (KEYRPWD, INITKEY): write-only, no Inquire or DISPLAY gives it back

    @property
    def mqsc(self) -> str:
        if isinstance(self.value, str):
            return f"{self.keyword}('{self.value}')"
        return f"{self.keyword}({self.shown})"


def _e(keyword: str, pid: int, value: int, shown: str, bad: int = 99) -> Swept:
    return Swept(keyword, pid, value, shown, bad)


def _n(keyword: str, pid: int, value: int, bad: int) -> Swept:
    return Swept(keyword, pid, value, str(value), bad)


def _s(keyword: str, pid: int, value: str, hidden: bool = False) -> Swept:
    return Swept(keyword, pid, value, value, hidden=hidden)


SWEEP = (
    _e("ACCTCONO", C.MQIA_ACCOUNTING_CONN_OVERRIDE, C.MQMON_ENABLED, "ENABLED"),
    _n("ACCTINT", C.MQIA_ACCOUNTING_INTERVAL, 60, 604_001),
    _e("ACCTMQI", C.MQIA_ACCOUNTING_MQI, C.MQMON_ON, "ON"),
    _e("ACCTQ", C.MQIA_ACCOUNTING_Q, C.MQMON_ON, "ON"),
    _e("ACTIVREC", C.MQIA_ACTIVITY_RECORDING, C.MQRECORDING_Q, "QUEUE"),
    _e("ACTVCONO", C.MQIA_ACTIVITY_CONN_OVERRIDE, C.MQMON_ENABLED, "ENABLED"),
    _e("ACTVTRC", C.MQIA_ACTIVITY_TRACE, C.MQMON_ON, "ON"),
    _e("AUTHOREV", C.MQIA_AUTHORITY_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _e("AUTHEVSC", C.MQIA_AUTHOREV_SCOPE, 1, "ALLCONNS"),  # MQAUSC_ALLCONNS
    _n("CCSID", C.MQIA_CODED_CHAR_SET_ID, 1208, 0),
    _s("CERTLABL", C.MQCA_CERT_LABEL, "qmlitecert"),
    _e("CERTVPOL", C.MQIA_CERT_VAL_POLICY, C.MQ_CERT_VAL_POLICY_RFC5280, "RFC5280"),
    _e("CHAD", C.MQIA_CHANNEL_AUTO_DEF, C.MQCHAD_ENABLED, "ENABLED"),
    _e("CHADEV", C.MQIA_CHANNEL_AUTO_DEF_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _s("CHADEXIT", C.MQCA_CHANNEL_AUTO_DEF_EXIT, "/opt/exits/chad(ChadExit)"),
    _e("CHLAUTH", C.MQIA_CHLAUTH_RECORDS, 0, "DISABLED"),  # MQCHLA_DISABLED
    _e("CHLEV", C.MQIA_CHANNEL_EVENT, C.MQEVR_EXCEPTION, "EXCEPTION"),
    _s("CLWLDATA", C.MQCA_CLUSTER_WORKLOAD_DATA, "workload data"),
    _s("CLWLEXIT", C.MQCA_CLUSTER_WORKLOAD_EXIT, "/opt/exits/clwl(ClwlExit)"),
    _n("CLWLLEN", C.MQIA_CLUSTER_WORKLOAD_LENGTH, 2048, -1),
    _n("CLWLMRUC", C.MQIA_CLWL_MRU_CHANNELS, 10, 0),
    _e("CLWLUSEQ", C.MQIA_CLWL_USEQ, C.MQCLWL_USEQ_ANY, "ANY"),
    _e("CMDEV", C.MQIA_COMMAND_EVENT, C.MQEVR_NO_DISPLAY, "NODISPLAY"),
    _e("CONFIGEV", C.MQIA_CONFIGURATION_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _s("CONNAUTH", C.MQCA_CONN_AUTH, "SYSTEM.DEFAULT.AUTHINFO.IDPWOS"),
    _s("CUSTOM", C.MQCA_CUSTOM, "TAG(qmlite)"),
    _s("DEADQ", C.MQCA_DEAD_LETTER_Q_NAME, "SYSTEM.DEAD.LETTER.QUEUE"),
    _e("DEFCLXQ", C.MQIA_DEF_CLUSTER_XMIT_Q_TYPE, C.MQCLXQ_CHANNEL, "CHANNEL"),
    _s("DEFXMITQ", C.MQCA_DEF_XMIT_Q_NAME, "XMIT.DEFAULT"),
    _s("DESCR", C.MQCA_Q_MGR_DESC, "swept queue manager"),
    _n("IMGINTVL", C.MQIA_MEDIA_IMAGE_INTERVAL, 120, 1_000_000),
    _n("IMGLOGLN", C.MQIA_MEDIA_IMAGE_LOG_LENGTH, 1024, -1),
    _e("IMGRCOVO", C.MQIA_MEDIA_IMAGE_RECOVER_OBJ, 0, "NO"),  # MQIMGRCOV_NO
    _e("IMGRCOVQ", C.MQIA_MEDIA_IMAGE_RECOVER_Q, 0, "NO"),
    _e("IMGSCHED", C.MQIA_MEDIA_IMAGE_SCHEDULING, 1, "AUTO"),  # MQMEDIMGSCHED_AUTO
    _e("INHIBTEV", C.MQIA_INHIBIT_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _s("INITKEY", C.MQCA_INITIAL_KEY, "an initial key", hidden=True),
    _e("IPADDRV", C.MQIA_IP_ADDRESS_VERSION, 1, "IPV6"),  # MQIPADDR_IPV6
    _s("KEYRPWD", C.MQCA_SSL_KEY_REPO_PASSWORD, "a key repository passphrase", hidden=True),
    _e("LOCALEV", C.MQIA_LOCAL_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _e("LOGGEREV", C.MQIA_LOGGER_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _n("MARKINT", C.MQIA_MSG_MARK_BROWSE_INTERVAL, 10_000, -2),
    _n("MAXHANDS", C.MQIA_MAX_HANDLES, 500, -1),
    _n("MAXMSGL", C.MQIA_MAX_MSG_LENGTH, 8_388_608, 32_767),
    _n("MAXPROPL", C.MQIA_MAX_PROPERTIES_LENGTH, 65_536, 104_857_601),
    _n("MAXUMSGS", C.MQIA_MAX_UNCOMMITTED_MSGS, 5_000, 0),
    _e("MONACLS", C.MQIA_MONITORING_AUTO_CLUSSDR, C.MQMON_MEDIUM, "MEDIUM"),
    _e("MONCHL", C.MQIA_MONITORING_CHANNEL, C.MQMON_MEDIUM, "MEDIUM"),
    _e("MONQ", C.MQIA_MONITORING_Q, C.MQMON_MEDIUM, "MEDIUM"),
    _s("PARENT", C.MQCA_PARENT, "PARENT.QM"),
    _e("PERFMEV", C.MQIA_PERFORMANCE_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _e("PSCLUS", C.MQIA_PUBSUB_CLUSTER, C.MQPSCLUS_DISABLED, "DISABLED"),
    _e("PSMODE", C.MQIA_PUBSUB_MODE, C.MQPSM_COMPAT, "COMPAT"),
    _e("PSNPMSG", C.MQIA_PUBSUB_NP_MSG, C.MQUNDELIVERED_KEEP, "KEEP"),
    _e("PSNPRES", C.MQIA_PUBSUB_NP_RESP, C.MQUNDELIVERED_SAFE, "SAFE"),
    _n("PSRTYCNT", C.MQIA_PUBSUB_MAXMSG_RETRY_COUNT, 7, -1),
    _e("PSSYNCPT", C.MQIA_PUBSUB_SYNC_PT, C.MQSYNCPOINT_YES, "YES"),
    _e("REMOTEEV", C.MQIA_REMOTE_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _s("REPOSNL", C.MQCA_REPOSITORY_NAMELIST, "CLUSTERS.NL"),
    _e("REVDNS", C.MQIA_REVERSE_DNS_LOOKUP, 1, "DISABLED"),  # MQRDNS_DISABLED
    _e("ROUTEREC", C.MQIA_TRACE_ROUTE_RECORDING, C.MQRECORDING_Q, "QUEUE"),
    _e("SCHINIT", C.MQIA_CHINIT_CONTROL, C.MQSVC_CONTROL_MANUAL, "MANUAL"),
    _e("SCMDSERV", C.MQIA_CMD_SERVER_CONTROL, C.MQSVC_CONTROL_MANUAL, "MANUAL"),
    _s("SSLCRLNL", C.MQCA_SSL_CRL_NAMELIST, "CRL.NAMELIST"),
    _s("SSLCRYP", C.MQCA_SSL_CRYPTO_HARDWARE, "GSK_PKCS11=/usr/lib/pkcs11.so"),
    _e("SSLEV", C.MQIA_SSL_EVENT, C.MQEVR_ENABLED, "ENABLED"),
    _e("SSLFIPS", C.MQIA_SSL_FIPS_REQUIRED, C.MQSSL_FIPS_YES, "YES"),
    _s("SSLKEYR", C.MQCA_SSL_KEY_REPOSITORY, "/var/mqm/ssl/qmlite"),
    _n("SSLRKEYC", C.MQIA_SSL_RESET_COUNT, 1_048_576, -1),
    _e("STATACLS", C.MQIA_STATISTICS_AUTO_CLUSSDR, C.MQMON_HIGH, "HIGH"),
    _e("STATCHL", C.MQIA_STATISTICS_CHANNEL, C.MQMON_LOW, "LOW"),
    _n("STATINT", C.MQIA_STATISTICS_INTERVAL, 60, 0),
    _e("STATMQI", C.MQIA_STATISTICS_MQI, C.MQMON_ON, "ON"),
    _e("STATQ", C.MQIA_STATISTICS_Q, C.MQMON_ON, "ON"),
    _e("STRSTPEV", C.MQIA_START_STOP_EVENT, C.MQEVR_DISABLED, "DISABLED"),
    Swept("SUITEB", C.MQIA_SUITE_B_STRENGTH, (C.MQ_SUITE_B_128_BIT, C.MQ_SUITE_B_192_BIT), "128_BIT,192_BIT"),
    _n("TREELIFE", C.MQIA_TREE_LIFE_TIME, 600, 59),
    _n("TRIGINT", C.MQIA_TRIGGER_INTERVAL, 5_000, -1),
)
REPOS_STEP = (_s("REPOS", C.MQCA_REPOSITORY_NAME, "CLUSTER1"), _s("REPOSNL", C.MQCA_REPOSITORY_NAMELIST, ""))
EVERY = SWEEP + REPOS_STEP[:1]  # every documented parameter but Force, once

# A monitoring agent's set-up (IBM's mq-metric-samples / mq_prometheus README, "Configuring MQ"):
# the queue manager attributes its collectors need, as an MQSC start-up file would say them.
MONITORING_SETUP = """\
* What IBM's mq_prometheus collector needs on the queue manager
ALTER QMGR MONQ(MEDIUM) MONCHL(MEDIUM) STATINT(60) STATQ(ON) STATMQI(ON) STATCHL(MEDIUM) +
      ACCTQ(ON) ACCTMQI(ON) ACCTINT(60) PERFMEV(ENABLED) STATACLS(MEDIUM) MONACLS(MEDIUM)
ALTER QMGR ACTVTRC(ON) CHLEV(ENABLED) CMDEV(ENABLED) CONFIGEV(ENABLED) SSLEV(ENABLED) +
      LOCALEV(ENABLED) REMOTEEV(ENABLED) INHIBTEV(ENABLED) AUTHOREV(ENABLED) STRSTPEV(ENABLED)
"""
