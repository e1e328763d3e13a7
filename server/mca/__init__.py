"""Message channel agents: protocol objects (sender.py, receiver.py) and their trio drivers (run.py).

``register_lazily`` is the listener's one hook: START CHANNEL of a sender then runs its agent in the
server's nursery, PING CHANNEL its round trip (ping.py); the agents' modules load at the first START or
PING CHANNEL, not at start-up.  The channel initiator (chinit.py: triggered starts from SYSTEM.CHANNEL.INITQ)
starts with it and uses the START hook."""


def register_lazily(qm_server, nursery) -> None:
    def start(channel) -> None:
        from qmlite.server.mca import agents

        agents.register(qm_server, nursery)  # replaces this hook with the one that starts agents
        qm_server.qm.registry.running.start_message_channel(channel)

    def ping(channel, data_count, done) -> None:
        from qmlite.server.mca import ping as pinging

        pinging.register(qm_server, nursery)  # replaces this hook with the one that pings
        qm_server.qm.registry.running.ping_message_channel(channel, data_count, done)

    qm_server.qm.registry.running.start_message_channel = start
    qm_server.qm.registry.running.ping_message_channel = ping
    from qmlite.server.mca import chinit

    chinit.start(qm_server, nursery)  # issue 34: channel triggering (docs/channels.md "Triggering")
