"""qmlite.pipeline."""
