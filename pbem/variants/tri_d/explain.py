"""Why a tri-d move is illegal, in words a player can act on (the reasons go verbatim into mails)."""

from __future__ import annotations

from pbem.variants.tri_d.geometry import ADJACENT
from pbem.variants.tri_d.model import (
    BLACK_BIT,
    BOARD,
    BOX,
    CASTLE_K,
    CASTLE_Q,
    COLOR_NAMES,
    EP,
    PAWN,
    PIECE_NAMES,
    PINS,
    UNMOVED,
    Move,
    TriDState,
    color_of,
    level_of,
    square_name,
    type_of,
)
from pbem.variants.tri_d.rules import (
    board_cargo_error,
    castling_error,
    geometry,
    in_check,
    is_promotion_square,
    legal_moves,
    pseudo_moves,
)

__all__ = ["explain", "piece_at_text"]


def piece_at_text(state: TriDState, p: int) -> str:
    code = state.board[p]
    return f"{COLOR_NAMES[color_of(code)]}'s {PIECE_NAMES[type_of(code)]}"


def _king_reason(state: TriDState) -> str:
    if in_check(state):
        return "your king is in check and this move does not end the check"
    return "it would leave your king in check"


def _pins_text(indices: list[int] | tuple[int, ...]) -> str:
    return ", ".join(PINS[i].name for i in indices)


def _board_reason(state: TriDState, move: Move) -> str:
    held = {pin: owner for pin, owner in state.boards}
    source, target = PINS[move.src].name, PINS[move.dst].name
    if move.src not in held:
        return f"there is no attack board at {source} (they stand at {_pins_text(sorted(held))})"
    if held[move.src] != state.turn:
        return f"the attack board at {source} belongs to {COLOR_NAMES[held[move.src]]}"
    cargo = board_cargo_error(state.board, move.src, state.turn)
    if cargo is not None:
        return cargo
    if move.dst not in ADJACENT[move.src]:
        return (f"{target} is not adjacent to {source}; from {source} an attack board can move to "
                f"{_pins_text(ADJACENT[move.src])}")
    if move.dst in held:
        return f"another attack board already stands at {target}"
    cells = PINS[move.src].cells
    carried = next((i for i, c in enumerate(cells) if state.board[c]), -1)
    lands = PINS[move.dst].cells[carried] if carried >= 0 else -1
    promotes = lands >= 0 and is_promotion_square(lands, state.turn)
    if promotes and not move.promo:
        return (f"the pawn it carries lands on {square_name(lands)}, its last rank, and must promote: "
                "add =Q, =R, =B or =N")
    if move.promo and not promotes:
        return "only a carried pawn that reaches its last rank promotes; drop the =piece"
    return _king_reason(state)


def explain(state: TriDState, move: Move) -> str:
    """A reason why ``move`` is not legal in ``state`` (the caller knows that it is not)."""
    if move.kind == BOARD:
        return _board_reason(state, move)
    geo = geometry(state)
    if move.kind in (CASTLE_K, CASTLE_Q):
        reason = castling_error(state.board, state.turn, move.kind, state.fullmove, state.rules, geo)
        return reason or _king_reason(state)
    src, dst = move.src, move.dst
    if not 0 <= src < BOX or not 0 <= dst < BOX:
        return "no such square"
    if not geo.surface[src]:
        return f"{square_name(src)} is an implied position (no board surface there), so no piece stands on it"
    code = state.board[src]
    if not code:
        return f"there is no piece on {square_name(src)}"
    own = BLACK_BIT if state.turn else 0
    name = PIECE_NAMES[type_of(code)]
    if code & BLACK_BIT != own:
        return f"the {name} on {square_name(src)} is {COLOR_NAMES[color_of(code)]}'s, not yours"
    if not geo.surface[dst]:
        return (f"{square_name(dst)} is an implied position (no board surface there): pieces may pass "
                "through it but never stop on it")
    target = state.board[dst]
    if target and target & BLACK_BIT == own:
        return f"{square_name(dst)} is occupied by your own {PIECE_NAMES[type_of(target)]}"
    if move.promo and type_of(code) != PAWN:
        return f"only a pawn promotes, and the piece on {square_name(src)} is a {name}"
    pseudo = [m for m in pseudo_moves(state.board, state.boards, state.turn, state.ep, state.fullmove,
                                      state.rules, geo) if m.src == src and m.dst == dst and m.kind != BOARD]
    if pseudo:
        if any(m.promo for m in pseudo) and not move.promo:
            return "a pawn reaching its last rank must promote: add =Q, =R, =B or =N"
        if move.promo and not any(m.promo for m in pseudo):
            return f"{square_name(dst)} is not a promotion square for this pawn"
        if move.kind == EP and not any(m.kind == EP for m in pseudo):
            return "that is not an en passant capture"
        return _king_reason(state)
    if type_of(code) == PAWN and not code & UNMOVED and dst - src == (12 if state.turn == 0 else -12) \
            and level_of(dst) == level_of(src):
        return "this pawn has already moved, so it cannot step two squares"
    if type_of(code) == PAWN and move.kind == EP:
        return "no en passant capture is possible there"
    others = sorted(f"{square_name(m.dst)}" for m in legal_moves(state) if m.src == src and m.kind != BOARD)
    unique = list(dict.fromkeys(others))
    where = f"its legal moves go to {', '.join(unique)}" if unique else "it has no legal move"
    return f"the {name} on {square_name(src)} cannot move to {square_name(dst)} ({where})"
