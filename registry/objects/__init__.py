"""What the queue manager administers: object definitions, their defaults, identifiers, and the instances running
now."""
