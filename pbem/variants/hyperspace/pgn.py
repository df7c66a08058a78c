"""Hyperspace Chess as PGN: SAN that python-chess reads, hyperspace events in ``[%hs ...]`` comments."""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import chess
import chess.pgn

from pbem.engine.base import Seat
from pbem.engine.notation import comment_words, wrap_words
from pbem.variants.hyperspace import notation, rules
from pbem.variants.hyperspace.model import BoardMove, HyperspaceState, PoolEntry, load_state

__all__ = [
    "EXTENSION_GRAMMAR",
    "VARIANT_TAG",
    "HyperspaceGameBuilder",
    "Ply",
    "board_from_pgn",
    "movetext_words",
    "read_game",
    "wrap_words",
]

#: The value of the PGN ``Variant`` tag; python-chess does not know it, see HyperspaceGameBuilder.
VARIANT_TAG = "Hyperspace Chess"

#: The comment extension, as documented for players and for anyone writing a reader.
EXTENSION_GRAMMAR = """\
Board moves are SAN. A turn that is only a phase-out is the null move "--".
What happens off the board is written in a comment right after the turn it
belongs to, as one command [%hs EVENT ...]; its events apply in order:

  EVENT  = OUT | BACK | MOVE | AWAY
  OUT    = P SQUARE "@" DELAY      the piece leaves SQUARE for DELAY full turns:
                                   Bc1@3 (White), nb8@1 (Black); a rook that
                                   leaves loses its castling right for good
  BACK   = "&" P SQUARE [ "!" RESULT ]
                                   the return at the end of that turn:
                                   &Bf4        the piece appears on SQUARE
                                   &Rd1!kept-new  it replaces its own piece there
                                   &Rd1!kept-old  its own piece stays; board unchanged
                                   &qd5!lost   an enemy piece holds SQUARE; board unchanged
                                   &Bc1!forfeited  no square was recorded; SQUARE is
                                               the one it left; board unchanged
  MOVE   = ">" UCI                 only after "--": a board move python-chess would
                                   call illegal because only its same-turn return
                                   shields the king (ruling H4): take the null move
                                   back and play UCI instead, e.g. -- {[%hs >a2a3 &Ng3]}
  AWAY   = "?" P SQUARE "@" DELAY ":" TURN
                                   in the last comment: a piece still in hyperspace
                                   when the record was written; it left SQUARE and
                                   returns at the end of its owner's turn TURN (its
                                   return square stays secret); board unchanged
  P      = N B R Q (White) | n b r q (Black), as in FEN

The check sign "+" or "#" of a SAN move counts the same-turn return.

After every comment of events comes a second one, [%fen FEN], with the
position those events leave (pieces in hyperspace are off the board): a
reader that does not apply the events can set up that position and go on
reading the SAN from there.

Any other comment is a player's note, {HANDLE: TEXT}, after the turn it
was sent with (before the first move: sent before it); a "}" in a note is
written ")" and "[%" is written "[ %".
"""

_COMMAND = re.compile(r"\[%hs\s+([^\]]*)\]")
_EVENT = re.compile(r"""
    (?P<out>[NBRQnbrq])(?P<out_square>[a-h][1-8])@\d+
    |&(?P<back>[NBRQnbrq])(?P<back_square>[a-h][1-8])(?:!(?P<result>lost|kept-old|kept-new|forfeited))?
    |>(?P<uci>[a-h][1-8][a-h][1-8][nbrq]?)
    |\?[NBRQnbrq][a-h][1-8]@\d+:\d+
    """, re.VERBOSE)
_WIDTH = 79


@dataclass(frozen=True, slots=True)
class Ply:
    """One turn as stored: its public record (``Nb1-c3 &Bf4+``) and the engine dump of the position after it."""

    record: str
    state_after: Mapping[str, Any]


def _pool_key(entry: PoolEntry) -> tuple[Seat, int, str]:
    # Not the entry itself: a late 'secret' message changes square and nonce of the same phase-out.
    return entry.seat, entry.declared, entry.from_square


def _symbol(letter: str, color: chess.Color) -> str:
    return letter.upper() if color == chess.WHITE else letter.lower()


def _lift(board: chess.Board, square: chess.Square) -> None:
    board.remove_piece_at(square)
    board.castling_rights &= ~chess.BB_SQUARES[square]  # H5: a phased rook never castles again


def _replace(board: chess.Board, square: chess.Square, piece: chess.Piece) -> None:
    board.set_piece_at(square, piece)
    board.castling_rights &= ~chess.BB_SQUARES[square]  # the unmoved rook that stood there is gone


