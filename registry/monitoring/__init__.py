"""What the queue manager reports about itself: activity counters and the resource-usage publications."""
