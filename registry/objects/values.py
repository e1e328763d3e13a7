"""MQ values the generated pcf/constants.py does not carry, for channels, authentication information,
listeners, services and communication information.

Values as IBM publishes them (cmqc.h, cmqcfc.h, cmqxc.h; the same tables scripts/gen_constants.py
reads).  Kept here rather than in the generated module so regenerating it loses nothing.
"""

from __future__ import annotations

# AuthInfoType
MQAIT_ALL = 0
MQAIT_CRL_LDAP = 1
MQAIT_OCSP = 2
MQAIT_IDPW_OS = 3
MQAIT_IDPW_LDAP = 4
# AuthenticationMethod
MQAUTHENTICATE_OS = 0
MQAUTHENTICATE_PAM = 1
# LDAP
MQLDAP_NESTGRP_NO = 0
MQLDAP_NESTGRP_YES = 1
MQLDAP_AUTHORMD_OS = 0
MQLDAP_AUTHORMD_SEARCHGRP = 1
MQLDAP_AUTHORMD_SEARCHUSR = 2
MQLDAP_AUTHORMD_SRCHGRPSN = 3
# Resolve Channel's InDoubt
MQIDO_COMMIT = 1
MQIDO_BACKOUT = 2
# KeepAliveInterval AUTO
MQKAI_AUTO = -1
# MCAType
MQMCAT_PROCESS = 1
MQMCAT_THREAD = 2
# Stop Channel's Mode
MQMODE_FORCE = 0
MQMODE_QUIESCE = 1
MQMODE_TERMINATE = 2
# PutAuthority (the z/OS-only ALTERNATE_OR_MCA and ONLY_MCA are not accepted here)
MQPA_DEFAULT = 1
MQPA_CONTEXT = 2
# DefReconnect
MQRCN_NO = 0
MQRCN_YES = 1
MQRCN_Q_MGR = 2
MQRCN_DISABLED = 3
# SSLClientAuth
MQSCA_REQUIRED = 0
MQSCA_OPTIONAL = 1
MQSCA_NEVER_REQUIRED = 2  # telemetry (MQTT) channels only: SSLCAUTH(NEVER)
# Protocol of a telemetry channel (PROTOCOL, MQIACH_PROTOCOL, a list)
MQPROTO_MQTTV3 = 1
MQPROTO_HTTP = 2
MQPROTO_AMQP = 3
MQPROTO_MQTTV311 = 4
# UseClientIdentifier of a telemetry channel (USECLTID)
MQUCI_NO = 0
MQUCI_YES = 1
# HeaderCompression / MessageCompression
MQCOMPRESS_NONE = 0
MQCOMPRESS_RLE = 1
MQCOMPRESS_ZLIBFAST = 2
MQCOMPRESS_ZLIBHIGH = 4
MQCOMPRESS_SYSTEM = 8
MQCOMPRESS_LZ4FAST = 16
MQCOMPRESS_LZ4HIGH = 32
MQCOMPRESS_ANY = 0x0FFFFFFF
# DataConversion
MQCDC_NO_SENDER_CONVERSION = 0
MQCDC_SENDER_CONVERSION = 1
# Communication information
MQCIT_MULTICAST = 1
MQMCB_DISABLED = 0
MQMCB_ENABLED = 1
MQMCP_ALL = -1
MQMCP_REPLY = 2
MQMCP_USER = 1
MQMCP_NONE = 0
MQMCP_COMPAT = -2
MQNSH_NONE = 0
MQNSH_ALL = -1
# Channel substate
MQCHSSTATE_OTHER = 0
MQCHSSTATE_RECEIVING = 300
# Delete Channel's ChannelTable
MQCHTAB_Q_MGR = 1
MQCHTAB_CLNTCONN = 2
# Inquire Channel Status's StopRequested
MQCHSR_STOP_NOT_REQUESTED = 0
MQCHSR_STOP_REQUESTED = 1
# Queue-manager attributes (Change/Inquire Queue Manager; cmqc.h, cmqcfc.h)
MQIPADDR_IPV4 = 0  # IPADDRV
MQIPADDR_IPV6 = 1
MQRDNS_ENABLED = 0  # REVDNS (cmqcfc.h)
MQRDNS_DISABLED = 1
MQMEDIMGINTVL_OFF = 0  # IMGINTVL(OFF)
MQMEDIMGLOGLN_OFF = 0  # IMGLOGLN(OFF)
MQMEDIMGSCHED_MANUAL = 0  # IMGSCHED
MQMEDIMGSCHED_AUTO = 1
MQIMGRCOV_NO = 0  # IMGRCOVO, IMGRCOVQ
MQIMGRCOV_YES = 1
MQAUSC_FAILURES = 0  # AUTHEVSC (cmqcfc.h)
MQAUSC_ALLCONNS = 1
MQAUSC_ALLCHECKS = 2
MQFC_NO = 0  # Force
MQFC_YES = 1
# Queues and topics (cmqc.h): CapExpiry, MaxQFileSize, ImageRecoverQueue (MQIMGRCOV_NO/YES above), StreamQueueQOS
MQCEX_NOLIMIT = -1
MQCEX_AS_PARENT = -2
MQQFS_DEFAULT = -1
MQQFS_MIN = 20  # MB: the smallest MAXFSIZE (IBM, ALTER QLOCAL MAXFSIZE)
MQQFS_MAX = 267_386_880  # MB: the largest (255 TB)
MQIMGRCOV_AS_Q_MGR = 2
MQST_BEST_EFFORT = 0
MQST_MUST_DUP = 1
