"""qmlite.server."""
