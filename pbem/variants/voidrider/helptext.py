"""The player-facing help for Voidrider Chess: rules summary, notation with examples, record and rulings."""

from __future__ import annotations

import textwrap

__all__ = ["HELP_TEXT", "RULINGS"]

#: One line per ruling of shared/spec/variants/voidrider.md that this server enforces.
RULINGS: tuple[tuple[str, str], ...] = (
    ("W1", "A Voidrider carries its space any distance along a line of void, stopping on any cell that "
           "shares a side with another space."),
    ("W2", "The cell a space leaves does not count as its neighbour (so Kd2~d1 is illegal at the start)."),
    ("W3", "Spaces never leave the 7x9 area."),
    ("W4", "A space move may leave other spaces isolated or split the board."),
    ("W5", "Rooks, bishops, kings and pawns never cross void; knights leap it; a Voidrider rides it in a "
           "straight line to the first space."),
    ("W6", "Promotion on the last rank (9 for White, 1 for Black), by a move or a forward space move, "
           "is compulsory: to V, R, B or N."),
    ("W7", "A space move of king or rook loses the castling right; the king's cells must be spaces and "
           "not attacked."),
    ("W8", "A space move that exposes your own king (e.g. by opening or closing a line) is illegal."),
    ("W9", "Every pawn move, space moves included, resets the 50-move count."),
    ("W10", "Repetition compares pieces, spaces, the side to move and castling rights."),
    ("W11", "A Voidrider attacks, and checks, the first space in each of 8 directions, across void too."),
)

_WIDTH = 76


def _para(text: str) -> str:
    return textwrap.fill(" ".join(text.split()), width=_WIDTH)


HELP_TEXT = "\n".join([
    "Voidrider Chess (Fergus Duniho, 2002)",
    "",
    _para("""Board. A 7x9 play area, files a-g and ranks 1-9. At the start 43 cells are
          spaces (squares) and the rest is void: b1 f1, a2-g2, b3-f3 ... b7-f7, a8-g8,
          b9 f9. Pieces stand on spaces only."""),
    "",
    _para("""Pieces. King, rook, bishop and knight move as in chess, on spaces; rooks,
          bishops and kings are blocked by void, knights leap over it. Pawns step one
          forward and capture one diagonally forward: no double step, no en passant.
          There is no queen."""),
    _para("""The Voidrider (V) steps one cell in any of the 8 directions; where the next
          cell is void it rides across the void in that line to the first space and
          lands there (capturing an enemy piece). It never lands in void. It attacks,
          and gives check, the same way."""),
    "",
    _para("""Space moves. Instead of an ordinary move, any piece may carry its own space,
          with itself on it, one cell orthogonally into void. The new place must share
          a side with another space (the cell just left does not count). A pawn never
          moves its space backward. A Voidrider may carry its space any distance along
          a straight line of void."""),
    "",
    _para("""Promotion. A pawn reaching the last rank (9 for White, 1 for Black), by a
          move or by a forward space move, becomes a Voidrider, rook, bishop or
          knight."""),
    _para("""Castling. The king moves two cells toward a rook, which lands on the cell
          passed over (Kd2-b2 with Ra2-c2, or Kd2-f2 with Rg2-e2). Neither may have
          moved (space moves count), every cell between them must be an empty space,
          and the king may not be in, pass through or land in check."""),
    _para("""Otherwise chess rules: check, mate, stalemate. 50-move rule and threefold
          repetition (of pieces and spaces): send 'draw' on your turn to claim. The
          75-move rule, fivefold repetition and bare kings end the game by
          themselves."""),
    "",
    "Notation (upper or lower case; a move number such as '12.' and a",
    "'// comment' are ignored):",
    "  Pe3-e4      pawn e3 to e4           Nb2-c4   knight b2 to c4",
    "  Vb1~e1      the Voidrider carries its space from b1 three cells east",
    "  Ra2~a1      the rook carries its space into the void at a1",
    "  Vb1xe4      capture, across void too ('x' exactly when capturing)",
    "  Pc8~c9=V    forward space move to the last rank, promoting to a Voidrider",
    "  Pd8-d9=R    Pe8xf9=N    promotions",
    "  O-O         castling toward the g-file rook (Kd2-f2)",
    "  O-O-O       castling toward the a-file rook (Kd2-b2)",
    _para("""The from-square is always written. Also accepted: no piece letter
          ('b3-b4'), no separator ('b1e1'), a plain '-' for a space move ('Vb1-e1'),
          'x' on a move that captures nothing, '0-0', promotion as 'c9v'. A check is
          shown as '+', mate as '#'."""),
    "",
    _para("""Game record ('history'): PGN-style tags, then the moves in this notation
          with move numbers, e.g. 1. Nf2-e4 Bc8~c9 2. Rg2-f2 Pe7-e6 3. Vb1~d1 ...
          and the result."""),
    "",
    _para("""Diagram: every space is a framed box and void is blank; ':' marks dark
          cells, '.' an empty light space. Black sees the board from Black's side."""),
    "",
    "Rulings in force (details: the server's variant specification):",
    *(textwrap.fill(f"{key}: {text}", width=_WIDTH, initial_indent="  ", subsequent_indent="       ")
      for key, text in RULINGS),
])
