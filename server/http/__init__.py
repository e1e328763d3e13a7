"""The mqweb-shaped REST API (``qmlite serve --http-port``): a Starlette app served by hypercorn's trio
worker in the queue manager's own ``trio.run``.  A thin transport: every request becomes domain calls
(registry/qmgr.py sessions and handles, the MQSC runner, the reset), as an MQI verb or PCF command does.
docs/rest.md."""
