"""Hyperspace Chess notation: reading a player's move line and writing canonical and private forms."""

from __future__ import annotations

import re

import chess

from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, MoveError
from pbem.engine.notation import castling_side, move_error, strip_annotation, strip_comment_and_number, typography
from pbem.engine.secret import Secret
from pbem.variants.hyperspace.explain import board_move_error, phase_out_error
from pbem.variants.hyperspace.model import PIECE_NAMES, Action, BoardMove, HyperspaceState, Keep, PhaseOut
from pbem.variants.hyperspace.rules import legal_moves, read_board

__all__ = ["describe", "describe_private", "parse", "quote"]

_KEEP = re.compile(r"(?:^|\s)keep\s*[:=-]?\s*(new|old)(?=\s|$)")
_SECRET = re.compile(r"\{([^}]*)\}")

_PHASE = re.compile(r"^(?:phase\s+)?([kqrbnp])?\s*([a-h][1-8])\s*(?:@\s*|\s+)(\d+)(?:\s+([a-h][1-8]))?$")
_LONG = re.compile(r"^([kqrbnp])?([a-h][1-8])\s*[-x:]?\s*([a-h][1-8])\s*(?:=?\s*([qrbn]))?(?:\s*e\.?p\.?)?$")
# Case-insensitive SAN: "b" is both the b-file and the bishop, so both readings are tried (see parse).
_SAN_PIECE = re.compile(r"^([kqrbnp])([a-h])?([1-8])?x?([a-h][1-8])(?:=?([qrbn]))?$")
_SAN_PAWN = re.compile(r"^([a-h])?([1-8])?x?([a-h][1-8])(?:=?([qrbn]))?$")
#: One reading of a SAN text: piece type, from-file, from-rank, to-square, promotion.
_Reading = tuple[chess.PieceType, int | None, int | None, chess.Square, chess.PieceType | None]


def quote(text: str) -> str:
    """The input as quoted in error messages, with any secret square blanked out.

    Error mails go to the mover only, but a literal ``{f4}`` could still match the
    opponent's secret of the same square and make the mail layer refuse the mail.
    """
    return repr(_SECRET.sub("{...}", text.strip()))


def describe(state: HyperspaceState, action: Action) -> str:
    """Canonical public notation; a phase-out never shows its return square."""
    if isinstance(action, PhaseOut):
        return action.public
    board = read_board(state)
    move = action.move
    if board.is_castling(move):
        return "O-O" if board.is_kingside_castling(move) else "O-O-O"
    piece = board.piece_at(move.from_square)
    letter = piece.symbol().upper() if piece else "?"
    sep = "x" if board.is_capture(move) else "-"
    promotion = f"={chess.piece_symbol(move.promotion).upper()}" if move.promotion else ""
    return f"{letter}{chess.square_name(move.from_square)}{sep}{chess.square_name(move.to_square)}{promotion}"


def describe_private(state: HyperspaceState, action: Action) -> str:
    """The owner's form, e.g. ``Bc1@3 {f4}``, with the keep directive when there is one."""
    text = describe(state, action)
    if isinstance(action, PhaseOut) and action.secret is not None:
        text += f" {{{action.secret.reveal()}}}"
    if action.keep is not None:
        text += f" keep:{action.keep}"
    return text


def _error(kind: type[MoveError], text: str, reason: str) -> MoveError:
    return move_error(kind, text, reason, quote)


def parse(state: HyperspaceState, text: str) -> Action:
    """One move line (a board move or a phase-out, optional secret and keep) as a legal action."""
    raw = strip_comment_and_number(typography(text))
    line = raw.lower()
    keep: Keep | None = None
    keeps = _KEEP.findall(line)
    if len(keeps) > 1:
        raise _error(InvalidMoveError, text, "give the keep directive once: 'keep new' or 'keep old'")
    if keeps:
        keep = "new" if keeps[0] == "new" else "old"
        line = _KEEP.sub(" ", line).strip()
    secrets = [s.strip() for s in _SECRET.findall(line)]
    line = strip_annotation(_SECRET.sub(" ", line).strip()).strip()
    if len(secrets) > 1:
        raise _error(InvalidMoveError, text, "give one return square, e.g. 'Bc1@3 {f4}'")
    secret = secrets[0] if secrets else None
    if secret is not None and secret not in chess.SQUARE_NAMES:
        raise _error(InvalidMoveError, text, "the return square in braces must be a square such as {f4}")
    if not line:
        raise _error(InvalidMoveError, text, "no move found; write e.g. 'Pe2-e4', 'Nf3' or 'Bc1@3 {f4}'")
    match = _PHASE.match(line)
    if match:
        return _parse_phase(state, text, match, secret, keep)
    if secret is not None:
        raise _error(InvalidMoveError, text, "a return square in braces only goes with a phase-out such as "
                     "'Bc1@3 {f4}'; for an earlier phase-out send 'secret TURN PIECE SQUARE'")
    kingside = castling_side(line)
    if kingside is not None:
        return BoardMove(_parse_castling(state, text, kingside=kingside), keep)
    match = _LONG.match(line)
    if match:
        return BoardMove(_parse_long(state, text, match), keep)
    # An upper-case B can only be the bishop, so "Bc4" is never read as a pawn capture from the b-file.
    return BoardMove(_parse_san(state, text, line, bishop_only=raw.startswith("B")), keep)


