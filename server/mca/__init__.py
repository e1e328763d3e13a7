"""Message channel agents: protocol objects (sender.py, receiver.py) and their trio drivers (run.py).

``register_lazily`` is the listener's one hook: START CHANNEL of a sender then runs its agent in the
server's nursery; the agents' modules load at the first START CHANNEL, not at start-up.  The channel
initiator (chinit.py: triggered starts from SYSTEM.CHANNEL.INITQ) starts with it and uses the same
hook."""


def register_lazily(qm_server, nursery) -> None:
    def start(channel) -> None:
        from qmlite.server.mca import run

        run.register(qm_server, nursery)  # replaces this hook with the one that starts agents
        qm_server.qm.registry.running.start_message_channel(channel)

    qm_server.qm.registry.running.start_message_channel = start
    from qmlite.server.mca import chinit

    chinit.start(qm_server, nursery)  # issue 34: channel triggering (docs/channels.md "Triggering")
