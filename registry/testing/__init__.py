"""What no real queue manager offers a test suite (issue 23): each feature is one domain object here,
reached alike from the pytest plugin, MQSC (qmlite extension commands) and the REST API."""