def _parse_phase(state: HyperspaceState, text: str, match: re.Match[str], secret: str | None,
                 keep: Keep | None) -> PhaseOut:
    letter, origin, delay, bare = match.groups()
    if bare is not None:
        if secret is not None and secret != bare:
            raise _error(InvalidMoveError, text, "two different return squares given")
        secret = bare
    if letter is None:
        piece = read_board(state).piece_at(chess.parse_square(origin))
        letter = piece.symbol() if piece else "n"  # an empty square is reported by the legality check
    sealed = None if secret is None else Secret(secret)
    action = PhaseOut(letter.upper(), origin, int(delay), sealed, "", keep)
    error = phase_out_error(state, action)
    if error is not None:
        raise _error(type(error), text, str(error))
    return action


def _parse_castling(state: HyperspaceState, text: str, *, kingside: bool) -> chess.Move:
    board = read_board(state)
    for move in legal_moves(state):
        if board.is_castling(move) and board.is_kingside_castling(move) == kingside:
            return move
    king = board.king(board.turn)
    rank = 0 if board.turn == chess.WHITE else 7
    origin = king if king is not None else chess.square(4, rank)
    wanted = chess.Move(origin, chess.square(6 if kingside else 2, rank))
    raise _error(IllegalMoveError, text, board_move_error(state, wanted))


def _parse_long(state: HyperspaceState, text: str, match: re.Match[str]) -> chess.Move:
    letter, origin, target, promo = match.groups()
    board = read_board(state)
    from_square, to_square = chess.parse_square(origin), chess.parse_square(target)
    promotion = chess.PIECE_SYMBOLS.index(promo) if promo else None
    piece = board.piece_at(from_square)
    if piece is not None and piece.color == board.turn and letter and piece.symbol().lower() != letter:
        raise _error(IllegalMoveError, text,
                     f"there is a {PIECE_NAMES[piece.symbol().upper()]} on {origin}, "
                     f"not a {PIECE_NAMES[letter.upper()]}")
    found = [m for m in legal_moves(state) if m.from_square == from_square and m.to_square == to_square
             and (promotion is None or m.promotion == promotion)]
    if len(found) > 1:
        raise _error(AmbiguousMoveError, text, "say what the pawn promotes to: add =Q, =R, =B or =N")
    if not found:
        reason = board_move_error(state, chess.Move(from_square, to_square, promotion))
        raise _error(IllegalMoveError, text, reason)
    return found[0]


def _parse_san(state: HyperspaceState, text: str, line: str, *, bishop_only: bool) -> chess.Move:
    readings: list[_Reading] = []
    match = _SAN_PIECE.match(line)
    if match:
        letter, file, rank, target, promo = match.groups()
        readings.append(_reading(chess.PIECE_SYMBOLS.index(letter), file, rank, target, promo))
    match = None if bishop_only else _SAN_PAWN.match(line)
    if match:
        file, rank, target, promo = match.groups()
        readings.append(_reading(chess.PAWN, file, rank, target, promo))
    if not readings:
        raise _error(InvalidMoveError, text,
                     "not a move; write e.g. 'Pe2-e4', 'Ng1-f3', 'O-O', 'Nf3' or 'Bc1@3 {f4}'")
    board = read_board(state)
    found = _san_matches(board, legal_moves(state), readings)
    if len(found) == 1:
        return found[0]
    if not found:
        # Explain with the nearest pseudo-legal move when there is one (a pin, a check to answer).
        near = _san_matches(board, tuple(board.generate_pseudo_legal_moves()), readings)
        if len(near) == 1:
            raise _error(IllegalMoveError, text, board_move_error(state, near[0]))
        raise _error(IllegalMoveError, text, "none of your pieces can make that move (a piece in hyperspace "
                     "is not on the board); the long form such as 'Ng1-f3' gives a precise reason")
    if {m.promotion for m in found} != {None} and len({(m.from_square, m.to_square) for m in found}) == 1:
        raise _error(AmbiguousMoveError, text, "say what the pawn promotes to: add =Q, =R, =B or =N")
    options = " or ".join(sorted(describe(state, BoardMove(m)) for m in found))
    example = options.split()[0]
    raise _error(AmbiguousMoveError, text, f"it could be {options}; write the from-square, e.g. {example!r}")


def _san_matches(board: chess.Board, moves: tuple[chess.Move, ...],
                 readings: list[_Reading]) -> list[chess.Move]:
    found: list[chess.Move] = []
    for piece_type, file_index, rank_index, to_square, promotion in readings:
        for move in moves:
            if (board.piece_type_at(move.from_square) != piece_type or move.to_square != to_square
                    or (file_index is not None and chess.square_file(move.from_square) != file_index)
                    or (rank_index is not None and chess.square_rank(move.from_square) != rank_index)
                    or (promotion is not None and move.promotion != promotion)):
                continue
            # A SAN pawn move without a file is a push: a bare "d5" never means a capture onto d5.
            if piece_type == chess.PAWN and file_index is None and \
                    chess.square_file(move.from_square) != chess.square_file(to_square):
                continue
            if move not in found:
                found.append(move)
    return found


def _reading(piece_type: chess.PieceType, file: str | None, rank: str | None, target: str,
             promo: str | None) -> _Reading:
    return (
        piece_type,
        None if file is None else ord(file) - ord("a"),
        None if rank is None else int(rank) - 1,
        chess.parse_square(target),
        None if promo is None else chess.PIECE_SYMBOLS.index(promo),
    )
