"""Hyperspace Chess engine: one test per ruling (H1-H10), perft, timing, commitments and round trips."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import chess
import pytest

from pbem.engine.base import Audience, Outcome, Seat, Transition
from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, MoveError
from pbem.engine.secret import Secret
from pbem.variants import get_variant
from pbem.variants.hyperspace import rules
from pbem.variants.hyperspace.engine import VARIANT, HyperspaceChess
from pbem.variants.hyperspace.fen import fen as write_fen
from pbem.variants.hyperspace.model import BoardMove, HyperspaceState, PhaseOut
from tests.variants.helpers import independent_perft

ENGINE = HyperspaceChess()
NONCE = "9f86d081884c7d659a2feaa0c55ad015"

# Eleven quiet moves each, so that White's next turn is turn 12.
TO_TURN_12 = [
    "a3", "a6", "a4", "a5", "b3", "b6", "b4", "b5", "c3", "c6", "c4", "c5",
    "d3", "d6", "d4", "d5", "h3", "h6", "h4", "h5", "g3", "g6",
]


def play(*moves: str, state: HyperspaceState | None = None,
         nonce: str = NONCE) -> tuple[HyperspaceState, list[Transition[HyperspaceState]]]:
    """Play ``moves`` through parse_action, seal and apply, as the service does."""
    state = ENGINE.setup() if state is None else state
    transitions: list[Transition[HyperspaceState]] = []
    for text in moves:
        action = ENGINE.seal(state, ENGINE.parse_action(state, text), nonce)
        transition = ENGINE.apply(state, action)
        transitions.append(transition)
        state = transition.state
    return state, transitions


def canonical(state: HyperspaceState) -> list[str]:
    return sorted(ENGINE.describe(state, action) for action in ENGINE.legal_actions(state))


def piece(state: HyperspaceState, square: str) -> str | None:
    found = chess.Board(state.fen).piece_at(chess.parse_square(square))
    return None if found is None else found.symbol()


def public_texts(transitions: list[Transition[HyperspaceState]]) -> list[str]:
    return [t.record for t in transitions] + [n.text for t in transitions for n in t.notes if n.to is None]


def view_text(state: HyperspaceState, audience: Seat | Audience) -> str:
    view = ENGINE.view(state, audience)
    return "\n".join([view.diagram, *view.status, *view.private])


def positioned(fen: str, pool: list[dict[str, Any]] | None = None) -> HyperspaceState:
    """A state from a FEN and pool entries, for endgames too long to reach by play."""
    return ENGINE.load({"format": "hyperspace-chess/1", "fen": fen, "pool": pool or [], "history": []})


# -- registry and protocol ------------------------------------------------------------------------


def test_registered_under_key_and_alias() -> None:
    assert VARIANT is HyperspaceChess
    assert isinstance(get_variant("hyperspace"), HyperspaceChess)
    assert isinstance(get_variant("Hyperspace-Chess"), HyperspaceChess)
    assert HyperspaceChess.title == "Hyperspace Chess"
    assert HyperspaceChess.rulings == tuple(f"H{n}" for n in range(1, 11))


def test_help_lists_every_ruling_and_the_commitment_recipe() -> None:
    text = ENGINE.help_text()
    for n in range(1, 11):
        assert f"H{n}:" in text
    recipe = "hyperspace-chess/1|<seat>|<piece><from>@<delay>|turn=<return turn>|square=<square>|nonce="
    for needle in ("Bc1@3 {f4}", "phase Bc1 3 f4", "secret 12 Bc1 f4", "keep new", "sha256sum", recipe):
        assert needle in text


# -- rulings --------------------------------------------------------------------------------------


def test_H1_delay_is_1_to_99() -> None:
    start = ENGINE.setup()
    for text in ("Bc1@0", "Bc1@100 {e3}", "Bc1@0 {e3}"):
        with pytest.raises(InvalidMoveError, match="1 to 99"):
            ENGINE.parse_action(start, text)
    with pytest.raises(InvalidMoveError):
        ENGINE.apply(start, PhaseOut("B", "c1", 100, Secret("e3")))
    state, transitions = play("Bc1@99 {e3}")
    assert "returns at the end of White's turn 101" in transitions[0].notes[0].text
    assert any("Bc1@99, returns at the end of White's turn 101" in line
               for line in ENGINE.view(state, Audience.PUBLIC).status)
    assert ENGINE.parse_action(start, "Bc1@1") == PhaseOut("B", "c1", 1)


@pytest.mark.parametrize(("directive", "record", "on_d2"), [
    ("", "Pa3-a4 &Nd2!kept-old", "P"),
    (" keep old", "Pa3-a4 &Nd2!kept-old", "P"),
    (" keep new", "Pa3-a4 &Nd2!kept-new", "N"),
    (" keep:new", "Pa3-a4 &Nd2!kept-new", "N"),
    (" KEEP:OLD", "Pa3-a4 &Nd2!kept-old", "P"),
])
def test_H2_return_onto_own_piece_follows_keep_directive(directive: str, record: str, on_d2: str) -> None:
    # Knight b1 leaves on turn 1 for 1 turn: back at the end of turn 3, onto White's own pawn d2.
    state, transitions = play("Nb1@1 {d2}", "Pa7-a6", "Pa2-a3", "Pb7-b6", "Pa3-a4" + directive)
    assert transitions[-1].record == record
    assert piece(state, "d2") == on_d2
    assert state.pool == ()


def test_H2_return_onto_own_king_removes_the_returning_piece() -> None:
    state, transitions = play("Bc1@1 {e1}", "Pa7-a6", "Pa2-a3", "Pb7-b6", "Pa3-a4 keep new")
    assert transitions[-1].record == "Pa3-a4 &Be1!kept-old"
    assert piece(state, "e1") == "K"
    assert len(chess.Board(state.fen).pieces(chess.BISHOP, chess.WHITE)) == 1  # only the f1 bishop is left


def test_H3_return_onto_enemy_piece_or_king_is_lost_without_capture() -> None:
    state, transitions = play("Nb1@1 {d7}", "Pa7-a6", "Pa2-a3", "Pb7-b6", "Pa3-a4")
    assert transitions[-1].record == "Pa3-a4 &Nd7!lost"
    assert piece(state, "d7") == "p"
    assert len(chess.Board(state.fen).pieces(chess.KNIGHT, chess.WHITE)) == 1

    state, transitions = play("Qd1@1 {e8}", "Pa7-a6", "Pa2-a3", "Pb7-b6", "Pa3-a4")
    assert transitions[-1].record == "Pa3-a4 &Qe8!lost"
    assert piece(state, "e8") == "k"
    assert not chess.Board(state.fen).pieces(chess.QUEEN, chess.WHITE)
    assert ENGINE.outcome(state) is None and ENGINE.to_act(state) is Seat.BLACK


H4_LINE = ["Pe2-e4", "Pd7-d5", "Pe4xd5", "Qd8xd5", "Ng1-f3", "Pa7-a6"]


def test_H4_same_turn_return_that_blocks_check_makes_the_move_legal() -> None:
    # Bishop f1 leaves on turn 4 (back at the end of turn 6, on e2); Black checks on the e-file on turn 5.
    state, _ = play(*H4_LINE, "Bf1@1 {e2}", "Pb7-b6", "Pa2-a3", "Qd5-e5+")
    assert chess.Board(state.fen).is_check()
    assert "Pa3-a4" in canonical(state)
    after, transitions = play("Pa3-a4", state=state)
    assert transitions[-1].record == "Pa3-a4 &Be2"
    assert piece(after, "e2") == "B"
    # Castling keeps its FIDE conditions, judged before the return: not out of check.
    with pytest.raises(IllegalMoveError, match="castle out of check"):
        ENGINE.parse_action(state, "O-O")

    # The same line with a return square that does not block: the move is illegal.
    state, _ = play(*H4_LINE, "Bf1@1 {h3}", "Pb7-b6", "Pa2-a3", "Qd5-e5+")
    assert "Pa3-a4" not in canonical(state)
    with pytest.raises(IllegalMoveError, match="check"):
        ENGINE.parse_action(state, "Pa3-a4")
    with pytest.raises(IllegalMoveError):
        ENGINE.apply(state, BoardMove(chess.Move.from_uci("a3a4")))


def test_H4_mate_is_judged_with_the_same_turn_return() -> None:
    line = ["Pg2-g4", "Pe7-e5", "Ng1@1 {SQUARE}", "Pa7-a6", "Pf2-f3", "Qd8-h4"]
    # The knight comes back on g3 at the end of White's turn 4: Qh4 is only check.
    state, transitions = play(*(m.replace("SQUARE", "g3") for m in line))
    assert transitions[-1].record == "Qd8-h4+"
    assert ENGINE.outcome(state) is None
    state, transitions = play("Pa2-a3", state=state)
    assert transitions[-1].record == "Pa2-a3 &Ng3"
    # Coming back elsewhere does not help: it is mate.
    state, transitions = play(*(m.replace("SQUARE", "c3") for m in line))
    assert transitions[-1].record == "Qd8-h4#"
    assert ENGINE.outcome(state) == Outcome.win(Seat.BLACK, "checkmate")


def test_H5_phased_rook_loses_castling_for_good() -> None:
    prefix = ["Ng1-f3", "Pa7-a6", "Pe2-e3", "Pb7-b6", "Bf1-e2", "Pc7-c6"]
    state, _ = play(*prefix)
    assert "O-O" in canonical(state)
    # Rook h1 leaves on turn 4 and comes home at the end of turn 6; the right is gone anyway.
    state, transitions = play(*prefix, "Rh1@1 {h1}", "Pd7-d6", "Pa2-a3", "Ph7-h6", "Pa3-a4", "Pg7-g6")
    assert transitions[-2].record == "Pa3-a4 &Rh1"
    assert piece(state, "h1") == "R"
    assert "O-O" not in canonical(state)
    assert chess.Board(state.fen).castling_xfen() == "Qkq"
    with pytest.raises(IllegalMoveError, match="lost the right to castle kingside"):
        ENGINE.parse_action(state, "O-O")
    # Phasing out pieces may clear the way (FAQ Q7).
    state, _ = play("Pe2-e3", "Pa7-a6", "Bf1@10 {d3}", "Pb7-b6", "Ng1@10 {c3}", "Pc7-c6")
    assert ENGINE.parse_action(state, "0-0") == BoardMove(chess.Move.from_uci("e1g1"))


def test_H6_clock_repetition_and_material() -> None:
    # A phase-out counts for the 50-move clock; the return adds nothing.
    state, transitions = play("Nb1@1 {b1}", "Ng8-f6", "Ng1-f3", "Nf6-g8", "Nf3-g1")
    assert transitions[-1].record == "Nf3-g1 &Nb1"
    assert [int(t.state.fen.split()[4]) for t in transitions] == [1, 2, 3, 4, 5]
    # Threefold is a claim, fivefold ends the game; the pool is part of the position.
    shuffle = ["Ng8-f6", "Ng1-f3", "Nf6-g8", "Nf3-g1"]
    state, _ = play("Bc1@40 {e3}", *shuffle)
    assert ENGINE.claim_draw(state) is None
    state, _ = play(*shuffle, state=state)
    assert ENGINE.claim_draw(state) == Outcome.draw("threefold repetition")
    assert ENGINE.outcome(state) is None
    other_secret = ENGINE.dump(state)
    other_secret["pool"][0]["square"] = "g5"
    assert ENGINE.claim_draw(ENGINE.load(other_secret)) is None  # same board, different secret square
    state, _ = play(*shuffle, *shuffle, state=state)
    assert ENGINE.outcome(state) == Outcome.draw("fivefold repetition")
    # 50 moves are a claim, 75 end the game.
    data = ENGINE.dump(ENGINE.setup())
    data["fen"] = data["fen"].replace(" 0 1", " 100 80")
    assert ENGINE.claim_draw(ENGINE.load(data)) == Outcome.draw("50-move rule")
    data["fen"] = data["fen"].replace(" 100 80", " 150 80")
    assert ENGINE.outcome(ENGINE.load(data)) == Outcome.draw("75-move rule")
    # Pieces in hyperspace count as material.
    bare = "4k3/8/8/8/8/8/8/4K3 w - - 0 40"
    assert ENGINE.outcome(positioned(bare)) == Outcome.draw("insufficient material")
    rook = {"seat": "white", "piece": "R", "from": "a1", "delay": 5, "declared": 38, "square": "a1",
            "nonce": "00"}
    assert ENGINE.outcome(positioned(bare, [rook])) is None
    bishop = {**rook, "piece": "B", "from": "c1", "square": "e3"}
    assert ENGINE.outcome(positioned(bare, [bishop])) == Outcome.draw("insufficient material")


def test_H7_one_return_per_player_per_turn() -> None:
    state, _ = play("Bc1@3 {e3}", "Pa7-a6")  # back at the end of White's turn 5
    with pytest.raises(IllegalMoveError, match=r"White already has a piece returning on turn 5 \(Bc1@3\)"):
        ENGINE.parse_action(state, "Nb1@2 {c3}")
    with pytest.raises(IllegalMoveError):
        ENGINE.apply(state, PhaseOut("N", "b1", 2, Secret("c3")))
    assert isinstance(ENGINE.parse_action(state, "Nb1@1 {c3}"), PhaseOut)  # turn 4 is free
    # The other player's schedule does not conflict.
    state, _ = play("Bc1@3 {e3}", "Bc8@3 {e6}")
    assert ENGINE.view(state, Audience.PUBLIC).status[-1].startswith("Black in hyperspace: Bc8@3")
    # When delay 1 is taken, the public tree lists no phase-out.
    state, _ = play("Bc1@2 {e3}", "Pa7-a6")
    assert not [m for m in canonical(state) if "@" in m]
    assert isinstance(ENGINE.parse_action(state, "Nb1@3 {c3}"), PhaseOut)


def test_H8_pawns_and_kings_cannot_phase() -> None:
    start = ENGINE.setup()
    for text in ("Pe2@3 {e4}", "e2@1", "phase e2 2 e4"):
        with pytest.raises(IllegalMoveError, match="pawns cannot enter hyperspace"):
            ENGINE.parse_action(start, text)
    with pytest.raises(IllegalMoveError, match="king cannot"):
        ENGINE.parse_action(start, "Ke1@2 {e4}")
    with pytest.raises(IllegalMoveError):
        ENGINE.apply(start, PhaseOut("P", "e2", 1))
    assert all(a.piece in "NBRQ" for a in ENGINE.legal_actions(start) if isinstance(a, PhaseOut))


def test_H9_game_over_before_the_return() -> None:
    state, transitions = play("Nb1@5 {c3}", "Pe7-e5", "Pf2-f3", "Pa7-a6", "Pg2-g4", "Qd8-h4")
    assert transitions[-1].record == "Qd8-h4#"
    assert ENGINE.outcome(state) == Outcome.win(Seat.BLACK, "checkmate")
    assert ENGINE.to_act(state) is None
    assert list(ENGINE.legal_actions(state)) == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        ENGINE.apply(state, BoardMove(chess.Move.from_uci("a2a3")))
    assert any("never: the game is over" in line for line in ENGINE.view(state, Audience.PUBLIC).status)
    assert "{c3}" in ENGINE.secrets(state)[Seat.WHITE]  # the discarded square is never revealed


def test_H10_return_square_is_public_in_that_turns_record() -> None:
    state, transitions = play("Nb1@1 {c3}", "Pa7-a6", "Pa2-a3")
    assert piece(state, "b1") is None and piece(state, "c3") is None
    assert "{c3}" not in "\n".join(public_texts(transitions))
    state, transitions = play("Pb7-b6", "Pa3-a4", state=state)
    assert transitions[-1].record == "Pa3-a4 &Nc3"
    assert "returned to c3" in " ".join(n.text for n in transitions[-1].notes if n.to is None)
    assert piece(state, "c3") == "N"
    assert not any("hyperspace" in line for line in ENGINE.view(state, Audience.PUBLIC).status)


# -- public tree and perft ------------------------------------------------------------------------


def test_initial_public_tree_has_27_actions() -> None:
    expected = sorted([
        "Pa2-a3", "Pa2-a4", "Pb2-b3", "Pb2-b4", "Pc2-c3", "Pc2-c4", "Pd2-d3", "Pd2-d4",
        "Pe2-e3", "Pe2-e4", "Pf2-f3", "Pf2-f4", "Pg2-g3", "Pg2-g4", "Ph2-h3", "Ph2-h4",
        "Nb1-a3", "Nb1-c3", "Ng1-f3", "Ng1-h3",
        "Nb1@1", "Ng1@1", "Bc1@1", "Bf1@1", "Ra1@1", "Rh1@1", "Qd1@1",
    ])
    assert canonical(ENGINE.setup()) == expected


def engine_perft(state: HyperspaceState, depth: int) -> int:
    if depth == 0:
        return 1
    actions = list(ENGINE.legal_actions(state))
    if depth == 1:
        return len(actions)
    return sum(engine_perft(ENGINE.apply(state, a).state, depth - 1) for a in actions)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_perft_matches_an_independent_python_chess_count(depth: int) -> None:
    expected = independent_perft(chess.Board(), depth)
    assert engine_perft(ENGINE.setup(), depth) == expected
    assert expected == {1: 27, 2: 729, 3: 20738}[depth]


# -- timing, returns, stalemate -------------------------------------------------------------------


def test_phase_on_turn_12_with_delay_3_returns_at_end_of_turn_16() -> None:
    state, _ = play(*TO_TURN_12)
    assert ENGINE.move_number(state) == 12 and ENGINE.to_act(state) is Seat.WHITE
    state, transitions = play("12. Bc1@3 {f4}", state=state)
    assert transitions[0].record == "Bc1@3"
    assert "returns at the end of White's turn 16" in transitions[0].notes[0].text
    shuffle = ["Ng8-f6", "Ng1-f3", "Nf6-g8", "Nf3-g1"]
    for _ in range(3):  # Black 12, White 13, Black 13, White 14, ... up to Black 15
        for text in shuffle[:2]:
            state, transitions = play(text, state=state)
            assert "&" not in transitions[0].record
            assert piece(state, "f4") is None
        shuffle = shuffle[2:] + shuffle[:2]
    state, transitions = play(shuffle[0], state=state)
    assert ENGINE.move_number(state) == 16 and ENGINE.to_act(state) is Seat.WHITE
    assert "White's Bc1@3 returns at the end of this turn." in ENGINE.view(state, Audience.PUBLIC).status
    state, transitions = play(shuffle[1], state=state)
    assert transitions[0].record.endswith(" &Bf4")
    assert piece(state, "f4") == "B"


def test_stalemate_and_mate_with_returns_pending() -> None:
    entry = {"seat": "black", "piece": "R", "from": "h8", "delay": 5, "declared": 48, "square": "h8",
             "nonce": "ab"}
    stalemate = positioned("k7/8/1Q6/8/8/8/8/7K b - - 0 50", [entry])  # returns on turn 54: later
    assert ENGINE.outcome(stalemate) == Outcome.draw("stalemate")
    due_now = positioned("k7/8/1Q6/8/8/8/8/7K b - - 0 50", [{**entry, "delay": 1}])
    assert ENGINE.outcome(due_now) == Outcome.draw("stalemate")  # it never gets to the end of the turn
    mate = positioned("k7/1Q6/1K6/8/8/8/8/8 b - - 0 50", [entry])
    assert ENGINE.outcome(mate) == Outcome.win(Seat.WHITE, "checkmate")


def test_back_rank_mate_is_only_check_when_the_return_blocks() -> None:
    def rook_back_on(square: str) -> HyperspaceState:
        entry = {"seat": "black", "piece": "R", "from": "a8", "delay": 1, "declared": 28, "square": square,
                 "nonce": "cd"}
        return positioned("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 30", [entry])

    state, transitions = play("Ra1-a8", state=rook_back_on("f8"))
    assert transitions[0].record == "Ra1-a8+" and ENGINE.outcome(state) is None
    state, transitions = play("h6", state=state)
    assert transitions[0].record == "Ph7-h6 &Rf8"
    state, transitions = play("Ra1-a8", state=rook_back_on("a1"))
    assert transitions[0].record == "Ra1-a8#"


# -- commitments and secrets ----------------------------------------------------------------------


def test_commitment_digest_and_what_the_public_sees() -> None:
    state, _ = play(*TO_TURN_12)
    state, transitions = play("Bc1@3 {f4}", state=state)
    string = f"hyperspace-chess/1|white|Bc1@3|turn=16|square=f4|nonce={NONCE}"
    digest = hashlib.sha256(string.encode()).hexdigest()
    notes = transitions[0].notes
    public = [n.text for n in notes if n.to is None]
    owner = [n.text for n in notes if n.to is Seat.WHITE]
    referee = [n.text for n in notes if n.to is Audience.REFEREE]
    # The digest is published once it binds (after Black's move): before, nothing public may depend
    # on whether a square is recorded yet.
    assert len(public) == 1 and digest not in public[0] and "Bc1@3" in public[0] and "record" not in public[0]
    for text in (*owner, *referee):
        assert string in text and digest in text and NONCE in text and "f4" in text
    leaks = ("{f4}", NONCE, string)
    seen_by_black = [*public, transitions[0].record, view_text(state, Seat.BLACK),
                     view_text(state, Audience.PUBLIC)]
    for text in seen_by_black:
        assert not any(leak in text for leak in leaks)
    assert digest not in view_text(state, Audience.PUBLIC)
    assert digest in view_text(play("Ng8-f6", state=state)[0], Audience.PUBLIC)
    assert set(ENGINE.secrets(state)[Seat.WHITE]) == {NONCE, string, "{f4}"}
    assert ENGINE.secrets(state)[Seat.BLACK] == ()
    assert "f4" in "\n".join(ENGINE.view(state, Seat.WHITE).private)
    assert "f4" in "\n".join(ENGINE.view(state, Audience.REFEREE).private)
    assert ENGINE.view(state, Audience.PUBLIC).private == ()
    assert "Secret(<redacted>)" in repr(state)
    # At the return everything is revealed, publicly, and nothing is secret any more.
    state, transitions = play("Ng8-f6", "Ng1-f3", "Nf6-g8", "Nf3-g1", "Ng8-f6", "Ng1-f3", "Nf6-g8", "Nf3-g1",
                              state=state)
    assert transitions[-1].record == "Nf3-g1 &Bf4"
    reveal = " ".join(n.text for n in transitions[-1].notes if n.to is None)
    assert string in reveal and NONCE in reveal and digest in reveal
    assert ENGINE.secrets(state)[Seat.WHITE] == ()


def test_private_form_and_seal() -> None:
    start = ENGINE.setup()
    action = ENGINE.parse_action(start, "phase Bc1 3 f4 keep new")
    assert action == PhaseOut("B", "c1", 3, Secret("f4"), "", "new")
    assert ENGINE.describe(start, action) == "Bc1@3"
    assert ENGINE.describe_private(start, action) == "Bc1@3 {f4} keep:new"
    assert ENGINE.parse_action(start, ENGINE.describe_private(start, action)) == action
    sealed = ENGINE.seal(start, action, "ff00")
    assert sealed == PhaseOut("B", "c1", 3, Secret("f4"), "ff00", "new")
    board_move = ENGINE.parse_action(start, "e4")
    assert ENGINE.seal(start, board_move, "ff00") == board_move


def test_secret_sent_separately_before_the_opponent_moves() -> None:
    state, transitions = play("Bc1@3")
    assert not any("record" in n.text for n in transitions[0].notes if n.to is None)
    assert any("secret 1 Bc1 SQUARE" in n.text for n in transitions[0].notes if n.to is Seat.WHITE)
    with pytest.raises(InvalidMoveError, match="cannot return to light square f5"):
        ENGINE.attach_secret(state, Seat.WHITE, "secret 1 Bc1 f5", NONCE)
    with pytest.raises(IllegalMoveError, match="no phase-out"):
        ENGINE.attach_secret(state, Seat.BLACK, "secret 1 Bc1 f4", NONCE)
    with pytest.raises(InvalidMoveError):
        ENGINE.attach_secret(state, Seat.WHITE, "secret Bc1 f4", NONCE)
    attached = ENGINE.attach_secret(state, Seat.WHITE, "secret 1 Bc1 f4", NONCE)
    string = f"hyperspace-chess/1|white|Bc1@3|turn=5|square=f4|nonce={NONCE}"
    digest = hashlib.sha256(string.encode()).hexdigest()
    assert {n.to for n in attached.notes} == {Seat.WHITE, Audience.REFEREE}  # Black hears nothing of it
    assert all(digest in n.text for n in attached.notes)
    with pytest.raises(IllegalMoveError, match="already recorded"):
        ENGINE.attach_secret(attached.state, Seat.WHITE, "secret 1 Bc1 e3", NONCE)
    state, transitions = play("a6", "a3", "b6", "a4", "c6", "a5", "d6", "h3", state=attached.state)
    assert transitions[-1].record == "Ph2-h3 &Bf4"


def test_secret_too_late_means_forfeit() -> None:
    state, _ = play("Bc1@1", "Pa7-a6")
    with pytest.raises(IllegalMoveError, match="too late"):
        ENGINE.attach_secret(state, Seat.WHITE, "secret 1 Bc1 f4", NONCE)
    # The public sees a commitment (to "square=none"), as for a recorded square: no hint of the forfeit.
    none = hashlib.sha256(f"hyperspace-chess/1|white|Bc1@1|turn=3|square=none|nonce={NONCE}".encode()).hexdigest()
    public_status = "\n".join(ENGINE.view(state, Audience.PUBLIC).status)
    assert f"commitment {none}" in public_status and "forfeit" not in public_status and "record" not in public_status
    state, transitions = play("Pa2-a3", "Pb7-b6", "Pa3-a4", state=state)
    assert transitions[-1].record == "Pa3-a4 &Bc1!forfeited"
    assert "forfeited" in transitions[-1].notes[0].text
    assert none in transitions[-1].notes[1].text and "square=none" in transitions[-1].notes[1].text
    assert piece(state, "c1") is None and state.pool == ()


# -- notation -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "Pe2-e4", "e2-e4", "e2e4", "e4", "E4", "1. e4", "1.e4 // best by test", "Pe2xe4", "pe2-e4!?",
])
def test_many_spellings_of_one_move(text: str) -> None:
    assert ENGINE.parse_action(ENGINE.setup(), text) == BoardMove(chess.Move.from_uci("e2e4"))


def test_san_and_lowercase_b() -> None:
    # Black's bishop lands on c4, where both Pb3 and Bf1 can take it.
    state, _ = play("Pb2-b3", "Pd7-d6", "Pe2-e3", "Bc8-e6", "Pa2-a3", "Be6-c4")
    for text in ("bxc4", "bc4"):
        with pytest.raises(AmbiguousMoveError, match="Bf1xc4 or Pb3xc4"):
            ENGINE.parse_action(state, text)
    bishop, pawn = BoardMove(chess.Move.from_uci("f1c4")), BoardMove(chess.Move.from_uci("b3c4"))
    assert ENGINE.parse_action(state, "Bxc4") == bishop  # an upper-case B is never a file
    assert ENGINE.parse_action(state, "bf1xc4") == bishop
    assert ENGINE.parse_action(state, "b3xc4") == pawn
    assert ENGINE.parse_action(state, "pb3-c4") == pawn
    assert ENGINE.parse_action(state, "b4") == BoardMove(chess.Move.from_uci("b3b4"))
    assert ENGINE.parse_action(state, "nc3") == BoardMove(chess.Move.from_uci("b1c3"))


def test_error_messages_name_the_problem() -> None:
    start = ENGINE.setup()
    cases: list[tuple[str, type[MoveError], str]] = [
        ("Nb1-b3", IllegalMoveError, "the knight on b1 cannot go to b3"),
        ("Bb1-c3", IllegalMoveError, "there is a knight on b1, not a bishop"),
        ("e7e5", IllegalMoveError, "the pawn on e7 is black's, not yours"),
        ("e3-e4", IllegalMoveError, "there is no piece on e3"),
        ("hello", InvalidMoveError, "not a move"),
        ("e4 {e5}", InvalidMoveError, "only goes with a phase-out"),
        ("Bc1@3 {z9}", InvalidMoveError, "must be a square"),
        ("Bc1@2 {f5}", InvalidMoveError, "a bishop on a dark square cannot return to light square f5"),
        ("O-O", IllegalMoveError, "between king and rook"),
    ]
    for text, kind, reason in cases:
        with pytest.raises(kind, match=reason) as raised:
            ENGINE.parse_action(start, text)
        assert str(raised.value)[0].islower()
    state, _ = play("Pe2-e4", "Pe7-e5", "Bf1@1 {c4}", "Nb8-c6")
    with pytest.raises(IllegalMoveError, match=r"your Bf1@1 is in hyperspace"):
        ENGINE.parse_action(state, "Bf1-c4")
    with pytest.raises(MoveError) as raised:
        ENGINE.parse_action(state, "Bc1@3 {f5}")
    # Error mails never echo a secret verbatim: it could match the opponent's own secret.
    assert "{f5}" not in str(raised.value) and "'Bc1@3 {...}'" in str(raised.value)


def test_promotion_en_passant_and_castling_notation() -> None:
    state, _ = play("e4", "a6", "e5", "d5")
    assert "Pe5xd6" in canonical(state)
    after, transitions = play("Pe5xd6", state=state)
    assert transitions[0].record == "Pe5xd6" and piece(after, "d5") is None
    state, _ = play("h4", "g5", "hxg5", "Ng8-f6", "g6", "Nf6-g8", "gxh7", "a6", state=ENGINE.setup())
    with pytest.raises(AmbiguousMoveError, match="promotes"):
        ENGINE.parse_action(state, "Ph7-g8")
    assert ENGINE.describe(state, ENGINE.parse_action(state, "hxg8=n")) == "Ph7xg8=N"
    assert ENGINE.describe(state, ENGINE.parse_action(state, "h7g8q")) == "Ph7xg8=Q"
    assert "Ph7xg8=Q" in canonical(state)


# -- contract: round trips and storage ------------------------------------------------------------


def random_phase_text(rng: random.Random, state: HyperspaceState) -> str | None:
    board = chess.Board(state.fen)
    squares = [s for s in chess.SquareSet(board.occupied_co[board.turn] & ~board.pawns & ~board.kings)]
    if not squares:
        return None
    square = rng.choice(squares)
    letter = board.piece_at(square).symbol().upper()  # type: ignore[union-attr]
    def light(sq: chess.Square) -> bool:
        return bool(chess.BB_SQUARES[sq] & chess.BB_LIGHT_SQUARES)

    targets = [t for t in chess.SQUARES if letter != "B" or light(t) == light(square)]
    delay = rng.choice([1, 1, 2, 3, 5, 99])
    target = chess.square_name(rng.choice(targets))
    form = rng.choice(["{p}{s}@{d} {{{t}}}", "phase {p}{s} {d} {t}", "{p}{s}@{d}",
                       "{s}@{d} {{{t}}} keep new"])
    return form.format(p=letter if rng.random() < 0.5 else letter.lower(), s=chess.square_name(square),
                       d=delay, t=target)


def test_random_playouts_round_trip_and_never_raise() -> None:
    rng = random.Random(20250701)
    plies = 0
    for _game in range(8):
        state = ENGINE.setup()
        for _ply in range(70):
            assert ENGINE.load(ENGINE.dump(state)) == state
            assert ENGINE.load(ENGINE.dump(state)) is not state
            actions = list(ENGINE.legal_actions(state))
            if ENGINE.outcome(state) is not None:
                assert actions == []
                break
            texts = [ENGINE.describe(state, a) for a in actions]
            assert len(set(texts)) == len(texts)
            board = chess.Board(state.fen)
            fide = set(board.legal_moves)
            plain = {a.move for a in actions if isinstance(a, BoardMove)} == fide
            for action, text in zip(actions, texts, strict=True):
                assert ENGINE.parse_action(state, text) == action
                assert ENGINE.parse_action(state, text.lower()) == action
                if plain and isinstance(action, BoardMove):
                    assert ENGINE.parse_action(state, board.san(action.move)) == action
            action = None
            if rng.random() < 0.25:
                text = random_phase_text(rng, state)
                if text is not None:
                    try:
                        action = ENGINE.parse_action(state, text)
                    except MoveError:
                        action = None
            if action is None:
                action = rng.choice(actions)
                if rng.random() < 0.1:
                    action = ENGINE.parse_action(state, ENGINE.describe(state, action) + " keep:new")
            sealed = ENGINE.seal(state, action, f"{rng.getrandbits(128):032x}")
            before = ENGINE.dump(state)
            transition = ENGINE.apply(state, sealed)
            assert ENGINE.dump(state) == before  # apply never mutates its input
            assert transition.record.startswith(ENGINE.describe(state, sealed))
            for note in transition.notes:
                if note.to is None:
                    for secret in ENGINE.secrets(transition.state)[Seat.WHITE] + \
                            ENGINE.secrets(transition.state)[Seat.BLACK]:
                        assert secret not in note.text
            audiences: tuple[tuple[Seat | Audience, Seat | None], ...] = (
                (Seat.WHITE, Seat.BLACK), (Seat.BLACK, Seat.WHITE), (Audience.PUBLIC, None))
            for audience, other in audiences:
                text = view_text(transition.state, audience)
                forbidden = list(ENGINE.secrets(transition.state)[Seat.BLACK if other is None else other])
                if other is None:
                    forbidden += ENGINE.secrets(transition.state)[Seat.WHITE]
                assert not any(secret in text for secret in forbidden if secret)
            state = transition.state
            plies += 1
    assert plies > 300


# -- what a state carries (model.Derived) -------------------------------------------------------------


def test_the_fen_writer_is_python_chess_fen() -> None:
    rng = random.Random(7)
    for _game in range(60):
        board = chess.Board()
        for _ply in range(160):
            assert write_fen(board) == board.fen(en_passant="fen")
            if rng.random() < 0.05:  # a phase-out as rules.play makes it: the piece and its castling right go
                lifted = [s for s in chess.scan_forward(board.occupied_co[board.turn] & ~board.pawns & ~board.kings)]
                if lifted:
                    square = rng.choice(lifted)
                    board.remove_piece_at(square)
                    board.castling_rights &= ~chess.BB_SQUARES[square]
                    assert write_fen(board) == board.fen(en_passant="fen")
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))


def test_a_played_state_knows_what_its_stored_form_works_out() -> None:
    """``play`` hands its board and position key to the state it makes; read back from its dump, which
    parses the FEN, the same state must derive the same FEN, moves, phase-outs, key and outcome."""
    rng = random.Random(20251124)
    checked = 0
    for _game in range(6):
        state = ENGINE.setup()
        for _ply in range(60):
            stored = ENGINE.load(ENGINE.dump(state))
            # Loading parses the FEN into a board of its own and works out nothing else.
            assert stored.derived.board is not rules.read_board(state)
            assert stored.derived.moves is None and stored.derived.key is None
            assert rules.read_board(state).fen(en_passant="fen") == state.fen
            assert rules.legal_moves(state) == rules.legal_moves(stored)
            assert rules.safe_removals(state) == rules.safe_removals(stored)
            assert rules.position_key(state) == rules.position_key(stored) == state.history[-1]
            assert rules.outcome(state) == rules.outcome(stored)
            assert list(ENGINE.legal_actions(state)) == list(ENGINE.legal_actions(stored))
            checked += 1
            actions = list(ENGINE.legal_actions(state))
            if not actions:
                break
            text = random_phase_text(rng, state) if rng.random() < 0.3 else None
            action = None
            if text is not None:
                try:
                    action = ENGINE.parse_action(state, text)
                except MoveError:
                    action = None
            state = ENGINE.apply(state, ENGINE.seal(state, action or rng.choice(actions), "n")).state
    assert checked > 200


def test_phase_outs_are_the_pieces_whose_going_leaves_the_king_safe() -> None:
    """safe_removals against the definition, with and without a same-turn return onto an empty, an own
    or an enemy square (the returning piece only ever adds a blocker, H4)."""
    rng = random.Random(5)
    compared = 0
    for _game in range(40):
        board = chess.Board()
        for _ply in range(rng.randrange(4, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.fullmove_number < 3 or board.king(board.turn) is None:
            continue
        seat = Seat.WHITE if board.turn == chess.WHITE else Seat.BLACK
        pieces = board.occupied_co[board.turn] & ~board.pawns & ~board.kings
        for shield in (None, *rng.sample(chess.SQUARES, 4), *chess.scan_forward(pieces)):
            pool = [] if shield is None else [{"seat": seat.value, "piece": "N", "from": "b1", "delay": 1,
                                                "declared": board.fullmove_number - 2,
                                                "square": chess.square_name(shield)}]
            state = positioned(board.fen(), pool)
            expected = []
            for square in chess.scan_forward(pieces):
                after = board.copy(stack=False)
                after.remove_piece_at(square)
                if shield is not None and after.piece_at(shield) is None:
                    after.set_piece_at(shield, chess.Piece(chess.KNIGHT, board.turn))
                if not after.is_attacked_by(not board.turn, board.king(board.turn)):  # type: ignore[arg-type]
                    expected.append(square)
            assert list(rules.safe_removals(state)) == expected, (board.fen(), shield)
            compared += 1
    assert compared > 100


def test_placed_reads_the_same_pieces_as_python_chess_piece_map() -> None:
    """The diagram and the picture read the pieces off the bitboards; python-chess's piece_map is the reference,
    over random games (promotions, captures and castling included)."""
    from pbem.variants.hyperspace.diagram import placed

    rng = random.Random()
    for _ in range(20):
        board = chess.Board()
        for _ in range(rng.randrange(120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            found = {square: chess.Piece(piece_type, white) for square, piece_type, white in placed(board)}
            assert found == board.piece_map(), board.fen()
            assert len(found) == len(placed(board))  # no square twice
