"""Why a Space Chess move is refused: the reasons quoted in error mails (shape, level, castling, S-rulings)."""

from __future__ import annotations

from pbem.variants.space_chess.geometry import BISHOP_RAYS, PAWN_CAPTURES, ROOK_RAYS, markings
from pbem.variants.space_chess.model import (
    BISHOP,
    KING,
    KNIGHT,
    PAWN,
    PIECE_NAMES,
    ROOK,
    WHITE,
    Options,
    SpaceState,
    square,
    square_name,
)
from pbem.variants.space_chess.rules import Position, _castling_squares, _pseudo, attacked, legal_moves, side_name

__all__ = ["castling_error", "explain"]


# -- reasons for refusals ---------------------------------------------------------------------------


def _piece_phrase(piece: int) -> str:
    return PIECE_NAMES[abs(piece)]


def _star_list(options: Options) -> str:
    return ", ".join(markings(options).star_names)


def castling_error(state: SpaceState, kingside: bool, transfer: bool) -> str:
    """Why the castling asked for is not legal (the first condition that fails)."""
    us = state.turn
    board = state.board
    name = "kingside" if kingside else "queenside"
    origin = square(0 if us == WHITE else 2, 0 if us == WHITE else 7, 4)
    if board[origin] != us * KING or not state.unmoved >> origin & 1:
        return "the king has already moved, so it cannot castle (ruling S16)"
    rook, landing, rook_landing, between = _castling_squares(origin, kingside)
    if board[rook] != us * ROOK or not state.unmoved >> rook & 1:
        return f"the {name} rook has already moved or is gone (ruling S16)"
    if any(board[s] for s in between):
        return f"there are pieces between king and rook on level {origin // 64 + 1}"
    if attacked(board, origin, -us):
        return "the king is in check and may not castle out of it"
    if attacked(board, rook_landing, -us):
        return f"the king would pass through check on {square_name(rook_landing)}"
    if attacked(board, landing, -us):
        return f"the king would castle into check on {square_name(landing)}"
    if transfer:
        step = 64 * us
        for s in (landing + step, rook_landing + step):
            if board[s]:
                return f"{square_name(s)} is occupied, so king and rook cannot transfer together (ruling S6)"
        return f"the king would be in check on {square_name(landing + step)} after the transfer (ruling S14)"
    return "it would leave the king in check"


def _shape_error(state: SpaceState, origin: int, landing: int) -> str:
    """Why the piece on ``origin`` cannot arrive on ``landing`` on its own level."""
    board, us = state.board, state.turn
    piece = board[origin]
    kind = abs(piece)
    name = _piece_phrase(piece)
    where, there = square_name(origin), square_name(landing)
    occupant = board[landing]
    if landing == origin:
        return "a move must go to another square"
    if occupant * us > 0:
        return (f"your own {_piece_phrase(occupant)} stands on {there}; a piece moves on its own level first "
                f"and transfers only at the end of the move (ruling S3)")
    if kind == PAWN:
        forward = 8 * us
        if landing in PAWN_CAPTURES[0 if us == WHITE else 1][origin]:
            return (f"a pawn moves diagonally only to capture, and {there} holds no enemy piece: "
                    f"captures happen only on the mover's own level")
        if landing in (origin + forward, origin + 2 * forward) and landing >> 6 == origin >> 6:
            if landing == origin + 2 * forward and not state.unmoved >> origin & 1:
                return "only a pawn's first move may be a double step"
            return f"the pawn is blocked: {there if occupant else square_name(origin + forward)} is occupied"
        return f"a pawn cannot move from {where} to {there}"
    if kind == KNIGHT:
        return f"a knight cannot move from {where} to {there}"
    if kind == KING:
        return f"a king moves one square (or castles): it cannot go from {where} to {there}"
    rays = ROOK_RAYS[origin] if kind == ROOK else BISHOP_RAYS[origin] if kind == BISHOP else (
        ROOK_RAYS[origin] + BISHOP_RAYS[origin])
    for ray in rays:
        if landing in ray:
            blocker = next(s for s in ray if board[s])
            return f"the way from {where} to {there} is blocked on level {origin // 64 + 1} (at {square_name(blocker)})"
    return f"a {name} cannot move from {where} to {there}"


def explain(state: SpaceState, origin: int, landing: int, final_level: int | None, promotion: int | None) -> str:
    """Why no legal move goes from ``origin`` via ``landing`` (same level) to ``final_level`` (0..2 or any)."""
    board, us = state.board, state.turn
    piece = board[origin]
    where = square_name(origin)
    if piece == 0:
        return f"there is no piece on {where}"
    if piece * us < 0:
        return f"the {_piece_phrase(piece)} on {where} is {side_name(-us)}'s, not yours"
    pos = Position(state)
    king = pos.king(us)
    check = attacked(pos.board, king, -us)
    moves, stays = _pseudo(pos, check)
    candidates = [m for m in moves + stays if m.origin == origin and m.landing == landing]
    if abs(piece) == KING and abs((landing & 7) - (origin & 7)) == 2 and landing >> 6 == origin >> 6:
        transfer = final_level is not None and final_level != origin >> 6
        return castling_error(state, (landing & 7) == 6, transfer)
    if not candidates:
        return _shape_error(state, origin, landing)
    if promotion is not None:
        if not any(m.promotion for m in candidates):
            if state.options.promotion == "enemy-level" and (landing & 63) >> 3 == (7 if us == WHITE else 0):
                return (f"pawns promote only on the enemy level, level {3 if us == WHITE else 1} "
                        "(option promotion=enemy-level)")
            return "only a pawn that reaches the last rank promotes"
        candidates = [m for m in candidates if m.promotion == promotion]
    wanted = [m for m in candidates if final_level is None or m.final >> 6 == final_level]
    legal = [m for m in legal_moves(state) if m.origin == origin and m.landing == landing]
    allowed = ", ".join(sorted({square_name(m.final) for m in legal}))
    hint = f" (possible: {allowed})" if allowed else ""
    if not wanted and final_level is not None:
        target = (landing & 63) + 64 * final_level
        first = state.unmoved >> origin & 1
        kind = abs(piece)
        if board[target] and target != origin:
            return (f"{square_name(target)} is occupied, and a piece transfers only to an empty square "
                    "(ruling S4)" + hint)
        if first:
            return ("on its first move a piece transfers toward the middle level: one level, or one or two "
                    f"from a star{'' if state.options.two_level == 'all' or kind == PAWN else ' (pawns only)'}"
                    + hint)
        if kind == KING and markings(state.options).king_symbol[landing]:
            return "from a king symbol the king changes only one level" + hint
        return (f"a piece changes level only by ending its move on a star ({_star_list(state.options)})"
                + (", a king also on a king symbol (f1, f8)" if kind == KING else "") + hint)
    stay = [m for m in wanted if m in stays]
    if stay and len(stay) == len(wanted):
        if not check:
            return ("on its first move a piece must transfer toward the middle level when the square there is "
                    "empty; it may stay only to get out of check (ruling S5)" + hint)
        if state.options.first_move_stay == "last-resort":
            return ("on its first move a piece may stay on its level only when that is the only way out of "
                    "check (ruling S5)" + hint)
    king_name = square_name(king)
    if check:
        return f"your king on {king_name} is in check, and this move does not end the check" + hint
    if abs(piece) == KING:
        return "the king would be in check there (attacks stay on their level, ruling S13)" + hint
    return f"it would leave your king on {king_name} in check" + hint
