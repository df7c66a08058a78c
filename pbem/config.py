"""Configuration: embedded defaults, a TOML file, then PBEM_<SECTION>_<KEY> variables."""

from __future__ import annotations

import copy
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DEFAULTS", "Config", "ConfigError", "load_config"]

DEFAULTS: dict[str, dict[str, Any]] = {
    "server": {
        "domain": "pbem.localhost",
        "address": "pbem",
        "secret_key": "",
        "referee": "",
        "error_replies_per_hour": 20,
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
    },
}

DEFAULT_CONFIG_FILE = Path("pbem.toml")


class ConfigError(ValueError):
    """The configuration file or an environment variable is not usable."""


@dataclass(frozen=True)
class Config:
    """The merged configuration; ``section(key)`` style access via attributes."""

    values: Mapping[str, Mapping[str, Any]]
    source: Path | None = None

    def get(self, section: str, key: str) -> Any:
        return self.values[section][key]

    @property
    def domain(self) -> str:
        return str(self.get("server", "domain")).lower()

    @property
    def public_address(self) -> str:
        return f"{self.get('server', 'address')}@{self.domain}".lower()

    @property
    def referee(self) -> str:
        return str(self.get("server", "referee")).strip()


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
    return Config(values=values, source=source)
