"""IBM's AMQ messages that qmlite writes to its error log: the catalogue.

Each :class:`Message` holds what IBM's message reference gives: the number with its severity letter
(I information, W warning, E error), the one-line text, EXPLANATION and ACTION, each with IBM's inserts
written as ``{a1}``/``{a2}`` (IBM's <insert_1>, <insert_2>: ArithInsert1-2, numbers) and ``{c1}``-``{c3}``
(<insert_3>-<insert_5>: CommentInsert1-3, strings), so an entry carries the same inserts IBM's JSON log
and the container's mirror show.  ``source`` says where the wording was taken from (docs/decisions.md
EL3): ``checked`` texts were compared with IBM's published text (an IBM page or an AMQERR01.LOG entry
IBM or a user published, named in ``evidence``); ``recalled`` ones follow IBM's message reference
(https://www.ibm.com/docs/en/ibm-mq/9.4?topic=messages-amq9xxx-remote and its AMQ5xxx/AMQ8xxx pages)
and are to be checked against it word for word.  ``probe`` is the IBM source file and line shown in the
entry's closing dashes (IBM's own, as its logs show them; they only say which component wrote it) and
``program`` the IBM process that writes it.
"""

from __future__ import annotations

import dataclasses

IBM_94 = "https://www.ibm.com/docs/en/ibm-mq/9.4?topic=reference-messages"  # IBM's AMQ message reference
_AMQ8_80 = "https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.ref.doc/amq8.htm"
# An IBM MQ 9.4.4.0 developer container's start-up output, as stored by the search tool (no address): AMQ8003I
# [CommentInsert1(9.4.4.0), CommentInsert3(QM1)], AMQ8004I [CommentInsert3(QM1)].
_NUMBER_UNSEEN = IBM_94 + "; no public text quotes this number (docs/decisions.md EL17)"
_CONTAINER_944 = "an MQ 9.4.4.0 container's console log (CommentInsert1 the version, CommentInsert3 the queue manager)"


@dataclasses.dataclass(frozen=True, slots=True)
class Message:
    number: str  # "AMQ9777E": the number and IBM's severity letter
    text: str
    explanation: str
    action: str
    program: str = "amqrmppa"  # the IBM process that writes it (channel process pool, OAM, listener...)
    probe: str = "cmqxrsrv.c : 1000"  # the file and line in the closing dashes
    source: str = "recalled"  # "checked" (against the page in ``evidence``) or "recalled"
    evidence: str = IBM_94

    @property
    def severity(self) -> str:
        return self.number[-1]

    @property
    def loglevel(self) -> str:
        """IBM's JSON log's loglevel for the severity letter (AMQERR01.json, the container's json format)."""
        return {"I": "INFO", "W": "WARNING", "E": "ERROR", "S": "ERROR"}.get(self.severity, "INFO")


_CHLAUTH_ACTION = ("Contact the systems administrator, who should examine the channel authentication records to "
                   "ensure that the correct settings have been configured. The ALTER QMGR CHLAUTH switch is used "
                   "to control whether channel authentication records are used. The command DISPLAY CHLAUTH can "
                   "be used to query the channel authentication records.")

