"""MQTT 3.1/3.1.1 on trio: a listener per started telemetry channel (``mqttlistener.py``), one task group
per client connection (``client.py``), connection authentication (``authn.py``).  Every rule of the
protocol is pcf/mqtt's, every rule of the queue manager registry/telemetry's; this package moves bytes
and waits (docs/mqtt.md)."""

from .mqttlistener import start_mqtt_listener  # server/telemetryio.py's starter

__all__ = ["start_mqtt_listener"]
