"""`pbem export` and `history`: whole games by mail, then the record read back by python-chess."""

from __future__ import annotations

import io
import os
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import chess
import chess.pgn
import pytest
from sqlmodel import col, select

import pbem.app.records
from pbem.app.records import game_record, numbered_movetext
from pbem.cli.main import main
from pbem.engine.errors import MoveError
from pbem.engine.secret import Secret
from pbem.store.models import Game, MoveRecord
from pbem.variants.hyperspace.engine import HyperspaceChess
from pbem.variants.hyperspace.model import BoardMove, PhaseOut
from pbem.variants.hyperspace.pgn import VARIANT_TAG, Ply, board_from_pgn, movetext_words, read_game, wrap_words
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, names_square, started_game

#: Scholar's mate by way of hyperspace: the queen phases out and comes back on h5 with White's 4th
#: move; Black's knight comes back onto White's pawn on e4 and is lost (H3).
MATE = ["Pe2-e4", "Pe7-e5", "Qd1@1 {h5}", "Nb8@1 {e4}", "Bf1-c4", "Pd7-d6", "Pa2-a3", "Ng8-f6", "Qh5xf7"]

#: 3. a3 leaves White's king in check from h4, legal only because the knight returns to g3 (H4);
#: 6. b3 keep new puts the returning knight on d2 in place of the pawn (H2); Black's knight and
#: White's rook are still in hyperspace at the end, their squares (d4, h3) secret.
SHIELD_AND_KEEP = ["Nb1@1 {g3}", "Pe7-e5", "Pf2-f3", "Qd8-h4", "Pa2-a3", "Ng8@4 {d4}", "Ng1@1 {d2}",
                   "Nb8-c6", "Rh1@2 {h3}", "Pd7-d6", "Pb2-b3 keep new", "Pa7-a6"]

#: A return at the end of a phase-out turn (3. Bf1@2 &Nc3) and a forfeit (Ng1 had no square).
PHASE_RETURN_AND_FORFEIT = ["Nb1@1 {c3}", "Pe7-e5", "Ng1@1", "Pf7-f6", "Bf1@2 {d3}", "Pd7-d6", "Pa2-a3",
                            "Pa7-a6"]


@pytest.fixture
def setup(tmp_path: Path, database_url: str | None,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Pipeline, Path]]:
    """A pipeline and a configuration file for `pbem export` naming the same database."""
    for name in [n for n in os.environ if n.startswith("PBEM_")]:
        monkeypatch.delenv(name)  # the file alone must say where the database is
    pipe = Pipeline(tmp_path, database_url=database_url)
    config = tmp_path / "export.toml"
    config.write_text(f'[server]\nsecret_key = "pipeline-key"\n\n[database]\nurl = "{pipe.db.url}"\n')
    yield pipe, config
    pipe.close()


def play(pipe: Pipeline, moves: list[str]) -> tuple[int, tuple[str, str]]:
    """A new game alice (White) vs bob with ``moves`` sent by mail in turn: its number and seat addresses."""
    seats = started_game(pipe)
    for index, move in enumerate(moves):
        sender = (ALICE, BOB)[index % 2]
        pipe.send(sender, seats[index % 2], move)
        replies = [body_of(m) for r, m in pipe.drain_outbox() if r == sender]
        assert any("Played" in body for body in replies), (move, replies)
    with pipe.db.read() as session:
        game = session.exec(select(Game).order_by(col(Game.id).desc())).first()
        assert game is not None and game.id is not None and game.ply == len(moves)
        return game.id, seats


def flat(text: str) -> str:
    """The text with every run of blanks and line breaks as one space: PGN lines wrap anywhere."""
    return re.sub(r"\s+", " ", text).strip()


def final_board(pipe: Pipeline, game_id: int) -> chess.Board:
    with pipe.db.read() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return chess.Board(game.state["fen"])


