"""Telemetry (MQTT): IBM MQ's MQXR service as the queue manager sees it, no sockets and no trio --
its channels' running state (``service.py``, the queue manager's ``telemetry``), the MQTT clients'
sessions (``telemetrysessions.py``) and how MQTT publications, subscriptions and deliveries map onto
the queue manager's own (``mapping.py``).  The server plugs its MQTT transport in (server/telemetryio.py,
server/mqtt/; docs/mqtt.md)."""
