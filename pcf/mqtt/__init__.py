"""MQTT 3.1 and 3.1.1, the wire vocabulary of IBM MQ's telemetry channels: packets
(:mod:`~qmlite.pcf.mqtt.packets`) and the server's side of a connection as a sans-IO state machine
(:mod:`~qmlite.pcf.mqtt.mqttstate`).  Standard library only."""