_MESSAGES = [
    # ---- start and end --------------------------------------------------------------------------------
    Message("AMQ8003I", "IBM MQ queue manager '{c3}' started using V{c1}.",
            "IBM MQ queue manager '{c3}' started using V{c1}.", "None.",
            program="amqzxma0", probe="amqzxma0.c : 1000", source="checked",
            evidence="docs/reference/container.md (the container's start-up log); " + _AMQ8_80 + " (<insert_5> "
                     "started using V<insert_3>); " + _CONTAINER_944),
    Message("AMQ8004I", "IBM MQ queue manager '{c3}' ended.", "IBM MQ queue manager '{c3}' ended.", "None.",
            program="amqzxma0", probe="amqzxma0.c : 1100", source="checked",
            evidence=_AMQ8_80 + " (AMQ8004, <insert_5>); " + _CONTAINER_944),
    Message("AMQ5026I", "The listener '{c1}' has started. ProcessId({a1}).", "The listener process has started.",
            "None.", program="runmqlsr", probe="amqrmrsa.c : 500", source="checked",
            evidence="IBM's Testcontainers module (com.ibm.mq.testcontainers.MQContainer) waits for AMQ5026, "
                     "'The listener <insert> has started'"),
    Message("AMQ5806I", "Queued Publish/Subscribe Daemon started for queue manager {c1}.",
            "Queued Publish/Subscribe Daemon started for queue manager {c1}.", "None.",
            program="amqfqpub", probe="amqfqpub.c : 600", source="checked",
            evidence="docs/reference/container.md (Readiness); docs/decisions.md K9"),
    # ---- CHLAUTH: one message per rule type's refusal ---------------------------------------------------
    Message("AMQ9777E", "Channel was blocked",
            "The inbound channel '{c1}' was blocked from address '{c2}' because the active values of the "
            "channel matched a record configured with USERSRC(NOACCESS). The active values of the channel "
            "were '{c3}'.", _CHLAUTH_ACTION, probe="cmqxrsrv.c : 1500", source="checked",
            evidence="IBM APAR IT (https://www.ibm.com/support/pages/node/4706301) quotes the entry"),
    Message("AMQ9776E", "Channel was blocked by userid",
            "The inbound channel '{c1}' was blocked from address '{c2}' because the active values of the "
            "channel were mapped to a userid which should be blocked. The active values of the channel were "
            "'{c3}'.", _CHLAUTH_ACTION, probe="cmqxrsrv.c : 1520", source="checked",
            evidence="an MQ on IBM Cloud AMQERR01.LOG entry quoted at https://github.com/ibm-cloud-architecture/"
                     "refarch-mq-messaging/blob/1c95c20f0006dcf09f1d7466731506414e904710/producer/README.md"),
    Message("AMQ9782E", "Remote connection blocked",
            "The connection from remote address '{c1}' was blocked because it matched a channel "
            "authentication record of TYPE(BLOCKADDR).", _CHLAUTH_ACTION, probe="cmqxrfpt.c : 400",
            evidence=_NUMBER_UNSEEN),
    # ---- CHLAUTH WARN(YES): the block each record would have made, the channel let in -------------------
    Message("AMQ9785W", "Remote connection would have been blocked",
            "The connection from remote address '{c1}' would have been blocked because it matched a channel "
            "authentication record of TYPE(BLOCKADDR), but the record is in warning mode (WARN(YES)), so the "
            "connection was allowed.", _CHLAUTH_ACTION, probe="cmqxrfpt.c : 420", evidence=_NUMBER_UNSEEN),
    Message("AMQ9786W", "Channel would have been blocked",
            "The inbound channel '{c1}' would have been blocked from address '{c2}' because the active values "
            "of the channel matched a record configured with USERSRC(NOACCESS), but the record is in warning "
            "mode (WARN(YES)), so the channel was allowed to start. The active values of the channel were "
            "'{c3}'.", _CHLAUTH_ACTION, probe="cmqxrsrv.c : 1540", evidence=_NUMBER_UNSEEN),
    Message("AMQ9787W", "Channel would have been blocked by userid",
            "The inbound channel '{c1}' would have been blocked from address '{c2}' because the active values "
            "of the channel were mapped to a userid which should be blocked, but the record is in warning mode "
            "(WARN(YES)), so the channel was allowed to start. The active values of the channel were '{c3}'.",
            _CHLAUTH_ACTION, probe="cmqxrsrv.c : 1560", evidence=_NUMBER_UNSEEN),
    # ---- user id and password checks (connection authentication) --------------------------------------
    Message("AMQ5534E", "User ID '{c1}' authentication failed",
            "The user ID and password supplied by the '{c2}' program could not be authenticated.\n"
            "Additional information: '{c3}'.",
            "Ensure that the correct user ID and password are provided by the application. Ensure that the "
            "authentication repository is correctly configured. Look at previous error messages for any "
            "additional information.", program="amqzlaa0", probe="amqzfuca.c : 4486", source="checked",
            evidence="an MQ 9.0.1.0 AMQERR01.LOG entry quoted at https://github.com/mqlight/nodejs-mqlight/issues/6; "
                     "the inserts (user, program, additional information) as a container printed them at "
                     "https://github.com/ibm-messaging/mq-container/issues/367 (IBM's 9.3.4 extended the ACTION: "
                     "the extension is not quoted there)"),
    Message("AMQ5540E", "Application '{c1}' did not supply a user ID and password",
            "The queue manager is configured to require a user ID and password, but none was supplied.",
            "Ensure that the application provides a valid user ID and password, or change the queue manager "
            "configuration to OPTIONAL to allow applications to connect which have not supplied a user ID "
            "and password.", program="amqzlaa0", probe="amqzfuca.c : 4200", source="checked",
            evidence="IBM technote swg21680930 quotes the entry"),
    Message("AMQ5541E", "The failed authentication check was caused by the queue manager CONNAUTH "
            "CHCKCLNT({c2}) configuration.",
            "The user ID '{c1}' and its password were checked because the queue manager connection authority "
            "(CONNAUTH) configuration refers to an authentication information (AUTHINFO) object named '{c3}' "
            "with CHCKCLNT({c2}). This message accompanies a previous error to clarify the reason for the "
            "user ID and password check.",
            "Refer to the previous error for more information. Ensure that a password is specified by the "
            "client application and that the password is correct for the user ID. The authentication "
            "configuration of the queue manager connection determines the user ID repository. For example, "
            "the local operating system user database or an LDAP server. To avoid the authentication check, "
            "you can either use an authorized user ID or you can configure CHCKCLNT to OPTIONAL.",
            program="amqzlaa0", probe="amqzfuca.c : 4500", source="checked",
            evidence="IBM technote swg21680930 quotes the first line"),
    Message("AMQ5542I", "The failed authentication check was caused by the queue manager CONNAUTH {c3} "
            "configuration.",
            "The user ID '{c1}' and its password were checked because the queue manager connection authority "
            "(CONNAUTH) configuration refers to an authentication information (AUTHINFO) object named '{c2}' "
            "with {c3}.\n\nThis message accompanies a previous error to clarify the reason for the user ID and "
            "password check.",
            "Refer to the previous error for more information.\n\nEnsure that a password is specified by the "
            "client application and that the password is correct for the user ID. The authentication "
            "configuration of the queue manager connection determines the user ID repository. For example, the "
            "local operating system user database or an LDAP server.\n\nIf the CHCKCLNT setting is OPTIONAL, the "
            "authentication check can be avoided by not passing a user ID across the channel. For example, by "
            "omitting the MQCSP structure from the client MQCONNX API call.\n\nTo avoid the authentication "
            "check, you can amend the authentication configuration of the queue manager connection, but you "
            "should generally not allow unauthenticated remote access.",
            program="amqzlaa0", probe="amqzfuca.c : 4759", source="checked",
            evidence="an MQ 9.1.5.0 AMQERR01.LOG entry quoted whole in IBM's MQ lab, "
                     "https://github.com/BalaIBMRaptor/MQ-HA/commits/master/instructions/docker/Admin101.md "
                     "(an earlier version of the file); written after "
                     "AMQ5534E: https://github.com/ibm-messaging/mq-container/issues/367 and /issues/387"),
    Message("AMQ9557E", "Queue Manager User ID initialization failed for '{c1}'.",
            "The call to initialize the User ID '{c1}' failed with CompCode {a1} and Reason {a2}. If an MQCSP "
            "block was used, the User ID in the MQCSP block was '{c2}'. If a userID flow was used, the User ID "
            "in the UID header was '{c3}' and any CHLAUTH rules applied prior to user adoption were evaluated "
            "case-sensitively against this value.", "Correct the error and try again.",
            probe="cmqxrsrv.c : 2298", source="checked",
            evidence="an AMQERR01.LOG entry quoted at http://www.freekb.net/Article?id=4415"),
    # ---- authority (the OAM) -----------------------------------------------------------------------------
    Message("AMQ8077W", "Entity '{c1}' has insufficient authority to access object '{c2}'.",
            "The specified entity is not authorized to access the required object. The following requested "
            "permissions are unauthorized: {c3}",
            "Ensure that the correct level of authority has been set for this entity against the required "
            "object, or ensure that the entity is a member of a privileged group.",
            program="amqzlaa0", probe="amqzfubn.c : 518", source="checked",
            evidence="IBM APAR IT20792 and IBM's InfoSphere troubleshooting page quote the entry"),
    # ---- TLS ---------------------------------------------------------------------------------------------
    Message("AMQ9631E", "The CipherSpec negotiated during the SSL handshake does not match the required "
            "CipherSpec for channel '{c1}'.",
            "There is a mismatch between the CipherSpecs on the local and remote ends of channel '{c1}'. The "
            "channel will not run until this mismatch is resolved. The CipherSpec required in the local "
            "channel definition is '{c2}'. The name of the CipherSpec negotiated during the SSL handshake is "
            "'{c3}'. A code is displayed if the name of the negotiated CipherSpec cannot be determined.",
            "Change the channel definitions for '{c1}' so the two ends have matching CipherSpecs and restart "
            "the channel. If the certificate in use by one end of the channel is a Global Server Certificate, "
            "then the negotiated CipherSpec may not match that specified on either end of the channel. This is "
            "because the SSL protocol allows a Global Server Certificate to automatically negotiate a higher "
            "level of encryption. In these cases specify a CipherSpec which meets the requirements of the "
            "Global Server Certificate.", probe="cmqxrsrv.c : 3300", source="checked",
            evidence="an AMQERR01.LOG entry quoted at https://portal2portal.blogspot.com/2015/11/"),
    Message("AMQ9637E", "Channel is lacking a certificate.",
            "The channel is lacking a certificate to use for the SSL handshake. The channel name is '{c1}' "
            "(if '????' it is unknown at this stage in the SSL processing). The channel did not start.",
            "Make sure the appropriate certificates are correctly configured in the key repositories for both "
            "ends of the channel.", probe="amqccisa.c : 5000",
            evidence="IBM APAR IT15978 quotes the message line and EXPLANATION's first two sentences as here; the "
                     "rest as recalled (docs/decisions.md EL17)"),
    Message("AMQ9636E", "SSL distinguished name does not match peer name, channel '{c1}'.",
            "The distinguished name, '{c2}', contained in the SSL certificate for the remote end of the channel "
            "does not match the local SSL peer name for channel '{c1}'. The distinguished name at the remote "
            "end must match the peer name specified (which can be generic) before the channel can be started.",
            "If this remote system should be allowed to connect, either change the SSL peer name specification "
            "for the local channel so that it matches the distinguished name in the SSL certificate for the "
            "remote end of the channel, or obtain the correct certificate for the remote end of the channel. "
            "Restart the channel.", probe="cmqxrsrv.c : 3400"),
    Message("AMQ9639E", "Remote channel '{c1}' did not specify a CipherSpec.",
            "Remote channel '{c1}' did not specify a CipherSpec when the local channel expected one to be "
            "specified. The remote host is '{c2}'. The channel did not start.",
            "Change the remote channel '{c1}' on host '{c2}' to specify a CipherSpec so that both ends of the "
            "channel have matching CipherSpecs.", probe="cmqxrsrv.c : 3500"),
    Message("AMQ9641E", "Remote CipherSpec error for channel '{c1}'.",
            "The remote end of channel '{c1}' on host '{c2}' has had a CipherSpec error. The channel did not "
            "start.", "Review the error logs on the remote system to discover the problem with the CipherSpec.",
            probe="cmqxrsrv.c : 3600"),
    # ---- TLS handshakes that fail before the channel is named (server/tls.py) ------------------------------
    Message("AMQ9665E", "SSL connection closed by remote end of channel '{c1}'.",
            "The SSL or TLS connection was closed by the remote host '{c2}' during the secure socket handshake. "
            "The channel is '{c1}'; in some cases its name cannot be determined and so is shown as '????'. "
            "The channel did not start.",
            "Check the remote end of the channel for SSL-related errors. Fix them and restart the channel.",
            probe="amqccisa.c : 5200"),
    Message("AMQ9633E", "Bad SSL certificate for channel '{c1}'.",
            "A certificate encountered during SSL handshaking is regarded as bad for one of the following "
            "reasons: it was formatted incorrectly and could not be validated, it was formatted correctly but "
            "failed validation against the Certification Authority (CA) root and other certificates held on "
            "the local system, or it was found in a Certification Revocation List (CRL) on an LDAP server. "
            "The channel is '{c1}'; in some cases its name cannot be determined and so is shown as '????'. The "
            "remote host is '{c2}'. The channel did not start.",
            "Check which of the three possible causes applies on your system. Correct the error, and restart "
            "the channel.", probe="amqccisa.c : 5100",
            evidence="IBM's current text differs (five causes, the certificate's details in CommentInsert2, the "
                     "remote host in CommentInsert3, GSKit's validation error): https://github.com/ibm-messaging/"
                     "mq-mqi-nodejs/issues/186, https://www.ibm.com/support/pages/node/1081227 (docs/decisions.md "
                     "EL17)"),
    Message("AMQ9616E", "The CipherSpec proposed is not enabled on the server.",
            "The SSL or TLS subsystem at the server end of a channel has rejected the CipherSpec or protocol "
            "proposed by the client at '{c2}' during the secure socket handshake. The channel is '{c1}'; in "
            "some cases its name cannot be determined and so is shown as '????'. The channel did not start.",
            "Change the client's CipherSpec to one the server's channel accepts (its SSLCIPH), and restart the "
            "channel.", probe="amqccisa.c : 5300"),
    Message("AMQ9657E", "The key repository could not be opened (channel '{c1}').",
            "The key repository could not be opened. The key repository either does not exist or has incorrect "
            "permissions associated with it. The channel is '{c1}'; in some cases its name cannot be determined "
            "and so is shown as '????'. The channel did not start.",
            "Ensure that the key repository you specify exists and that its permissions are such that the IBM "
            "MQ process involved can read from it. Restart the channel.", probe="amqccisa.c : 6000"),
    # ---- channel limits and unknown channels --------------------------------------------------------------
    Message("AMQ9513E", "Maximum number of channels reached.",
            "The maximum number of channels that can be in use simultaneously has been reached. The number of "
            "permitted channels is a configurable parameter in the queue manager configuration file.",
            "Wait for some of the operating channels to close. Retry the operation when some channels are "
            "available.", probe="amqrmssa.c : 700",
            evidence="IBM's technote https://www.ibm.com/support/pages/node/236995 quotes the message line; the "
                     "rest as recalled"),
    Message("AMQ9489I", "The maximum number of instances, {a1}, of channel '{c1}' was reached.",
            "The server-connection channel '{c1}' is configured so that the maximum number of instances that "
            "can run at the same time is {a1}. This limit has been reached.",
            "Try the operation again when a new instance can be started. If the limit has been reached because "
            "there are too many connections from the relevant client applications then consider changing the "
            "applications to make fewer connections. If the limit is set too low, consider increasing the "
            "MAXINST attribute of the channel.", probe="cmqxrsrv.c : 1800"),
    Message("AMQ9490E", "The maximum number of instances, {a1}, of channel '{c1}' was reached for an individual "
            "client.",
            "The server-connection channel '{c1}' is configured so that the maximum number of instances that "
            "can run at the same time for any individual client is {a1}. This limit has been reached for the "
            "client with remote network address '{c2}'.",
            "Try the operation again when a new instance can be started. If the limit has been reached because "
            "there are too many connections from the relevant client application then consider changing the "
            "application to make fewer connections. If the limit is set too low, consider increasing the "
            "MAXINSTC attribute of the channel.", probe="cmqxrsrv.c : 1820",
            evidence="an MQ 9.3.0.21 AMQERR01.LOG entry in a public GitHub file (search: 'was reached for an "
                     "individual client') gives the number, the message line, the inserts (ArithInsert1 the limit, "
                     "CommentInsert1-2 channel and address) and EXPLANATION's first words; the rest as recalled"),
    # ---- the dead-letter queue ----------------------------------------------------------------------------
    Message("AMQ8507E", "Command server MQPUT1 request for an undelivered message failed.",
            "The command server attempted to put a message to the dead-letter queue, using MQPUT1, which "
            "failed with reason code {a1}. The MQDLH reason code was {a2}.",
            "Examine the reason code, correct the problem with the dead-letter queue (it is full, put-inhibited "
            "or not defined) and make sure the command server's input messages are requests.",
            program="amqpcsea", probe="amqpcsea.c : 2000",
            evidence="IBM's AMQ8xxx page; the inserts' wording as log parsers match it ('failed with reason "
                     "code ... The MQDLH reason code was ...')"),
    # ---- message channels -----------------------------------------------------------------------------
    Message("AMQ9526E", "Message sequence number error for channel '{c1}'.",
            "The local and remote queue managers do not agree on the next message sequence number. A message "
            "with sequence number {a1} has been sent when sequence number {a2} was expected. The remote host "
            "is '{c2}'.",
            "Determine the cause of the inconsistency. It could be that the synchronization information has "
            "become damaged, or has been backed out to a previous version. If the situation cannot be "
            "resolved, the sequence number can be manually reset at the sending end of the channel using the "
            "RESET CHANNEL command.", probe="amqrmrca.c : 1300",
            evidence="IBM's AMQ9xxx page; the text and EXPLANATION's first sentences as a published "
                     "AMQERR01.LOG entry shows them (a receiver's: 'A message with sequence number 15 has been "
                     "sent when sequence number 13 was expected.')"),
    Message("AMQ9519E", "Channel '{c1}' not found.",
            "The requested operation failed because the program could not find a definition of channel '{c1}'.",
            "Check that the name is specified correctly and the channel definition is available.",
            probe="amqrcsia.c : 900"),
]

CATALOG: dict[str, Message] = {m.number: m for m in _MESSAGES}


def get(number: str) -> Message:
    return CATALOG[number]


class Inserts(dict):
    """The inserts of one entry; a missing one renders blank, as IBM shows an insert it was not given."""

    def __missing__(self, key: str) -> str:
        return ""


def fill(template: str, inserts: dict) -> str:
    return template.format_map(Inserts(inserts))
