"""Random Hyperspace games with random phase-outs through the whole pipeline: secrets never leak.

Every mail the worker queues is read back from the outbox, decoded. A return
square stays secret until its piece returns: no mail to anyone but its owner
may contain its nonce, its commitment string, the square in braces, or any
line of the owner's receipt.
"""

from __future__ import annotations

import io
import logging
import random
import re
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from sqlmodel import select

from pbem.app.game_pictures import highlights_of
from pbem.engine.base import Seat
from pbem.engine.board_view import Highlight, Mark
from pbem.pictures.render import render_png
from pbem.store.models import Game
from pbem.variants import get_variant
from tests.helpers.harness import body_of
from tests.helpers.hyperspace import random_square, random_turn
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, started_game

ENGINE = get_variant("hyperspace")
OWNER = {Seat.WHITE: ALICE, Seat.BLACK: BOB}
# The receipt is wrapped to the mail's 78 columns: the nonce has a line of its own.
RECEIPT = re.compile(r"^Receipt: your (\S+) returns to ([a-h][1-8]) [^;]*;\s*nonce ([0-9a-f]+)", re.M)


@dataclass
class Commitment:
    owner: str
    public: str
    square: str
    nonce: str
    receipt_line: str


def mail_text(message: object) -> str:
    """Everything a mail says in words: headers, the text part, the HTML part, attached records, and any
    text an image carries in its metadata (PNG text chunks, GIF comments)."""
    headers = "\n".join(f"{name}: {value}" for name, value in message.items())  # type: ignore[attr-defined]
    texts = [headers, body_of(message)]  # type: ignore[arg-type]
    for part in message.walk():  # type: ignore[attr-defined]
        data = part.get_payload(decode=True)
        if not isinstance(data, bytes):
            continue
        if part.get_content_maintype() == "image":
            info = Image.open(io.BytesIO(data)).info
            texts.extend(str(value) for key, value in info.items() if key not in IMAGE_KEYS)
        else:
            texts.append(data.decode("utf-8", "replace"))
    return "\n".join(texts)


#: Image metadata that is no text (PNG transparency and gamma, GIF timing and looping).
IMAGE_KEYS = {"transparency", "gamma", "dpi", "duration", "loop", "background", "version", "extension"}


def pictures(message: object) -> list[bytes]:
    return [data for part in message.walk()  # type: ignore[attr-defined]
            if part.get_content_type() == "image/png" and isinstance(data := part.get_payload(decode=True), bytes)]


def check_pictures(message: object, recipient: str, state: object, highlights: tuple[Highlight, ...],
                   pending: list[Commitment]) -> None:
    """Each board picture is drawn from the recipient's own view, with no pending return but their own."""
    seat = Seat.WHITE if recipient == ALICE else Seat.BLACK
    board = ENGINE.view(state, seat, highlights).board
    assert board is not None
    own = len([entry for entry in state.pool if entry.seat is seat])  # type: ignore[attr-defined]
    marked = sum(1 for panel in board.panels for _, mark in panel.marks if mark is Mark.PENDING_RETURN)
    assert marked <= own
    for commitment in pending:
        if commitment.owner != recipient:  # the note on the other side's piece names no square
            colour = "White" if commitment.owner == ALICE else "Black"
            about = [note for note in board.notes if note.startswith(f"{colour} {commitment.public} ")]
            assert all(f"to {commitment.square}" not in note for note in about), about
    for data in pictures(message):
        assert data == render_png(board), "a picture not drawn from the recipient's own view"


RECORDED = re.compile(r"\brecorded\b", re.I)


def check_no_hint(recipient: str, text_of_mail: str, state: object) -> None:
    """A mail to ``recipient`` says "recorded" only about their own pieces: never whether the other side's
    return square is recorded (a forfeit is said when the piece is due, as a reveal)."""
    seat = Seat.WHITE if recipient == ALICE else Seat.BLACK
    own_unrecorded = any(e.seat is seat and e.square is None for e in state.pool)  # type: ignore[attr-defined]
    if own_unrecorded or "is forfeited:" in text_of_mail:
        return
    assert not RECORDED.search(text_of_mail), text_of_mail


