"""`pbem serve`'s log tells the story of a short game: received, processed, started, moved, ended, delivered,
each with its ids; a forged recipient's refusal; and no token in any line."""

from __future__ import annotations

import re
import smtplib
from pathlib import Path

import pytest

from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.serving import Instance

pytestmark = pytest.mark.slow


def test_the_log_of_a_short_game(tmp_path: Path) -> None:
    harness = Harness(tmp_path, serve=False)
    server = Instance(tmp_path, "serve", harness, harness.environ["PBEM_DATABASE_URL"])
    harness.port = server.port
    try:
        alice, bob = Player(harness, "alice@players.example"), Player(harness, "bob@players.example")
        welcome_a, welcome_b = alice.register("alice"), bob.register("bob")
        alice.reply(welcome_a, "challenge bob hyperspace white days 3")
        number = re.search(r"Challenge (\d+) sent", body_of(alice.next_mail()))
        assert number
        bob.next_mail()
        bob.reply(welcome_b, f"accept {number.group(1)}")
        opening = alice.next_mail(lambda m: "has started" in body_of(m))
        bob.next_mail(lambda m: "has started" in body_of(m))
        move_id = alice.reply(opening, "Pe2-e4")
        bob.next_mail(lambda m: "played 1. Pe2-e4" in body_of(m))
        alice.reply(opening, "resign")
        bob.next_mail(lambda m: "resigned" in body_of(m))
        forged = str(opening["Reply-To"]).replace("@", "x@")
        with smtplib.SMTP("127.0.0.1", server.port) as client, pytest.raises(smtplib.SMTPRecipientsRefused):
            client.sendmail("mallory@evil.example", [forged], b"Subject: x\r\n\r\nresign\r\n")
        harness.settle(quiet=1.0)
        assert server.stop() == 0
        log = (tmp_path / "serve.log").read_text(encoding="utf-8")
        received = re.search(rf"INFO pbem\.mail\.smtpd: received {re.escape(move_id)} from alice@players\.example "
                             rf"for seat \((\d+) bytes\)", log)
        assert received, log
        processed = re.search(rf"INFO pbem\.worker: inbox (\d+) {re.escape(move_id)} processed in [\d.]+ ms: move ok",
                              log)
        assert processed, log
        assert re.search(r"INFO pbem\.app\.games: game 1 started: hyperspace, alice \(white\) vs bob \(black\)", log)
        assert "INFO pbem.app.games: game 1: ply 1 white Pe2-e4" in log
        assert "INFO pbem.app.games: game 1 ended: 0-1 (resignation)" in log
        assert re.search(r"INFO pbem\.mail\.delivery: outbox \d+ to bob@players\.example delivered \(\d+ bytes\): "
                         r"relay said 250 ", log)
        assert re.search(r"INFO pbem\.mail\.smtpd: refused RCPT pbem\+…@\S+ from mallory@evil\.example", log)
        tokens = {address.split("+", 1)[1].split("@")[0]
                  for address in (str(welcome_a["Reply-To"]), str(opening["Reply-To"]), forged)}
        assert not any(token in log for token in tokens)  # a token lets its reader act as its owner
        assert "Traceback" not in log
        # An operator sees the stop asked for and done.
        assert re.search(r"INFO pbem\.server: SIGTERM: stopping; no new mail is taken", log)
        assert re.search(r"INFO pbem\.server: stopped in [\d.]+ s\n", log)
    finally:
        server.kill()
        harness.close()
