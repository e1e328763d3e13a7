"""qmlite: a lightweight stand-in for an IBM MQ queue manager's publish/subscribe administration."""

__version__ = "0.1.0"
