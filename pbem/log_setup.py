"""Logging for `pbem serve`: one line per event, as text for a terminal or journald, or as JSON for a collector."""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime

__all__ = ["LEVELS", "TextFormatter", "configure_logging", "configured"]

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

#: Libraries that talk too much at INFO: aiosmtpd logs every SMTP line, alembic every plugin and migration
#: step, apscheduler every re-armed alarm, aiohttp every request (pbem logs what matters itself).
_QUIET = ("mail.log", "alembic", "apscheduler", "aiohttp.access")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, and the traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["traceback"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``time level logger: message`` with the standard library's time stamp (local time, milliseconds), its
    seconds written once per second: ``time.localtime`` and ``strftime`` were a sixth of a line's cost, and
    `pbem serve` writes five lines a move."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self._second: int | None = None
        self._stamp = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        second = int(record.created)
        if second != self._second:  # a race writes the same stamp twice
            self._stamp, self._second = time.strftime(self.default_time_format, self.converter(second)), second
        return f"{self._stamp},{int(record.msecs):03d}"  # the base's default_msec_format


#: What configure_logging was last given, so a process the server starts can log the same way.
_configured: tuple[str, str] | None = None


def configured() -> tuple[str, str] | None:
    """The level and format this process logs at, or None if pbem never set them (tests, a library user)."""
    return _configured


def configure_logging(level: str, fmt: str) -> None:
    """Send pbem's log to standard error at ``level`` (DEBUG, INFO, WARNING, ERROR) as ``text`` or ``json``."""
    global _configured
    _configured = (level, fmt)
    # Neither format shows the thread, the process or the source line, so no record looks them up: the
    # logging HOWTO's optimisations (the source line's stack walk was a hundredth of the server's CPU at the
    # e2e bench's maximum, a record's thread and process names as much again).
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None  # type: ignore[attr-defined,unused-ignore]  # undeclared in older typeshed
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter())
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in _QUIET:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
