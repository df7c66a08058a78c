"""The text of every mail of whole games, one per variant, through the worker: 78 columns, no trailing
space, no leading blank line, news in the first line, one subject per game, and Auto-Submitted
``auto-replied`` exactly on the answers to a player's mail."""

from __future__ import annotations

import random
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.engine.base import Seat
from pbem.store.models import Game
from pbem.variants import get_variant
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, register

VARIANTS = ["outer-space", "tri-d", "space-chess", "hyperspace", "voidrider"]
PLIES = 12


class Scanner:
    """Sends mails through the pipeline and checks every mail that comes out."""

    def __init__(self, pipe: Pipeline) -> None:
        self.pipe = pipe
        self.checked = 0
        self.subjects: set[str] = set()

    def send(self, sender: str, to: str, body: str) -> dict[str, list[str]]:
        message_id = self.pipe.send(sender, to, body)
        found: dict[str, list[str]] = {}
        for recipient, message in self.pipe.drain_outbox():
            self.check(message, replied=recipient == sender and message["In-Reply-To"] == message_id)
            found.setdefault(recipient, []).append(body_of(message))
        return found

    def check(self, message: EmailMessage, replied: bool) -> None:
        body = body_of(message)
        subject = str(message["Subject"])
        assert message["Auto-Submitted"] == ("auto-replied" if replied else "auto-generated"), (subject, body)
        assert body.splitlines()[0].strip(), body  # the news, never a blank line
        for line in body.splitlines():
            assert len(line) <= 78, (line, body)
            assert line == "-- " or line == line.rstrip(), (line, body)  # "-- " is the signature separator
        if "[pbem #" in subject and "(observing)" not in subject:
            self.subjects.add(subject.removeprefix("Re: "))
        self.checked += 1


def state_of(pipe: Pipeline, variant: str) -> object:
    with pipe.db.read() as session:
        game = session.exec(select(Game)).one()
        return get_variant(variant, dict(game.options)).load(game.state)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_mail_of_a_whole_game_is_tidy(tmp_path: Path, variant: str) -> None:
    pipe = Pipeline(tmp_path)
    try:
        scan = Scanner(pipe)
        personal = {who: register(pipe, who, who.split("@")[0]) for who in (ALICE, BOB, CAROL)}
        scan.send(ALICE, personal[ALICE], f"challenge bob {variant} white")
        scan.send(BOB, personal[BOB], "accept 1")
        scan.send(CAROL, personal[CAROL], "observe 1")
        seat = _seat_addresses(pipe)
        scan.send(ALICE, seat[ALICE], "help\nboard\nhistory\nfly me to the moon")
        scan.send(BOB, personal[BOB], "vacation 2")
        scan.send(BOB, personal[BOB], "vacation off")
        engine = get_variant(variant)
        rng = random.Random(variant)
        if variant == "hyperspace":  # receipts, commitments and reveals: the longest lines there are
            scan.send(ALICE, seat[ALICE], "Ng1@2 {f3}")
            scan.send(BOB, seat[BOB], "Nb8@1 {c6}\ndraw")
        for ply in range(PLIES):
            state = state_of(pipe, variant)
            to_act = engine.to_act(state)
            if to_act is None or engine.outcome(state) is not None:
                break
            player = ALICE if to_act.value == "white" else BOB
            moves = [engine.describe(state, a) for a in engine.legal_actions(state)]
            moves = [m for m in moves if "@" not in m] or moves  # phase-outs need a secret of their own
            scan.send(player, seat[player], rng.choice(moves) + ("\ndraw" if ply == 3 else ""))
        if engine.outcome(state_of(pipe, variant)) is None:
            scan.send(ALICE, seat[ALICE], "resign")
        scan.send(BOB, seat[BOB], "board\nhistory")
        assert len(scan.subjects) == 1, scan.subjects  # one subject for the whole game
        assert scan.checked > 30
    finally:
        pipe.close()


def _seat_addresses(pipe: Pipeline) -> dict[str, str]:
    """The players' seat addresses, from the game's opening mails (already checked)."""
    with pipe.db.read() as session:
        game = session.exec(select(Game)).one()
        assert game.id is not None
        return {ALICE: pipe.addresses.seat(game.id, Seat.WHITE, game.white_id),
                BOB: pipe.addresses.seat(game.id, Seat.BLACK, game.black_id)}
