"""qmlite.registry."""
