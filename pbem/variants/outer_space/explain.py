"""Why a move named by its squares is not legal: the reason quoted to the player."""

from __future__ import annotations

from pbem.engine.base import Seat
from pbem.variants.outer_space.geometry import IS_BH, SHIP_STEPS
from pbem.variants.outer_space.model import EMPTY, HYPER_BH, NAMES, PIECE_NAMES, OuterSpaceState
from pbem.variants.outer_space.rules import PASS_MOVE, describe_piece, legal_moves, obligations, zone_sources

__all__ = ["duty_text", "pass_refusal", "refusal"]


def _coords(index: int) -> tuple[int, int]:
    return index % 5, index // 5


def duty_text(state: OuterSpaceState, square: int, duty: str) -> str:
    """``your Galaxy on 2c has been in hyperspace for 3 turns and must move to 2b``."""
    name = PIECE_NAMES[state.board[square].upper()]
    age = state.ages[square - 40]
    action = "move to 2b" if duty == "enter-bh" else "leave hyperspace"
    return f"your {name} on {NAMES[square]} has been in hyperspace for {age} turns and must {action}"


def pass_refusal(state: OuterSpaceState) -> str:
    if state.nebula_moved[0 if state.turn is Seat.WHITE else 1]:
        return "you may pass only when you have no legal move but Nebula moves (rulings A4, A16); you have other moves"
    return "you may pass only on the turn after a Nebula move, and only when no other move is legal (ruling A4)"


def refusal(state: OuterSpaceState, origin: int, target: int) -> str:
    """The reason the move from ``origin`` to ``target`` is illegal (the caller knows it is)."""
    board = state.board
    white = state.turn is Seat.WHITE
    legal = legal_moves(state)
    if legal == (PASS_MOVE,):
        return "you must pass: your Nebula moved last turn and you have no other legal move (rulings A4, A16)"
    cell = board[origin]
    if cell == EMPTY:
        return f"there is no piece on {NAMES[origin]}"
    if cell.isupper() != white:
        return f"the piece on {NAMES[origin]} is {describe_piece(cell)}, not yours"
    due = [o for o in obligations(state) if o.possible]
    if due and not any(m[0] == origin and m[1] == target for m in legal):
        duties = " and ".join(duty_text(state, o.square, o.duty) for o in due)
        return f"{duties} this turn (ruling A6)"
    kind = cell.upper()
    name = PIECE_NAMES[kind]
    if target == origin:
        return "a move must go to another square"
    victim = board[target]
    if target >= 40 and kind not in "GS":
        return "only Galaxies and Spaceships go to hyperspace"
    if target >= 40 and victim != EMPTY and not (kind == "S" and origin < 40):
        return f"{NAMES[target]} is occupied, and nothing in hyperspace can be captured"
    if target >= 40:
        victim = EMPTY
    if victim != EMPTY and victim.upper() == "G":
        return "a Galaxy can never be captured"
    if victim != EMPTY and victim.upper() == "N":
        if kind != "G":
            return "only a Galaxy can capture a Nebula"
        if victim.isupper() == white:
            return "a Galaxy may not capture its own Nebula (ruling A3)"
    if kind == "N":
        return _nebula_refusal(state, origin, target)
    if kind == "C":
        return ("a Star Cluster moves one square forward or diagonally backward to an empty square, and "
                "captures one square backward or diagonally forward")
    if kind == "P":
        return "a Planet moves like a knight"
    if kind == "S":
        return _ship_refusal(state, origin, target)
    if victim != EMPTY:
        return "a Galaxy captures only the enemy Nebula"
    if (origin >= 40) != (target >= 40) or IS_BH[target]:
        return ("a Galaxy goes to or from hyperspace only by warping from a Black Hole it stands on to an "
                "empty Black Hole")
    return f"a {name} moves like a king (one square), or warps from a Black Hole to an empty Black Hole"


def _nebula_refusal(state: OuterSpaceState, origin: int, target: int) -> str:
    board = state.board
    if state.nebula_moved[0 if state.turn is Seat.WHITE else 1]:
        return "the Nebula may not move twice in a row"
    (of, orank), (tf, trank) = _coords(origin), _coords(target)
    if of != tf and orank != trank:
        return "a Nebula moves like a rook, along a rank or a file"
    step = (1 if tf > of else -1 if tf < of else 0) + 5 * (1 if trank > orank else -1 if trank < orank else 0)
    between = list(range(origin + step, target, step))
    for square in between:
        if board[square] != EMPTY:
            return f"the way is blocked by {describe_piece(board[square])} on {NAMES[square]}"
    for square in between:
        sources = zone_sources(board, origin, square)
        if sources:
            who = ", ".join(f"{describe_piece(board[s])} on {NAMES[s]}" for s in sources)
            return f"the Nebula may not cross {NAMES[square]}: it is in the capture zone of {who}"
    return "the Nebula cannot make that move"


def _ship_refusal(state: OuterSpaceState, origin: int, target: int) -> str:
    board = state.board
    hyper_taken = board[HYPER_BH] != EMPTY
    if origin >= 40:
        if target < 40 and origin != HYPER_BH:
            return "a Spaceship leaves hyperspace only from 2b"
        if target < 40:
            return ("a Spaceship leaving 2b goes to an empty Black Hole and then 1 or 2 squares orthogonally "
                    "through empty squares, not over a Black Hole, to a square that is not a Black Hole "
                    "(ruling A10); no such route reaches " + NAMES[target])
        return "in hyperspace a Spaceship moves 1 or 2 squares along 2a-2b-2c, over an empty 2b only (ruling A18)"
    (of, orank), (tf, trank) = _coords(origin), _coords(target) if target < 40 else (-9, -9)
    if target < 40 and abs(of - tf) == abs(orank - trank):
        return (f"a Spaceship shoots the first piece on a diagonal, never a Galaxy or a Nebula; it cannot shoot "
                f"{NAMES[target]}")
    if target < 40 and IS_BH[target]:
        return "a Spaceship never ends its turn on a Black Hole: moving onto one takes it to 2b"
    touches = any(IS_BH[first] or (second >= 0 and IS_BH[second]) for first, second, _ in SHIP_STEPS[origin])
    if hyper_taken and (target >= 40 or touches):
        return "2b is occupied, so a Spaceship may not move onto or over a Black Hole (ruling A8)"
    if target >= 40:
        return ("a Spaceship enters hyperspace by stepping onto an empty Black Hole (it lands on 2b, and after a "
                "first step along a rank may continue to 2a or 2c, ruling A9)")
    return "a Spaceship moves 1 or 2 squares orthogonally through empty squares and captures only by shooting"