def play_random_game(tmp_path: Path, seed: int, plies: int) -> tuple[int, int]:
    """Plays one game; returns (mails checked, commitments made). A phase-out sent without its square
    gets it by a ``secret`` mail half the time, before the opponent moves."""
    rng = random.Random(seed)
    pipe = Pipeline(tmp_path)
    log = _Captured()
    logging.getLogger().addHandler(log)
    previous_level = logging.getLogger().level
    logging.getLogger().setLevel(logging.INFO)
    try:
        seats = dict(zip((ALICE, BOB), started_game(pipe), strict=True))
        state = ENGINE.setup()
        pending: list[Commitment] = []
        checked = made = 0

        def exchange(player: str, text: str) -> list[str]:
            nonlocal state, pending, checked, made
            pipe.send(player, seats[player], text)
            mails = pipe.drain_outbox()
            # The authoritative state is the server's: a refused turn leaves it as it was.
            with pipe.db.transaction() as session:
                game = session.exec(select(Game)).one()
                state, highlights = ENGINE.load(game.state), highlights_of(game)
            for recipient, message in mails:
                text_of_mail = mail_text(message)
                if recipient == player:
                    for found in RECEIPT.finditer(text_of_mail):
                        pending.append(Commitment(player, found.group(1), found.group(2), found.group(3),
                                                  found.group(0)))
                        made += 1
                else:
                    check_no_hint(recipient, text_of_mail, state)
                revealed = [c for c in pending if f"nonce {c.nonce}" in text_of_mail and "revealed" in text_of_mail]
                for commitment in pending:
                    if recipient == commitment.owner or commitment in revealed:
                        continue
                    assert commitment.nonce not in text_of_mail, (commitment, text_of_mail)
                    assert f"{{{commitment.square}}}" not in text_of_mail
                    assert commitment.receipt_line not in text_of_mail
                    assert f"{commitment.public} returns to {commitment.square}" not in text_of_mail
                check_pictures(message, recipient, state, highlights, pending)
                checked += 1
                pending = [c for c in pending if c not in revealed]
            check_log(log.take(), pending, [*seats.values(), text])
            return [recipient for recipient, _ in mails]

        for _ in range(plies):
            seat = ENGINE.to_act(state)
            if seat is None:
                break
            player = OWNER[seat]
            turn = ENGINE.move_number(state)
            text = random_turn(rng, state)
            exchange(player, text)
            if "@" in text and "{" not in text and rng.random() < 0.5 and ENGINE.to_act(state) is not seat:
                declaration = text.split("@")[0]
                # Only the owner hears of a square recorded late: no mail goes to anyone else.
                assert exchange(player, f"secret {turn} {declaration} {random_square(rng, declaration)}") == [player]
        return checked, made
    finally:
        logging.getLogger().removeHandler(log)
        logging.getLogger().setLevel(previous_level)
        pipe.close()


class _Captured(logging.Handler):
    """The log lines of the run, as an operator's log would hold them."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    def take(self) -> list[str]:
        taken, self.lines = self.lines, []
        return taken


def check_log(lines: list[str], pending: list[Commitment], private: list[str]) -> None:
    """No unrevealed square, nonce or commitment, no address token and no mail body in any log line."""
    tokens = [address.split("+", 1)[1].split("@")[0] for address in private if "+" in address]
    bodies = [text for text in private if "+" not in text and "{" in text]  # a phase-out with its square
    for line in lines:
        for commitment in pending:
            assert commitment.nonce not in line and f"{{{commitment.square}}}" not in line, line
            assert f"returns to {commitment.square}" not in line, line
        assert not any(token in line for token in tokens), line
        assert not any(body in line for body in bodies), line


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_no_mail_to_a_non_owner_contains_an_unrevealed_square(tmp_path_factory, seed: int) -> None:  # type: ignore[no-untyped-def]
    checked, _ = play_random_game(tmp_path_factory.mktemp("secrecy"), seed, plies=40)
    assert checked > 0


def test_the_property_sees_commitments_and_returns(tmp_path: Path) -> None:
    """Guards the property test itself: over a few seeds it really meets receipts and reveals."""
    total_made = 0
    for seed in range(3):
        (tmp_path / str(seed)).mkdir()
        _, made = play_random_game(tmp_path / str(seed), seed, plies=30)
        total_made += made
    assert total_made >= 3
