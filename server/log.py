"""structlog set-up: one event per line, key=value or JSON, with connection context bound by callers."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(*, json: bool = False, level: str = "info") -> None:
    renderer = structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


def get(**context):
    return structlog.get_logger("qmlite").bind(**context)
