"""The players' notes as comments in game records: where they stand, who gets them, and that the PGN still reads."""

from __future__ import annotations

import io
import re
from email.message import EmailMessage

import chess
import chess.pgn
import pytest

from pbem.app.records import load_game_record
from pbem.engine.notation import comment_words
from pbem.variants.hyperspace.pgn import read_game
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register

#: Scholar's mate by way of hyperspace (as in test_records), each turn a mail, notes said along the way:
#: one before any move, two 'say' lines after a move (one note), one before a move, one with a phase-out.
MATE_WITH_NOTES = [
    (ALICE, "say Good luck!"),
    (ALICE, "Pe2-e4\nsay Line one\nsay line two"),
    (BOB, "say Thanks } 2. h4 h5 { [%hs Qd1@1]\nPe7-e5"),
    (ALICE, "Qd1@1 {h5}\nsay Where is my queen?"),
    (BOB, "Nb8@1 {e4}"),
    (ALICE, "Bf1-c4"),
    (BOB, "Pd7-d6"),
    (ALICE, "Pa2-a3"),
    (BOB, "Ng8-f6"),
    (ALICE, "Qh5xf7"),
]

#: The comment python-chess reads on each ply (0: the game's own comment) once the notes are in the record.
NOTES_BY_PLY = {
    0: "alice: Good luck!",
    1: "alice: Line one line two",
    2: "bob: Thanks ) 2. h4 h5 { [ %hs Qd1@1]",  # '}' cannot end the comment early, '[%hs' is no command
    3: "alice: Where is my queen?",
}


def record_of(message: EmailMessage, extension: str) -> str:
    part = next(p for p in message.iter_attachments() if str(p.get_filename()).endswith(extension))
    data = part.get_payload(decode=True)
    assert isinstance(data, bytes)
    return data.decode()


def comments_by_ply(game: chess.pgn.Game) -> dict[int, str]:
    """The comments python-chess read, by ply (0: the game's), without the Hyperspace event comments."""
    found = {0: game.comment} if game.comment else {}
    for ply, node in enumerate(game.mainline(), start=1):
        text = " ".join(re.sub(r"\[%(hs|fen)\s[^\]]*\]", "", node.comment).split())
        if text:
            found[ply] = text
    return found


def test_a_players_hyperspace_record_has_every_note_after_its_ply(pipe: Pipeline) -> None:
    seat_a, seat_b = begin_game(pipe)[2:]
    finals: list[tuple[str, EmailMessage]] = []
    for sender, text in MATE_WITH_NOTES:
        pipe.send(sender, seat_a if sender == ALICE else seat_b, text)
        finals = pipe.drain_outbox()
    pipe.send(BOB, seat_b, "history")
    history = body_of(dict(pipe.drain_outbox())[BOB])
    plain, pgn = history.split("for chess programs (see 'help hyperspace'):", 1)
    assert "{alice: Good luck!} 1. Pe2-e4 {alice: Line one line two} 1... Pe7-e5" in " ".join(plain.split())
    attached = {to: record_of(message, ".pgn") for to, message in finals}
    assert set(attached) == {ALICE, BOB} and attached[ALICE] == attached[BOB]
    for record in (pgn, attached[ALICE]):
        game, board = read_game(record)  # python-chess's reader with the Hyperspace events applied
        assert comments_by_ply(game) == NOTES_BY_PLY
        assert game.errors == [] and board.is_checkmate()  # and no note was taken for an event
        assert len(list(game.mainline_moves())) == len(MATE_WITH_NOTES) - 1
        assert all(len(line) <= 79 for line in record.splitlines())


def test_a_closing_brace_in_a_note_cannot_end_its_comment(pipe: Pipeline) -> None:
    seat_a, seat_b = begin_game(pipe)[2:]
    pipe.send(ALICE, seat_a, "e4\nsay nice } 2. h4 h5 {")  # unescaped, a reader would play 2. h4 h5
    pipe.send(BOB, seat_b, "e5")
    pipe.drain_outbox()
    pipe.send(ALICE, seat_a, "history")
    pgn = body_of(dict(pipe.drain_outbox())[ALICE]).split("for chess programs", 1)[1].split(":", 1)[1]
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game is not None
    assert [move.uci() for move in game.mainline_moves()] == ["e2e4", "e7e5"]
    first = game.next()
    assert first is not None and first.comment == "alice: nice ) 2. h4 h5 {"


def test_a_variant_without_pgn_has_the_notes_in_its_own_record(pipe: Pipeline) -> None:
    seat_a, seat_b = begin_game(pipe, variant="tri-d")[2:]
    pipe.send(ALICE, seat_a, "Pd2(2)-d4(2)\nsay Your move")
    pipe.send(BOB, seat_b, "say Here it is\nPc7(6)-c5(6)")
    pipe.drain_outbox()
    pipe.send(ALICE, seat_a, "history")
    expected = "1. Pd2(2)-d4(2) {alice: Your move} 1... Pc7(6)-c5(6) {bob: Here it is} *"
    assert expected in " ".join(body_of(dict(pipe.drain_outbox())[ALICE]).split())
    pipe.send(BOB, seat_b, "resign")
    for to, message in pipe.drain_outbox():
        assert expected.replace("*", "1-0") in " ".join(record_of(message, ".txt").split()), to


@pytest.mark.parametrize("public", [False, True])
def test_observers_and_the_export_get_the_notes_only_when_they_are_public(pipe: Pipeline, public: bool) -> None:
    seat_a, seat_b = begin_game(pipe, "option public-notes=yes" if public else "")[2:]
    pipe.send(CAROL, register(pipe, CAROL, "carol"), "observe 1")
    pipe.send(ALICE, seat_a, "e4\nsay Between us")
    pipe.send(BOB, seat_b, "resign")
    records = {to: record_of(message, ".pgn") for to, message in pipe.drain_outbox()
               if any(part.get_filename() for part in message.iter_attachments())}
    assert set(records) == {ALICE, BOB, CAROL}
    assert "{alice: Between us}" in records[ALICE] and "{alice: Between us}" in records[BOB]  # players: always
    with pipe.db.read() as session:
        exported = load_game_record(session, 1, "example.org")
    assert exported is not None
    for public_record in (records[CAROL], exported):
        assert "1. e4" in public_record and ("{alice: Between us}" in public_record) is public
        game, board = read_game(public_record)
        assert game.errors == [] and board.piece_at(chess.E4) == chess.Piece.from_symbol("P")


def test_comment_words_keep_a_comment_whole_and_unmistakable() -> None:
    units = comment_words("alice: a } b\n\n[%hs Qd1@1] 100 %done")
    assert " ".join(units) == "{alice: a ) b [ %hs Qd1@1] 100 %done}"
    assert not any(unit.startswith("%") for unit in units)  # a line starting with '%' is skipped by readers
    assert comment_words("") == ["{}"]
