"""IBM MQ's telemetry (MQXR) service as the queue manager sees it, no sockets: MQTT clients' sessions
(``telemetrysessions.py``) and how MQTT publications, subscriptions and deliveries map onto the queue
manager's own (``mapping.py``, docs/mqtt.md)."""
