"""Message channel agents: protocol objects (sender.py, receiver.py) and their trio drivers (run.py)."""
