"""Configuration: defaults, the TOML file, environment overrides, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.config import DEFAULTS, ConfigError, load_config

EXAMPLE = Path(__file__).resolve().parents[1] / "config.example.toml"


def test_embedded_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(environ={})
    assert config.get("smtp", "port") == 2525
    assert config.get("database", "url") == "sqlite:///var/pbem.sqlite3"
    assert config.public_address == "pbem@pbem.localhost"


def test_example_file_documents_every_key_with_its_default() -> None:
    config = load_config(EXAMPLE, environ={})
    assert config.values == DEFAULTS


def test_environment_wins_over_file(tmp_path: Path) -> None:
    file = tmp_path / "c.toml"
    file.write_text('[smtp]\nport = 2600\n[games]\ndays_per_move = 3\n')
    config = load_config(file, environ={"PBEM_SMTP_PORT": "2700", "PBEM_GAMES_DAYS_PER_MOVE": "0.0005",
                                        "PBEM_GAMES_REMINDERS": "0.25,0.75"})
    assert config.get("smtp", "port") == 2700
    assert config.get("games", "days_per_move") == 0.0005
    assert config.get("games", "reminders") == [0.25, 0.75]


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
