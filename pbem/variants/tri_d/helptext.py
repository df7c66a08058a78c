"""The player-facing help for tri-d chess: rules summary, notation with examples, options and rulings."""

from __future__ import annotations

import textwrap

__all__ = ["HELP_TEXT", "RULINGS"]

#: One line per ruling of shared/spec/variants/tri-d.md that this server enforces.
RULINGS: tuple[tuple[str, str], ...] = (
    ("V1", "Attack-board adjacency: F=3 or R=3 on the same level, inversion (L=2), or R=+1/-2 and "
           "R=-1/+2 on the same level (down/up one main board); 3 to 5 neighbours per pin."),
    ("V2", "The attack boards start at levels 1 and 7: White b1(1), e1(1); Black b8(7), e8(7)."),
    ("V3", "White's main-board pawns start on b2-e2(2), with N B B N on b1-e1(2); Black mirrors."),
    ("V4", "On the attack boards: R a0(1), Q b0(1), K e0(1), R f0(1), pawns a1 b1 e1 f1(1); Black mirrors."),
    ("V5", "Rooks slide any distance; the seed's knight example b3(4)-b5(5) is ignored."),
    ("V6", "Castling: king and rook unmoved, queen's start square empty for O-O-O, king not in check "
           "and its destination not attacked; allowed on move 1 (option first-move-castling=no forbids)."),
    ("V7", "Knight with a one-level component: either route counts (vertical first at the start column, "
           "or at the end column); option knight-routes=destination keeps only the second."),
    ("V8", "King and pawn vertical-diagonal steps look for an attack board in the destination column."),
    ("V9", "The rook's-pawn diagonal is the only special pawn exception."),
    ("V10", "An attack board carrying one pawn may move and invert; the pawn keeps its cell relative "
            "to the pin and promotes at once if it reaches its last rank."),
    ("V11", "Being carried is not the pawn's first move: its double step stays (option "
            "carried-double-step=no removes it)."),
    ("V12", "Ownership is checked after every move: a board whose only pieces are the opponent's "
            "passes to the opponent; an empty board keeps its owner."),
    ("V13", "Check uses exactly the movement geometry; sliders attack through implied positions."),
    ("V14", "A pawn on an attack board at rank 8 (1 for Black) does not promote; only rank 9 (0) does."),
    ("V15", "An attack board changes level only by inversion."),
    ("V16", "Rook's pawn: a pawn that started on file a or f, standing on an attack board, may move one "
            "file inward, one rank forward and one level toward the attached main board, not capturing."),
    ("V17", "A promoted piece counts as moved: a rook made by promotion never castles."),
)

_WIDTH = 76


def _para(text: str) -> str:
    return textwrap.fill(text, _WIDTH)


HELP_TEXT = "\n".join([
    "Victor Rules Space Chess (Star Trek tri-dimensional chess), key tri-d",
    "",
    _para("The board. Squares are named file (a-f), rank (0-9) and level (1-7): b1(2). Three fixed "
          "main boards, files b-e: W at level 2 (ranks 1-4), N at level 4 (ranks 3-6), B at level 6 "
          "(ranks 5-8). Four 2x2 attack boards hang on pins at the main boards' corners, at levels 1, "
          "3, 5 and 7; an attack board is named by its pin square, e.g. the board at b1(1) covers a0 "
          "b0 a1 b1 at level 1. A position with no surface is 'implied': sliders pass through it, "
          "nothing ever stops on it."),
    "",
    _para("Moves. Rook: along file, rank or level, any distance. Bishop: along the 12 "
          "two-dimensional diagonals (file-rank, rank-level, file-level), no triagonals: "
          "c1(2)-c3(4). Queen: both. Knight: a (1,2) leap over any two of the three axes, never "
          "blocked; a one-level part skips an absent attack-board level: b1(2)-b3(4). King: one "
          "step in any of 26 directions; a step up or down passes an empty attack-board level to "
          "the next main board. Pawn: one step forward, or one level up (down for Black) in its "
          "column, two forward on its first move; captures one file sideways and one forward, or "
          "one sideways and one up; en passant on the skipped square; promotes on main-board rank 8 "
          "or attack-board rank 9 (1 and 0 for Black), also when an attack board carries it there. "
          "A rook's pawn on an attack board may also step diagonally (inward, forward, toward the "
          "main board) onto an empty square: a1(1)-b2(2). Castling: O-O swaps king and rook "
          "(e0/f0); O-O-O puts the king on b0 and the queen's rook on e0."),
    "",
    _para("Attack boards. Instead of a piece move, move one of your attack boards to an adjacent "
          "free pin: along its side (3 ranks), across (3 files), inverted to the other side of its "
          "main board, or up or down one main board. It may move only if empty or carrying one of "
          "your pawns, which keeps its place on the board. A board whose only pieces are your "
          "opponent's becomes your opponent's; an empty board keeps its owner."),
    "",
    _para("End of the game. Checkmate wins, stalemate draws. The 50-move rule and threefold "
          "repetition: send 'draw' on your turn to claim. The 75-move rule, fivefold repetition "
          "and bare kings end the game by themselves."),
    "",
    "Notation (any case; a move number '12.' and '// comment' are ignored):",
    "  Pb2(2)-b4(2)     pawn double step; the piece letter is optional on input",
    "  Nb1(2)-b3(4)     knight from W to N",
    "  Bc1(2)-c5(6)     bishop from W to B through the implied c2(3), c4(5)",
    "  Qc3(2)xc5(4)     x when capturing (- and x are both accepted on input)",
    "  Pe7(6)-e8(6)=Q   promotion (=Q, =R, =B, =N)",
    "  Pd5(6)xe6(6)ep   en passant",
    "  O-O  O-O-O       castling (0-0 and 0-0-0 too)",
    "  @b1(1)-b1(3)     the attack board at pin b1(1) to pin b1(3) (inversion)",
    "  @b6(5)-b8(5)=Q   an attack board carries its pawn to the last rank",
    "The game record writes every move this way, + for check, # for mate.",
    "'pbem moves tri-d' lists the 17 legal first moves.",
    "",
    "Options (challenge ... option KEY=VALUE):",
    "  first-move-castling=no     no castling as a player's first move (Meder)",
    "  carried-double-step=no     a carried pawn loses its double step (Meder)",
    "  knight-routes=destination  the knight's level skip is judged at its",
    "                             destination column only",
    "",
    _para("Where the rules say nothing, this server decides: an attack-board move is not a pawn "
          "move for the 50-move rule unless it promotes; castling looks at the king's start and "
          "end squares only (c0 and d0 are implied); bare kings are a draw; the diagram and the "
          "picture are the same for both players (White's board at the bottom, as the level "
          "numbers read)."),
    "",
    "Rulings in force (details: the server's variant specification):",
    *(textwrap.fill(text, _WIDTH, initial_indent=f"  {key}: ", subsequent_indent=" " * 7)
      for key, text in RULINGS),
])
