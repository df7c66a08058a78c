"""Log configuration: levels and formats from [log] and the command line, JSON lines that parse."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.cli.main import build_parser
from pbem.config import ConfigError, load_config
from pbem.log_setup import TextFormatter, configure_logging


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


@settings(max_examples=300, deadline=None)
@given(times=st.lists(st.floats(min_value=0, max_value=4e9, allow_nan=False), min_size=1, max_size=20),
       with_traceback=st.booleans())
def test_text_lines_are_the_standard_librarys(times: list[float], with_traceback: bool) -> None:
    """TextFormatter writes a line's seconds once per second; every line reads as logging.Formatter writes it, in
    whatever order the times come (a second seen, left, and seen again)."""
    standard = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    ours = TextFormatter()
    error = None
    if with_traceback:
        try:
            raise ValueError("boom")
        except ValueError:
            error = sys.exc_info()
    for created in times:
        record = logging.getLogger("pbem.worker").makeRecord("pbem.worker", logging.INFO, __file__, 1,
                                                             "inbox %d processed", (7,), error)
        record.created, record.msecs = created, (created - int(created)) * 1000
        assert ours.format(record) == standard.format(record)