def _return_event(entry: PoolEntry, mid: chess.Board, after: chess.Board, record: str) -> tuple[str, bool]:
    """The BACK event of ``entry`` and whether it puts the piece on the board."""
    color = rules.color_of(entry.seat)
    letter = _symbol(entry.piece, color)
    if entry.square is None:
        return f"&{letter}{entry.from_square}!forfeited", False
    # Revealed now: the entry leaves the pool on this very turn, whose public record names the square.
    name = entry.square.reveal()
    square = chess.parse_square(name)
    piece = chess.Piece.from_symbol(letter)
    occupant = mid.piece_at(square)
    if occupant is None:
        return f"&{letter}{name}", True
    if occupant.color != color:
        return f"&{letter}{name}!lost", False
    # Same piece type on both sides of a keep: the board cannot tell, the public record can.
    replaced = after.piece_at(square) == piece and (occupant != piece or "!kept-new" in record)
    return (f"&{letter}{name}!kept-new", True) if replaced else (f"&{letter}{name}!kept-old", False)


def _same_position(reader: chess.Board, after: chess.Board) -> bool:
    return (reader.board_fen() == after.board_fen() and reader.turn == after.turn
            and reader.clean_castling_rights() == after.clean_castling_rights())


def _ply_words(state: HyperspaceState, after_state: HyperspaceState, record: str,
               reader: chess.Board) -> tuple[str, list[str]]:
    """The movetext token of one turn and its events; ``reader`` is brought to the position after it."""
    words = record.split()
    if not words:
        raise ValueError("empty move record")
    action = notation.parse(state, words[0])
    before = rules.board_of(state)
    after = rules.board_of(after_state)
    color = before.turn
    mid = before.copy(stack=False)  # after the move or phase-out, before the return
    events: list[str] = []
    if isinstance(action, BoardMove):
        move = action.move
        mid.push(move)
        if move in reader.legal_moves:
            token = reader.san(move).rstrip("+#")
            reader.push(move)
        else:
            # H4: legal only because the return shields the king; python-chess would reject the SAN.
            token = "--"
            events.append(f">{move.uci()}")
            reader.push(move)
    else:
        token = "--"
        square = chess.parse_square(action.from_square)
        events.append(f"{_symbol(action.piece, color)}{action.from_square}@{action.delay}")
        mid.remove_piece_at(square)
        reader.push(chess.Move.null())
        _lift(reader, square)
    kept = {_pool_key(e) for e in after_state.pool}
    gone = [e for e in state.pool if _pool_key(e) not in kept]
    if len(gone) > 1 or any(e.seat is not rules.seat_of(color) for e in gone):
        raise ValueError(f"record {record!r}: more than one return, or one of the side not moving")
    for entry in gone:
        event, places = _return_event(entry, mid, after, record)
        events.append(event)
        if places:
            square = chess.parse_square(event[2:4])
            _replace(reader, square, chess.Piece.from_symbol(event[1]))
    if not _same_position(reader, after):
        raise ValueError(f"record {record!r}: the PGN board {reader.fen()} is not the engine's {after.fen()}")
    if token != "--":
        over = rules.outcome(after_state)
        if over is not None and over.reason == "checkmate":
            token += "#"
        elif after.is_check():
            token += "+"
    return token, events


def _comment(events: Sequence[str]) -> list[str]:
    """A ``[%hs ...]`` comment as wrap units: whole when it fits a line, else split between events."""
    text = "{[%hs " + " ".join(events) + "]}"
    if len(text) <= _WIDTH:
        return [text]
    return ["{[%hs " + events[0], *events[1:-1], events[-1] + "]}"] if len(events) > 1 else [text]


def _fen_comment(reader: chess.Board) -> list[str]:
    """``{[%fen FEN]}``: the position after a hyperspace event, for readers that do not apply the events.

    Split at the FEN's spaces into wrap units (a comment may span lines); it names no secret, since a
    piece in hyperspace is simply off the board.
    """
    board, *fields = reader.fen().split()
    return ["{[%fen", board, *fields[:-1], fields[-1] + "]}"]


