"""Configuration: defaults, the TOML file, environment overrides, errors."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pbem.config import DEFAULTS, Config, ConfigError, GamesSection, load_config

EXAMPLE = Path(__file__).resolve().parents[1] / "config.example.toml"


def test_embedded_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(environ={})
    assert config.smtp.port == 2525
    assert config.database.url == "sqlite:///var/pbem.sqlite3"
    assert config.public_address == "pbem@pbem.localhost"


def test_example_file_documents_every_key_with_its_default() -> None:
    config = load_config(EXAMPLE, environ={})
    assert dataclasses.replace(config, source=None) == Config.from_values(DEFAULTS)


def test_environment_wins_over_file(tmp_path: Path) -> None:
    file = tmp_path / "c.toml"
    file.write_text('[smtp]\nport = 2600\n[games]\ndays_per_move = 3\n')
    config = load_config(file, environ={"PBEM_SMTP_PORT": "2700", "PBEM_GAMES_DAYS_PER_MOVE": "0.0005",
                                        "PBEM_GAMES_REMINDERS": "0.25,0.75"})
    assert config.smtp.port == 2700
    assert config.games.days_per_move == 0.0005
    assert config.games.reminders == (0.25, 0.75)


@pytest.mark.parametrize("text, message", [
    ("[smtp]\nprot = 1\n", "unknown key 'prot'"),
    ("[nosuch]\nx = 1\n", "unknown section [nosuch]"),
    ("[smtp\n", "c.toml"),
])
def test_bad_files_are_explained(tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "c.toml"
    file.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        load_config(file, environ={})


def test_bad_environment_value(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="PBEM_SMTP_PORT"):
        load_config(environ={"PBEM_SMTP_PORT": "many"})


def test_missing_file() -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config("/nonexistent/pbem.toml", environ={})


@pytest.mark.parametrize(("toml", "fragment"), [
    ('[smtp]\nport = "twenty"\n', "[smtp] port = 'twenty'"),
    ('[games]\nreminders = 0.5\n', "a list of numbers is needed"),
    ('[games]\nvacation_days_per_year = 2.5\n', "a whole number is needed"),
    ('[server]\ndomain = 7\n', "a string is needed"),
])
def test_a_value_of_the_wrong_type_is_refused_with_its_name(tmp_path: Path, toml: str, fragment: str) -> None:
    file = tmp_path / "c.toml"
    file.write_text(toml)
    with pytest.raises(ConfigError, match=re.escape(fragment)):
        load_config(file, environ={})


def test_sections_are_typed_objects() -> None:
    config = load_config(EXAMPLE, environ={})
    assert isinstance(config.games, GamesSection)
    assert isinstance(config.games.days_per_move, float) and isinstance(config.smtp.port, int)
