"""Where the queue manager's state lives: the in-memory catalogue written through to SQLite, snapshots, reset."""
