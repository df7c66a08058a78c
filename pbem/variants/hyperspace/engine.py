"""The Hyperspace Chess engine: the Variant protocol over the rules, notation and commitments."""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

import chess

from pbem.engine.base import Audience, Note, Outcome, Recipient, Seat, Transition, VariantBase, side_title
from pbem.engine.board_view import BoardView, Highlight, Mark
from pbem.engine.errors import IllegalMoveError, InvalidMoveError
from pbem.variants.hyperspace import notation, pgn, rules, search_hooks
from pbem.variants.hyperspace.diagram import board_view, diagram
from pbem.variants.hyperspace.evaluation import evaluate
from pbem.variants.hyperspace.explain import board_move_error, phase_out_error
from pbem.variants.hyperspace.geometry import square_colour
from pbem.variants.hyperspace.helptext import HELP_TEXT
from pbem.variants.hyperspace.model import (
    PIECE_NAMES,
    Action,
    BoardMove,
    HyperspaceState,
    PhaseOut,
    PoolEntry,
    dump_state,
    load_state,
)
from pbem.variants.hyperspace.returns import complete_phase_out
from pbem.variants.hyperspace.seat import seat_view_state

__all__ = ["HyperspaceChess"]

_SECRET_MESSAGE = re.compile(
    r"^\s*(?:secret\s+)?(\d+)\s*\.*\s+([kqrbnp])?\s*([a-h][1-8])(?:\s*@\s*(\d+))?\s+\{?\s*([a-h][1-8])\s*\}?\s*$")


def _ply(turn: int, seat: Seat) -> int:
    return 2 * (turn - 1) + (0 if seat is Seat.WHITE else 1)


