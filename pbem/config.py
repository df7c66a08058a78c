"""Configuration: embedded defaults, a TOML file, then PBEM_<SECTION>_<KEY> variables."""

from __future__ import annotations

import copy
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULTS",
    "ComputerSection",
    "Config",
    "ConfigError",
    "DatabaseSection",
    "GamesSection",
    "LogSection",
    "OutboundSection",
    "RetentionSection",
    "ServerSection",
    "SmtpSection",
    "WebSection",
    "load_config",
]

DEFAULTS: dict[str, dict[str, Any]] = {
    "server": {
        "domain": "pbem.localhost",
        "address": "pbem",
        "secret_key": "",
        "referee": "",
        "error_replies_per_hour": 20,
        "worker_process": True,
        "picture_process": True,
    },
    "smtp": {
        "host": "127.0.0.1",
        "port": 2525,
        "max_message_bytes": 1048576,
    },
    "outbound": {
        "smtp_host": "",
        "smtp_port": 25,
        "maildir": "var/outbox",
    },
    "database": {
        "url": "sqlite:///var/pbem.sqlite3",
    },
    "games": {
        "days_per_move": 7,
        "grace_days": 0,
        "reminders": [0.5, 0.8],
        "remind_before_days": 1,
        "vacation_days_per_year": 30,
        "seek_days": 7,
        "abort_without_first_move": True,
    },
    "retention": {
        "inbound_days": 90,
        "outbound_days": 90,
    },
    "log": {
        "level": "INFO",
        "format": "text",
    },
    "web": {
        "enabled": True,
        "host": "127.0.0.1",
        "port": 8025,
        "public_url": "",
        "health_queue_seconds": 300,
    },
    "computer": {
        "enabled": True,
        "workers": 1,
        "max_seconds_per_move": 10.0,
    },
}

DEFAULT_CONFIG_FILE = Path("pbem.toml")


class ConfigError(ValueError):
    """The configuration file or an environment variable is not usable."""


@dataclass(frozen=True, slots=True)
class ServerSection:
    """[server]: who the server is, how often it may answer with errors, and where it applies mail."""

    domain: str
    address: str
    secret_key: str
    referee: str
    error_replies_per_hour: int
    worker_process: bool  # apply mail in a process of its own (a second core, the default); false: in the server's
    picture_process: bool  # draw the mails' board pictures in a process of their own; false: in the server's


@dataclass(frozen=True, slots=True)
class SmtpSection:
    """[smtp]: the listener that takes mail in."""

    host: str
    port: int
    max_message_bytes: int


@dataclass(frozen=True, slots=True)
class OutboundSection:
    """[outbound]: the relay (or Maildir) that takes our mail out."""

    smtp_host: str
    smtp_port: int
    maildir: str


@dataclass(frozen=True, slots=True)
class DatabaseSection:
    """[database]: where everything is kept."""

    url: str


@dataclass(frozen=True, slots=True)
class GamesSection:
    """[games]: the default time control, reminders, vacations, seeks and fair starts."""

    days_per_move: float
    grace_days: float
    reminders: tuple[float, ...]
    remind_before_days: float
    vacation_days_per_year: int
    seek_days: float
    abort_without_first_move: bool


@dataclass(frozen=True, slots=True)
class RetentionSection:
    """[retention]: after how many days the sweep empties the bodies of processed inbound and sent outbound
    mails (their rows and Message-IDs stay for duplicate detection; game records are never purged)."""

    inbound_days: float
    outbound_days: float

    def __post_init__(self) -> None:
        if self.inbound_days < 0 or self.outbound_days < 0:
            raise ConfigError("[retention] days are 0 or more")


@dataclass(frozen=True, slots=True)
class LogSection:
    """[log]: what `pbem serve` logs (DEBUG, INFO, WARNING, ERROR) and how (text or json)."""

    level: str
    format: str

    def __post_init__(self) -> None:
        if self.level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ConfigError(f"[log] level = {self.level!r}: one of DEBUG, INFO, WARNING, ERROR is needed")
        if self.format not in ("text", "json"):
            raise ConfigError(f"[log] format = {self.format!r}: text or json is needed")


@dataclass(frozen=True, slots=True)
class WebSection:
    """[web]: the read-only pages, JSON API and feeds, served by ``pbem serve`` beside the SMTP listener."""

    enabled: bool
    host: str
    port: int
    public_url: str  # where people reach the pages; empty: mails carry no links
    health_queue_seconds: float  # /healthz fails once the oldest unprocessed mail is older