def export(capsys: pytest.CaptureFixture[str], config: Path, *args: str) -> tuple[int, str, str]:
    status = main(["export", *args, "--config", str(config)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_finished_game_exports_as_pgn_python_chess_reads_to_the_same_board(
        setup: tuple[Pipeline, Path], capsys: pytest.CaptureFixture[str]) -> None:
    pipe, config = setup
    game_id, _ = play(pipe, MATE)
    status, text, err = export(capsys, config, str(game_id))
    assert status == 0, err
    game, board = read_game(text)
    assert game.errors == []
    assert board.board_fen() == final_board(pipe, game_id).board_fen()
    assert board.is_checkmate()  # nothing in hyperspace any more, so python-chess agrees
    assert {name: game.headers[name] for name in ("Event", "Site", "Round", "White", "Black", "Result",
                                                  "Variant", "Termination")} == {
        "Event": f"pbem game {game_id}", "Site": "pbem.localhost", "Round": "-", "White": "alice",
        "Black": "bob", "Result": "1-0", "Variant": VARIANT_TAG, "Termination": "checkmate"}
    assert len(list(game.mainline_moves())) == len(MATE)
    movetext = text.split("\n\n", 1)[1]
    assert flat(movetext) == (
        "1. e4 e5 2. -- {[%hs Qd1@1]} {[%fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2]} "
        "2... -- {[%hs nb8@1]} {[%fen r1bqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 2 3]} "
        "3. Bc4 d6 4. a3 {[%hs &Qh5]} {[%fen r1bqkbnr/ppp2ppp/3p4/4p2Q/2B1P3/P7/1PPP1PPP/RNB1K1NR b KQkq - 0 4]} "
        "4... Nf6 {[%hs &ne4!lost]} {[%fen r1bqkb1r/ppp2ppp/3p1n2/4p2Q/2B1P3/P7/1PPP1PPP/RNB1K1NR w KQkq - 1 5]} "
        "5. Qxf7# 1-0")
    assert all(len(line) <= 79 for line in text.splitlines())
    assert board_from_pgn(text).fen() == board.fen()
    assert follow_with_fen_comments(movetext).board_fen() == board.board_fen()


def follow_with_fen_comments(movetext: str) -> chess.Board:
    """What a tool that knows nothing of hyperspace can do: play the SAN, and set up each [%fen] position."""
    board = chess.Board()
    for token in re.findall(r"\{[^}]*\}|\S+", movetext):
        fen = re.fullmatch(r"\{\[%fen ([^\]]+)\]\}", " ".join(token.split()))
        if fen:
            board = chess.Board(fen.group(1))
        elif token.startswith("{") or re.fullmatch(r"\d+\.+|--|1-0|0-1|1/2-1/2|\*", token):
            continue  # move numbers, null moves (the FEN that follows says where they lead), results
        else:
            board.push_san(token)
    return board


def test_shield_keep_and_pieces_still_away(setup: tuple[Pipeline, Path],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    pipe, config = setup
    game_id, _ = play(pipe, SHIELD_AND_KEEP)
    status, text, _ = export(capsys, config, f"#{game_id}")
    assert status == 0
    game, board = read_game(text)
    assert game.errors == []
    assert board.board_fen() == final_board(pipe, game_id).board_fen()
    assert board.piece_at(chess.D2) == chess.Piece.from_symbol("N")  # kept new
    assert "3. -- {[%hs >a2a3 &Ng3]}" in flat(text)
    assert "&Nd2!kept-new" in text
    assert "?Rh1@2:8" in text and "?ng8@4:8" in text
    # Not yet revealed: never in the export, whoever reads it.
    assert not names_square(text, "d4") and not names_square(text, "h3")


def test_return_on_a_phase_out_turn_and_a_forfeit(setup: tuple[Pipeline, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    pipe, config = setup
    game_id, _ = play(pipe, PHASE_RETURN_AND_FORFEIT)
    out = config.parent / "game.pgn"
    status, printed, _ = export(capsys, config, str(game_id), "-o", str(out))
    assert status == 0 and printed == ""
    text = out.read_text()
    assert "3. -- {[%hs Bf1@2 &Nc3]}" in flat(text) and "&Ng1!forfeited" in text and "?Bf1@2:6" in text
    assert not names_square(text, "d3")
    assert board_from_pgn(text).board_fen() == final_board(pipe, game_id).board_fen()


def test_history_mails_the_record_and_the_pgn_without_the_opponents_secret(setup: tuple[Pipeline, Path]) -> None:
    pipe, _ = setup
    _, (seat_a, _seat_b) = play(pipe, SHIELD_AND_KEEP)
    pipe.send(ALICE, seat_a, "history")
    body = body_of(next(m for r, m in pipe.drain_outbox() if r == ALICE))
    assert body.count('[Variant "Hyperspace Chess"]') == 2
    assert "1. Nb1@1 Pe7-e5 2. Pf2-f3 Qd8-h4+ 3. Pa2-a3 &Ng3 Ng8@4" in flat(body)  # the server's notation
    assert not names_square(body, "d4")
    pgn = body[body.rindex("[Event"):]
    pgn = pgn[:pgn.index(" *") + 2]
    assert "&Nd2!kept-new" in pgn
    game, board = read_game(pgn)
    assert game.errors == [] and board.piece_at(chess.G3) == chess.Piece.from_symbol("N")


def test_other_variants_keep_the_numbered_record(setup: tuple[Pipeline, Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pipe, _ = setup
    game_id, _ = play(pipe, MATE)
    monkeypatch.setattr(pbem.app.records, "movetext_writer", lambda game: None)  # as for a variant without a PGN writer
    with pipe.db.read() as session:
        game = session.get(Game, game_id)
        assert game is not None
        moves = list(session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id)
                                  .order_by(col(MoveRecord.ply))).all())
        text = game_record(game, moves, "alice", "bob", "example.org")
    tags, movetext = text.split("\n\n")
    assert tags.splitlines()[:8] == [
        f'[Event "pbem game {game_id}"]', '[Site "example.org"]', tags.splitlines()[2], '[Round "-"]',
        '[White "alice"]', '[Black "bob"]', '[Result "1-0"]', '[Variant "Hyperspace Chess"]']
    assert re.fullmatch(r'\[Date "\d{4}\.\d\d\.\d\d"\]', tags.splitlines()[2])
    assert flat(movetext) == (
        "1. Pe2-e4 Pe7-e5 2. Qd1@1 Nb8@1 3. Bf1-c4 Pd7-d6 4. Pa2-a3 &Qh5 Ng8-f6 &Ne4!lost "
        "5. Qh5xf7# 1-0")
    assert all(len(line) <= 79 for line in text.splitlines())


def test_numbered_record_starting_with_black() -> None:
    rows = [MoveRecord(game_id=1, ply=1, seat="black", move_number=7, record="a"),
            MoveRecord(game_id=1, ply=2, seat="white", move_number=8, record="b"),
            MoveRecord(game_id=1, ply=3, seat="black", move_number=8, record="c")]
    assert numbered_movetext(rows) == ["7...", "a", "8.", "b", "c"]


def test_plain_python_chess_sees_the_moves_but_not_the_variant(setup: tuple[Pipeline, Path],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    pipe, config = setup
    game_id, _ = play(pipe, MATE[:6])
    _, text, _ = export(capsys, config, str(game_id))
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    # Without HyperspaceGameBuilder only the unknown Variant tag is reported; nothing is in the way yet.
    assert [str(e) for e in game.errors] == [f"unsupported variant: {VARIANT_TAG}"]


def test_unknown_game_exits_1(setup: tuple[Pipeline, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, config = setup
    status, out, err = export(capsys, config, "999")
    assert (status, out) == (1, "") and "no game 999" in err
    status, _, err = export(capsys, config, "last")
    assert status == 1 and "'last'" in err


def test_missing_sqlite_database_is_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "none.sqlite3"}"\n')
    status, _, err = export(capsys, config, "1")
    assert status == 1 and "no database" in err and not (tmp_path / "none.sqlite3").exists()



def _random_game(rng: random.Random, plies: int = 120) -> tuple[str, list[Ply]]:
    """A random Hyperspace game: phase-outs (some without a square), delays 1-4 and keep directives."""
    engine = HyperspaceChess()
    state = engine.setup()
    record: list[Ply] = []
    for _ in range(plies):
        if engine.outcome(state) is not None:
            break
        action = rng.choice(list(engine.legal_actions(state)))
        keep = rng.choice([None, "new", "old"])
        if isinstance(action, PhaseOut):
            colour = chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[chess.parse_square(action.from_square)]
            squares = [s for s in chess.SQUARES if action.piece != "B"
                       or bool(chess.BB_LIGHT_SQUARES & chess.BB_SQUARES[s]) == bool(colour)]
            secret = None if rng.random() < 0.1 else Secret(chess.square_name(rng.choice(squares)))
            action = PhaseOut(action.piece, action.from_square, rng.randint(1, 4), secret, "00", keep)
        else:
            action = BoardMove(action.move, keep)
        try:
            transition = engine.apply(state, action)
        except MoveError:  # that delay's return turn is taken (H7); delay 1 is free, legal_actions said so
            assert isinstance(action, PhaseOut)
            transition = engine.apply(state, replace(action, delay=1))
        state = transition.state
        record.append(Ply(transition.record, engine.dump(state)))
    return state.fen, record


@pytest.mark.parametrize("seed", range(40))
def test_random_games_read_back_to_the_engines_board(seed: int) -> None:
    fen, plies = _random_game(random.Random(seed))
    text = '[Variant "Hyperspace Chess"]\n\n' + "\n".join(wrap_words([*movetext_words(plies), "*"]))
    game, board = read_game(text)
    assert game.errors == []
    assert board.board_fen() == chess.Board(fen).board_fen()
