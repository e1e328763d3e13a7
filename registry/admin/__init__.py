"""The PCF command engine: parameter specs, attribute tables, responses, the command server, the handlers."""