@dataclass(frozen=True, slots=True)
class ComputerSection:
    """[computer]: the server's engine as a player and analyst; its searches run in worker processes."""

    enabled: bool  # false: 'challenge computer' and 'analyse' by mail are refused, games under way wait
    workers: int  # processes that search at once (each keeps one core busy while it thinks)
    max_seconds_per_move: float  # caps every level's thinking time (level 5 would take 8 s)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ConfigError("[computer] workers must be 1 or more")
        if self.max_seconds_per_move <= 0:
            raise ConfigError("[computer] max_seconds_per_move must be more than 0")


_SECTIONS: dict[str, type[Any]] = {
    "server": ServerSection,
    "smtp": SmtpSection,
    "outbound": OutboundSection,
    "database": DatabaseSection,
    "games": GamesSection,
    "retention": RetentionSection,
    "log": LogSection,
    "web": WebSection,
    "computer": ComputerSection,
}


def _typed(section: str, entries: Mapping[str, Any], source: Path | None) -> Any:
    """The section object of ``entries``, each value checked against its field's type."""
    cls = _SECTIONS[section]
    where = f"{source}: " if source else ""
    kwargs: dict[str, Any] = {}
    for item in fields(cls):
        value = entries[item.name]
        name = f"[{section}] {item.name}"
        try:
            if item.type == "bool":
                if not isinstance(value, bool):
                    raise ValueError("true or false is needed")
            elif item.type == "int":
                if isinstance(value, bool) or float(value) != int(float(value)):
                    raise ValueError("a whole number is needed")
                value = int(float(value))
            elif item.type == "float":
                if isinstance(value, bool):
                    raise ValueError("a number is needed")
                value = float(value)
            elif item.type == "tuple[float, ...]":
                if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
                    raise ValueError("a list of numbers is needed")
                value = tuple(float(part) for part in value)
            elif not isinstance(value, str):
                raise ValueError("a string is needed")
        except (TypeError, ValueError) as error:
            raise ConfigError(f"{where}{name} = {value!r}: {error}") from None
        kwargs[item.name] = value
    return cls(**kwargs)


@dataclass(frozen=True)
class Config:
    """The merged configuration, one typed object per section."""

    server: ServerSection
    smtp: SmtpSection
    outbound: OutboundSection
    database: DatabaseSection
    games: GamesSection
    retention: RetentionSection
    log: LogSection
    web: WebSection
    computer: ComputerSection
    source: Path | None = None

    @classmethod
    def from_values(cls, values: Mapping[str, Mapping[str, Any]], source: Path | None = None) -> Config:
        """Check and type ``values`` (every section of DEFAULTS, every key)."""
        return cls(**{section: _typed(section, values[section], source) for section in _SECTIONS}, source=source)

    @property
    def domain(self) -> str:
        return self.server.domain.lower()

    @property
    def public_address(self) -> str:
        return f"{self.server.address}@{self.domain}".lower()

    @property
    def public_url(self) -> str:
        """The pages' base URL without a trailing slash ("" when mails carry no links)."""
        return self.web.public_url.strip().rstrip("/")

    @property
    def referee(self) -> str:
        return self.server.referee.strip()


def _coerce(raw: str, like: Any, name: str) -> Any:
    """Turn an environment string into the type of the default it replaces."""
    try:
        if isinstance(like, bool):
            return raw.strip().lower() in {"1", "true", "yes", "on"}
        if isinstance(like, int | float):
            number = float(raw)  # "7" and "0.0005" are both fine where the default is a number
            return int(number) if number.is_integer() and isinstance(like, int) else number
        if isinstance(like, list):
            return [float(part) for part in raw.replace(",", " ").split()]
    except ValueError as error:
        raise ConfigError(f"{name}={raw!r}: {error}") from error
    return raw


def load_config(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Defaults, overlaid by ``path`` (or ./pbem.toml if present), overlaid by the environment."""
    environ = os.environ if environ is None else environ
    values = copy.deepcopy(DEFAULTS)
    source: Path | None = None
    if path is not None:
        source = Path(path)
        if not source.is_file():
            raise ConfigError(f"config file not found: {str(source)!r}")
    elif DEFAULT_CONFIG_FILE.is_file():
        source = DEFAULT_CONFIG_FILE
    if source is not None:
        try:
            data = tomllib.loads(source.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"{source}: {error}") from error
        for section, entries in data.items():
            if section not in values or not isinstance(entries, dict):
                raise ConfigError(f"{source}: unknown section [{section}]")
            for key, value in entries.items():
                if key not in values[section]:
                    raise ConfigError(f"{source}: unknown key {key!r} in [{section}]")
                values[section][key] = value
    for section, entries in values.items():
        for key, _default in list(entries.items()):
            name = f"PBEM_{section.upper()}_{key.upper()}"
            if name in environ:
                entries[key] = _coerce(environ[name], DEFAULTS[section][key], name)
    return Config.from_values(values, source)
