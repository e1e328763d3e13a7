"""Telemetry (MQTT): the queue manager's side of IBM MQ's MQXR service -- its channels' running state
(service.py) and the MQTT clients' sessions as the status commands see them (sessions.py).  No
sockets and no trio: the server plugs its MQTT transport in (docs/mqtt.md "Administration")."""
