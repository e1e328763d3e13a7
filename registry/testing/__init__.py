"""What no real queue manager offers a test suite (issue 23): each feature is one domain object here --
fault injection (faults.py), the virtual clock (clock.py) -- reached alike from the pytest plugin, MQSC
(qmlite extension commands) and the REST API."""
