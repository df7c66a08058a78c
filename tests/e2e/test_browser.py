"""A real browser reads the HTML part of a game mail of each variant, with cid: links turned into data URIs as
mail clients do: the picture loads and shows at its natural size, and a screenshot is kept."""

from __future__ import annotations

import base64
import os
import re
import shutil
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.helpers.browser import chromium, unavailable
from tests.helpers.harness import Harness, body_of, open_game
from tests.helpers.players import FIRST_MOVES

#: Where the screenshots are copied when PBEM_SCREENSHOTS is set (the README shows docs/screenshots/).
SCREENSHOTS = os.environ.get("PBEM_SCREENSHOTS", "")





pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(unavailable()), reason=unavailable())]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    yield from chromium(700, 1400)


def inline_html(message: EmailMessage) -> str:
    """The HTML part with every ``cid:`` reference replaced by a data URI of that part, as clients show it."""
    html_part = message.get_body(preferencelist=("html",))
    assert html_part is not None
    html = str(html_part.get_content())
    for part in message.walk():
        cid = part["Content-ID"]
        if cid:
            data = part.get_payload(decode=True)
            assert isinstance(data, bytes)
            uri = f"data:{part.get_content_type()};base64,{base64.b64encode(data).decode('ascii')}"
            html = html.replace(f"cid:{cid.strip('<>')}", uri)
    assert "cid:" not in html
    return html


@pytest.mark.parametrize("key", sorted(FIRST_MOVES))
def test_the_mail_shows_its_picture_in_a_real_browser(harness: Harness, browser: object, tmp_path: Path,
                                                       key: str) -> None:
    from selenium.webdriver.common.by import By

    alice, bob, opening_a, _ = open_game(harness, key, "white")
    alice.reply(opening_a, FIRST_MOVES[key])
    mail = bob.next_mail(lambda m: "alice played" in body_of(m) or "Your move" in body_of(m))
    page = tmp_path / f"{key}.html"
    page.write_text(inline_html(mail), encoding="utf-8")
    browser.get(page.as_uri())  # type: ignore[attr-defined]
    image = browser.find_element(By.TAG_NAME, "img")  # type: ignore[attr-defined]
    natural = browser.execute_script(  # type: ignore[attr-defined]
        "const i = arguments[0]; return [i.complete, i.naturalWidth, i.naturalHeight, i.clientWidth, i.clientHeight];",
        image)
    complete, natural_width, natural_height, shown_width, shown_height = natural
    assert complete and natural_width > 0, "the picture did not load"
    assert (shown_width, shown_height) == (natural_width, natural_height)
    assert re.search(r"<title>\[pbem #\d+\]", page.read_text())
    shot = tmp_path / f"{key}.png"
    assert browser.save_screenshot(str(shot))  # type: ignore[attr-defined]
    assert shot.stat().st_size > 10_000
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(SCREENSHOTS) / f"{key}.png")
