"""qmlite: a lightweight stand-in for an IBM MQ queue manager's publish/subscribe administration.

This folder is the ``qmlite`` command line alone (cli.py and the commands only it runs); what other
packages share lives in their own folders, installed under this name (``keys/`` is ``qmlite.keys``,
``client/`` is ``qmlite.client``; docs/architecture.md, decision HS1).
"""

__version__ = "0.1.0"
