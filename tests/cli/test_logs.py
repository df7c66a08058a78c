"""Log configuration: levels and formats from [log] and the command line, JSON lines that parse."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.cli.main import build_parser
from pbem.config import ConfigError, load_config
from pbem.log_setup import configure_logging


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_json_lines_carry_time_level_logger_message_and_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("INFO", "json")
    logging.getLogger("pbem.worker").info("inbox %d processed", 7)
    logging.getLogger("pbem.worker").debug("not shown at INFO")
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("pbem.sweep").exception("sweep failed")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [(e["level"], e["logger"], e["message"]) for e in lines] == [
        ("INFO", "pbem.worker", "inbox 7 processed"), ("ERROR", "pbem.sweep", "sweep failed")]
    assert "ValueError: boom" in lines[1]["traceback"] and lines[0]["time"].endswith("+00:00")


def test_text_lines_and_quiet_libraries(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("DEBUG", "text")
    logging.getLogger("mail.log").info("every SMTP line")  # aiosmtpd's chatter stays out
    logging.getLogger("pbem.mail.smtpd").debug("detail")
    err = capsys.readouterr().err
    assert "every SMTP line" not in err and "DEBUG pbem.mail.smtpd: detail" in err


def test_log_settings_come_from_the_file_and_the_command_line_wins(tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text('[log]\nlevel = "warning"\nformat = "json"\n', encoding="utf-8")
    assert load_config(config, environ={}).log.format == "json"
    args = build_parser().parse_args(["serve", "--config", str(config), "--log-level", "debug"])
    assert args.log_level == "DEBUG" and args.log_format is None
    config.write_text('[log]\nlevel = "chatty"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="one of DEBUG, INFO, WARNING, ERROR"):
        load_config(config, environ={})
