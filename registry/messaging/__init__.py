"""Queues and their messages, sessions and handles, units of work, message properties, MQINQ/MQSET."""