class HyperspaceChess(VariantBase[HyperspaceState, Action]):
    """FIDE chess in which N, B, R and Q may leave the board and come back on a committed secret square."""

    key: ClassVar[str] = "hyperspace"
    aliases: ClassVar[tuple[str, ...]] = ("hyperspace-chess",)
    title: ClassVar[str] = "Hyperspace Chess"
    rulings: ClassVar[tuple[str, ...]] = tuple(f"H{n}" for n in range(1, 11))
    help: ClassVar[str] = HELP_TEXT

    # -- the game (hooks of VariantBase) -----------------------------------------------------------

    def _initial_state(self) -> HyperspaceState:
        if self.options:
            raise ValueError(f"Hyperspace Chess has no options (got {', '.join(sorted(self.options))})")
        return rules.initial_state()

    def _outcome(self, state: HyperspaceState) -> Outcome | None:
        return rules.outcome(state)

    def _side(self, state: HyperspaceState) -> Seat:
        return rules.seat_of(rules.read_board(state).turn)

    def _fullmove(self, state: HyperspaceState) -> int:
        return rules.read_board(state).fullmove_number

    def _in_check(self, state: HyperspaceState) -> bool:
        return rules.read_board(state).is_check()

    def _has_moves(self, state: HyperspaceState) -> bool:
        return rules.has_any_action(state)

    def legal_actions(self, state: HyperspaceState) -> Iterator[Action]:
        """Board moves plus phase-outs with delay 1 and no secret: the public tree (spec 4.6, D = 1)."""
        if self._over(state) is not None:
            return iter(())
        return iter(rules.public_actions(state))

    def perft(self, state: HyperspaceState, depth: int) -> int:
        """Leaf count of the public tree (FastPerft): ``legal_actions`` and ``apply`` without the notation,
        notes and checks of a turn, i.e. the rules' own successor, as the search plays it."""
        if depth == 0:
            return 1
        if rules.outcome(state) is not None:
            return 0
        actions = rules.public_actions(state)
        if depth == 1:
            return len(actions)
        return sum(self.perft(rules.play(state, action)[0], depth - 1) for action in actions)

    def _parse(self, state: HyperspaceState, text: str) -> Action:
        return notation.parse(state, text)

    def describe(self, state: HyperspaceState, action: Action) -> str:
        return notation.describe(state, action)

    def describe_private(self, state: HyperspaceState, action: Action) -> str:
        """The owner's form of ``action``: ``Bc1@3 {f4}`` (with ``keep:new``/``keep:old`` if given)."""
        return notation.describe_private(state, action)

    def seal(self, state: HyperspaceState, action: Action, nonce: str) -> Action:
        if isinstance(action, PhaseOut):
            return PhaseOut(action.piece, action.from_square, action.delay, action.secret, nonce, action.keep)
        return action

    def _move(self, state: HyperspaceState, action: Action) -> tuple[HyperspaceState, str, list[Note]]:
        board = rules.read_board(state)
        seat, turn = rules.seat_of(board.turn), board.fullmove_number
        new, back = rules.play(state, action)
        record = notation.describe(state, action)
        if back is not None:
            record += f" {back.record}"
        notes: list[Note] = []
        if isinstance(action, PhaseOut):
            entry = next(e for e in new.pool if e.seat is seat and e.declared == turn)
            notes.extend(self._declaration_notes(entry))
        if back is not None:
            notes.extend(self._return_notes(back))
        return new, record, notes

    def _check_legal(self, state: HyperspaceState, action: Action) -> None:
        if action.keep not in (None, "new", "old"):
            raise InvalidMoveError(f"invalid keep directive {action.keep!r}: use 'keep new' or 'keep old'")
        if isinstance(action, BoardMove):
            if action.move not in rules.legal_moves(state):
                reason = board_move_error(state, action.move)
                raise IllegalMoveError(f"illegal move {action.move.uci()!r}: {reason}")
            return
        if action.piece not in PIECE_NAMES or action.from_square not in chess.SQUARE_NAMES:
            raise InvalidMoveError(f"invalid phase-out {action.public!r}: name a piece letter and a square")
        if action.secret is not None and action.secret.reveal() not in chess.SQUARE_NAMES:
            raise InvalidMoveError(
                f"invalid phase-out {action.public!r}: the return square is not a square")
        error = phase_out_error(state, action)
        if error is not None:
            raise type(error)(f"{'invalid' if isinstance(error, InvalidMoveError) else 'illegal'} "
                              f"move {action.public!r}: {error}")

    # -- search (capabilities of pbem.engine.capabilities) ----------------------------------------

    def in_check(self, state: HyperspaceState) -> bool:
        return search_hooks.in_check(state)

    def position_key(self, state: HyperspaceState) -> Hashable:
        return search_hooks.position_key(state)

    def evaluate(self, state: HyperspaceState) -> int:
        return evaluate(state)

    def capture_values(self, state: HyperspaceState, action: Action) -> tuple[int, int] | None:
        return search_hooks.capture_values(state, action)

    def successor(self, state: HyperspaceState, action: Action) -> HyperspaceState:
        return search_hooks.successor(state, action)

    def search_actions(self, state: HyperspaceState) -> list[Action]:
        return search_hooks.search_actions(state)

    def seat_state(self, state: HyperspaceState, seat: Seat) -> HyperspaceState:
        """What ``seat``'s computer may read: the opponent's return squares taken out (seat.py)."""
        return seat_view_state(state, seat)

    def complete_action(self, state: HyperspaceState, action: Action) -> Action:
        """A phase-out from the legal list given the computer's own secret return square (returns.py)."""
        return complete_phase_out(state, action) if isinstance(action, PhaseOut) else action

    # -- commitments ------------------------------------------------------------------------------

    def _declaration_notes(self, entry: PoolEntry) -> list[Note]:
        """The public part says nothing about the return square, not even whether one is recorded yet
        (the commitment is published once it binds, after the opponent's next move); the owner gets the
        receipt, or the reminder to record the square before the opponent moves."""
        who = side_title(entry.seat)
        turns = "turn" if entry.delay == 1 else "turns"
        public = (f"{who}'s {entry.name} entered hyperspace for {entry.delay} full {turns} ({entry.public}); "
                  f"it returns at the end of {who}'s turn {entry.returns}. Its commitment is published "
                  f"when {side_title(entry.seat.other)} has moved.")
        if entry.square is None:
            return [
                Note(public, None),
                Note(f"No return square recorded for {entry.public}: send 'secret {entry.declared} "
                     f"{entry.piece}{entry.from_square} SQUARE' before {side_title(entry.seat.other)} moves, "
                     f"or the {PIECE_NAMES[entry.piece]} is forfeited at its return.", entry.seat),
                Note(f"{who} {entry.public}: no return square recorded yet; "
                     f"returns at the end of {who}'s turn {entry.returns}.", Audience.REFEREE),
            ]
        return [Note(public, None), *self._receipts(entry)]

    def _receipts(self, entry: PoolEntry) -> list[Note]:
        assert entry.square is not None
        who = side_title(entry.seat)
        square = entry.square.reveal()
        proof = f"nonce {entry.nonce}; commitment string {entry.commitment()} has SHA-256 {entry.digest()}"
        return [
            Note(f"Receipt: your {entry.public} returns to {square} at the end of your turn {entry.returns}; "
                 f"{proof}", entry.seat),
            Note(f"Receipt: {who} {entry.public} returns to {square} at the end of {who}'s turn "
                 f"{entry.returns}; {proof}", Audience.REFEREE),
        ]

    def _return_notes(self, back: rules.Rematerialisation) -> list[Note]:
        entry = back.entry
        who = side_title(entry.seat)
        piece = PIECE_NAMES[entry.piece]
        if entry.square is None:
            forfeit = Note(f"{who}'s {entry.name} ({entry.public}) is forfeited: "
                           "no return square was recorded in time.", None)
            if not entry.nonce:
                return [forfeit]
            return [forfeit, Note(f"Commitment revealed: no square, nonce {entry.nonce}; "
                                  f"commitment string {entry.commitment()} has SHA-256 {entry.digest()}", None)]
        square = entry.square.reveal()
        occupant = "" if back.occupant is None else PIECE_NAMES[back.occupant.symbol().upper()]
        text = {
            "appeared": f"{who}'s {entry.name} ({entry.public}) returned to {square}.",
            "lost": f"{who}'s {entry.name} ({entry.public}) was lost: {square} holds "
                    f"{side_title(entry.seat.other)}'s {occupant}, and a returning piece captures nothing "
                    "(ruling H3).",
            "kept-old": f"{who}'s {entry.name} ({entry.public}) came back to {square}, where {who}'s own "
                        f"{occupant} stays; the returning {piece} is removed (ruling H2).",
            "kept-new": f"{who}'s {entry.name} ({entry.public}) came back to {square} and replaces {who}'s "
                        f"{occupant}, which is removed (ruling H2).",
        }[back.result]
        reveal = (f"Commitment revealed: square {square}, nonce {entry.nonce}; "
                  f"commitment string {entry.commitment()} has SHA-256 {entry.digest()}")
        return [Note(text, None), Note(reveal, None)]

    def attach_secret(self, state: HyperspaceState, seat: Seat, text: str,
                      nonce: str) -> Transition[HyperspaceState]:
        """Record the return square sent separately as ``secret 12 Bc1 f4`` (spec 4.5).

        Accepted only for ``seat``'s phase-out declared on that turn from that square, while it has
        no square yet and before the opponent's next move: after that the (missing) square is binding.
        """
        self._refuse_if_over(state)
        match = _SECRET_MESSAGE.match(text.split("//")[0].strip().lower())
        if match is None:
            raise InvalidMoveError(f"invalid secret message {notation.quote(text)}: write it as "
                                   "'secret TURN PIECE SQUARE', e.g. 'secret 12 Bc1 f4'")
        turn, letter, origin, delay, square = match.groups()
        wanted = [e for e in state.pool
                  if e.seat is seat and e.declared == int(turn) and e.from_square == origin]
        if not wanted:
            own = ", ".join(f"{e.public} (turn {e.declared})" for e in state.pool if e.seat is seat)
            raise IllegalMoveError(f"no phase-out of yours from {origin} on turn {turn}"
                                   + (f"; yours in hyperspace: {own}" if own else ""))
        entry = wanted[0]
        if (letter and letter.upper() != entry.piece) or (delay and int(delay) != entry.delay):
            raise IllegalMoveError(f"your phase-out from {origin} on turn {turn} was {entry.public}")
        if entry.square is not None:
            raise IllegalMoveError(f"the return square of {entry.public} is already recorded; it is binding")
        board = rules.read_board(state)
        if _ply(board.fullmove_number, rules.seat_of(board.turn)) != _ply(entry.declared, seat) + 1:
            raise IllegalMoveError(
                f"too late: {side_title(seat.other)} has moved since {entry.public} was declared, so its return "
                f"square can no longer be recorded; the {PIECE_NAMES[entry.piece]} is forfeited at its "
                "return")
        target = chess.parse_square(square)
        if entry.piece == "B":
            origin_colour = square_colour(chess.parse_square(entry.from_square))
            if square_colour(target) != origin_colour:
                raise InvalidMoveError(f"a bishop on a {origin_colour} square cannot return to "
                                       f"{square_colour(target)} square {square}")
        new = rules.with_secret(state, entry, square, nonce)
        updated = next(e for e in new.pool if e.seat is seat and e.declared == entry.declared)
        # Only the owner (and the referee) hear of it: no mail to anyone else says a square was recorded.
        return Transition(new, "", tuple(self._receipts(updated)))

    def secrets(self, state: HyperspaceState) -> Mapping[Seat, tuple[str, ...]]:
        found: dict[Seat, list[str]] = {Seat.WHITE: [], Seat.BLACK: []}
        for entry in state.pool:
            if entry.nonce:
                found[entry.seat].append(entry.nonce)
            commitment = entry.commitment()
            if commitment is not None and entry.square is not None:
                found[entry.seat].extend((commitment, f"{{{entry.square.reveal()}}}"))
        return {seat: tuple(strings) for seat, strings in found.items()}

    # -- results and views -------------------------------------------------------------------------

    def _draw_counters(self, state: HyperspaceState) -> tuple[int, int]:
        return rules.read_board(state).halfmove_clock, rules.repetitions(state)

    def _extra_status(self, state: HyperspaceState, over: Outcome | None) -> list[str]:
        board = rules.read_board(state)
        to_move = rules.seat_of(board.turn)
        status = [self._public_line(entry, state) for entry in state.pool]
        due = rules.due_entry(state.pool, to_move, board.fullmove_number)
        if due is not None and over is None:
            status.append(f"{side_title(to_move)}'s {due.public} returns at the end of this turn.")
        return status

    def _private(self, state: HyperspaceState, audience: Recipient) -> list[str]:
        if audience is Audience.PUBLIC:
            return []
        return [self._private_line(entry, audience) for entry in state.pool
                if audience is Audience.REFEREE or entry.seat is audience]

    def _diagram(self, state: HyperspaceState, flipped: bool) -> str:
        return diagram(rules.read_board(state), flipped=flipped)

    def _board(self, state: HyperspaceState, audience: Recipient, highlights: Sequence[Highlight],
               flipped: bool) -> BoardView:
        over = rules.outcome(state) is not None
        return board_view(rules.read_board(state), state.pool, audience, highlights, over=over, flipped=flipped)

    def _highlights(self, before: HyperspaceState, action: Action, after: HyperspaceState) -> Iterable[Highlight]:
        """A board move's from and to; a phase-out's square LEFT (never where it returns); a return's
        square RETURNED once the record reveals it and the piece stands there (not when lost or forfeited)."""
        found: list[Highlight] = []
        if isinstance(action, BoardMove):
            found += [(chess.square_name(action.move.from_square), Mark.MOVE_FROM),
                      (chess.square_name(action.move.to_square), Mark.MOVE_TO)]
        else:
            found.append((action.from_square, Mark.LEFT))
        board = rules.read_board(before)
        back = rules.due_entry(before.pool, rules.seat_of(board.turn), board.fullmove_number)
        if back is not None and back.square is not None:
            square = back.square.reveal()
            piece = rules.read_board(after).piece_at(chess.parse_square(square))
            if piece is not None and piece.color == board.turn:
                found.append((square, Mark.RETURNED))
        return found

    def movetext(self, plies: Sequence[tuple[str, Mapping[str, Any]]],
                 comments: Mapping[int, Sequence[str]] | None = None) -> list[str]:
        """PGN movetext a chess program reads (RecordExport): the turns' records and stored positions."""
        return pgn.movetext_words([pgn.Ply(record, after) for record, after in plies], comments)

    def _public_line(self, entry: PoolEntry, state: HyperspaceState) -> str:
        who = side_title(entry.seat)
        line = f"{who} in hyperspace: {entry.public}, returns at the end of {who}'s turn {entry.returns}"
        if rules.outcome(state) is not None:
            return f"{line} (never: the game is over, ruling H9)"
        board = rules.read_board(state)
        digest = entry.digest()
        if digest is None or _ply(board.fullmove_number, rules.seat_of(board.turn)) <= _ply(entry.declared,
                                                                                            entry.seat) + 1:
            return line  # the square may still be recorded: nothing here may depend on whether it is
        return f"{line}, commitment {digest}"

    def _private_line(self, entry: PoolEntry, audience: Recipient) -> str:
        owner = "your" if audience is entry.seat else f"{side_title(entry.seat)}'s"
        if entry.square is None:
            return f"{side_title(entry.seat)} {entry.public}: no return square recorded"
        return (f"{side_title(entry.seat)} {entry.public} returns to {entry.square.reveal()} at the end of "
                f"{owner} turn {entry.returns}; nonce {entry.nonce}; commitment string {entry.commitment()}")


    # -- storage ----------------------------------------------------------------------------------

    def dump(self, state: HyperspaceState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> HyperspaceState:
        return load_state(data)


#: The class the registry (pbem.variants) plugs in.
VARIANT = HyperspaceChess
