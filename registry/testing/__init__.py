"""What a test suite can ask of the queue manager that no real one offers (issue 23): fault injection."""
