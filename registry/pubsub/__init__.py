"""Publish/subscribe: topic strings and their index, selectors, routing, MQSUB, the publish exit."""
