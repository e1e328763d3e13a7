"""The queue manager's error log as IBM writes it (docs/errorlog.md): ``amqmessages.py`` IBM's AMQ messages
qmlite writes (number, severity, text with inserts, EXPLANATION, ACTION, where each text comes from),
``writer.py`` the AMQERR01.LOG layout and its rotation to AMQERR02/03, ``consolelog.py`` the developer
container's mirror of the log on standard output (MQ_LOGGING_CONSOLE_FORMAT basic or json).

The domain reports here through ``registry/monitoring/diagnostics.py`` (the same places that raise
IBM's events); nothing here knows sockets or trio: a file append per entry, as IBM's own writer does.
"""