def movetext_words(plies: Sequence[Ply], comments: Mapping[int, Sequence[str]] | None = None) -> list[str]:
    """The movetext (without result) of the game made of ``plies``, from the initial position.

    ``comments`` (texts keyed by the ply they follow, 0: before the first move) are written as brace
    comments after that ply's own comments of events (see comment_words).
    Raises ValueError when a record does not fit its stored position (a bug, or data from
    before positions were kept): the caller should then fall back to the plain record.
    """
    comments = comments or {}
    state = rules.initial_state()
    reader = chess.Board()  # the board a reader of this PGN holds, events applied
    words: list[str] = [word for text in comments.get(0, ()) for word in comment_words(text)]
    number_black = True  # a black turn needs "N..." at the start or after a comment
    for index, ply in enumerate(plies, start=1):
        after_state = load_state(ply.state_after)
        before = rules.board_of(state)
        token, events = _ply_words(state, after_state, ply.record, reader)
        if before.turn == chess.WHITE:
            words.append(f"{before.fullmove_number}.")
        elif number_black:
            words.append(f"{before.fullmove_number}...")
        words.append(token)
        number_black = bool(events) or bool(comments.get(index))
        if events:
            words.extend(_comment(events))
            words.extend(_fen_comment(reader))
        words.extend(word for text in comments.get(index, ()) for word in comment_words(text))
        state = after_state
    away = [f"?{_symbol(e.piece, rules.color_of(e.seat))}{e.from_square}@{e.delay}:{e.returns}" for e in state.pool]
    if away:
        words.extend(_comment(away))
    return words


class HyperspaceGameBuilder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """python-chess's GameBuilder that also applies the ``[%hs ...]`` events to the board it reads on.

    read_game parses each SAN on the board it then passes to visit_board, so events applied to
    that board in visit_comment are seen by the SAN of every later move. The game tree it builds
    holds the moves only: replay ``board`` (the final position), not ``game.end().board()``.
    """

    def begin_game(self) -> None:
        super().begin_game()
        self.board: chess.Board | None = None

    def visit_board(self, board: chess.Board) -> None:
        self.board = board

    def visit_comment(self, comment: str) -> None:
        super().visit_comment(comment)
        if self.board is None:
            return
        for command in _COMMAND.finditer(comment):
            for word in command.group(1).split():
                try:
                    self._apply(self.board, word)
                except ValueError as error:
                    self.handle_error(error)

    def handle_error(self, error: Exception) -> None:
        # python-chess knows no "Hyperspace Chess" board class and falls back to chess.Board: right here.
        if str(error) == f"unsupported variant: {VARIANT_TAG}":
            return
        super().handle_error(error)

    @staticmethod
    def _apply(board: chess.Board, word: str) -> None:
        match = _EVENT.fullmatch(word)
        if match is None:
            raise ValueError(f"invalid hyperspace event {word!r}")
        if match["out"]:
            square = chess.parse_square(match["out_square"])
            if board.piece_at(square) != chess.Piece.from_symbol(match["out"]):
                raise ValueError(f"hyperspace event {word!r}: no such piece on {match['out_square']}")
            _lift(board, square)
        elif match["back"]:
            square = chess.parse_square(match["back_square"])
            piece = chess.Piece.from_symbol(match["back"])
            occupant = board.piece_at(square)
            result = match["result"]
            if result is None:
                if occupant is not None:
                    raise ValueError(f"hyperspace event {word!r}: {match['back_square']} is not empty")
                board.set_piece_at(square, piece)
            elif result == "kept-new":
                if occupant is None or occupant.color != piece.color:
                    raise ValueError(f"hyperspace event {word!r}: no own piece on {match['back_square']}")
                _replace(board, square, piece)
        elif match["uci"]:
            if not board.move_stack or board.peek() != chess.Move.null():
                raise ValueError(f"hyperspace event {word!r}: only allowed after a null move")
            board.pop()
            move = chess.Move.from_uci(match["uci"])
            if not board.is_pseudo_legal(move):
                raise ValueError(f"hyperspace event {word!r}: not a move in {board.fen()}")
            board.push(move)


def read_game(text: str) -> tuple[chess.pgn.Game, chess.Board]:
    """The first game of ``text`` as python-chess reads it, and the final board with the events applied.

    Problems are in ``game.errors``, as with chess.pgn.read_game.
    """
    builders: list[HyperspaceGameBuilder] = []

    def visitor() -> HyperspaceGameBuilder:
        builders.append(HyperspaceGameBuilder())
        return builders[-1]

    game = chess.pgn.read_game(io.StringIO(text), Visitor=visitor)
    if game is None or not builders or builders[-1].board is None:
        raise ValueError("no game found in the PGN text")
    return game, builders[-1].board


def board_from_pgn(text: str) -> chess.Board:
    """The final position of a Hyperspace Chess PGN; ValueError names the first problem python-chess found."""
    game, board = read_game(text)
    if game.errors:
        raise ValueError(f"unreadable hyperspace PGN: {game.errors[0]}")
    return board
