"""The player-facing help for Space Chess: rules summary, notation, options, record format and rulings."""

from __future__ import annotations

import textwrap

__all__ = ["HELP_TEXT", "OPTION_HELP", "RULINGS"]

#: One line per ruling of shared/spec/variants/space-chess.md (section 3.5) that this server enforces.
RULINGS: tuple[tuple[str, str], ...] = (
    ("S1", "The 'centre' star is the four squares d4, e4, d5, e5 (stars: c3 f3 c6 f6 d4 e4 d5 e5)."),
    ("S2", "Stars and king symbols are on all three levels."),
    ("S3", "A first move is made on the piece's own level, then it transfers (Nb1-d2 is illegal at the start)."),
    ("S4", "If the transfer square is occupied the move is still legal and the piece stays on its level."),
    ("S5", "A first move may stay on its level although it could transfer only when in check and nothing "
           "else gets out of check (option first-move-stay=in-check: whenever it ends the check)."),
    ("S6", "Castling: orthodox on the home level; king and rook both stay, or both go to level 2."),
    ("S7", "Every piece (not only pawns) may transfer two levels on a first move that ends on a star."),
    ("S8", "A capturing first move is a first move like any other: transfer unless blocked."),
    ("S9", "Pawns promote on the last rank of any level, before any transfer (option promotion=enemy-level)."),
    ("S10", "Passing over a star does nothing; only the square a move ends on counts."),
    ("S11", "King: first move may stay or transfer toward the middle; later 1 level from a king symbol, "
            "1-2 from a star."),
    ("S12", "En passant only on the level where the double-stepping pawn ended, if the skipped square is "
            "empty there."),
    ("S13", "A move is legal if your king is not attacked on its final level; pieces attack only on their level."),
    ("S14", "Castling with transfer (O-O(2)): orthodox conditions on the home level, and the king's final "
            "square on level 2 must not be attacked."),
    ("S15", "A promoted piece counts as moved: its next move is not a first move."),
    ("S16", "Castling is the first move of both king and rook."),
)

OPTION_HELP: tuple[tuple[str, str], ...] = (
    ("promotion=any-level|enemy-level",
     "any-level (default, S9): promote on rank 8 (White) / rank 1 (Black) of any level. enemy-level: only on "
     "level 3 for White and level 1 for Black; a pawn reaching the last rank of another level stays a pawn "
     "there, with no further moves."),
    ("first-move-stay=last-resort|in-check",
     "last-resort (default, S5): a first move stays on its level without being blocked only when nothing "
     "else answers a check. in-check: whenever you are in check and staying ends it."),
    ("centre-star=yes|no",
     "yes (default, S1): d4 e4 d5 e5 are stars. no: only c3 f3 c6 f6 are stars."),
    ("two-level=all|pawns",
     "all (default, S7): any piece whose first move ends on a star may transfer two levels. pawns: only pawns."),
)

_WIDTH = 76


def _para(text: str, indent: str = "", hang: str = "") -> str:
    """A paragraph wrapped for mail readers (76 columns)."""
    return textwrap.fill(text, _WIDTH, initial_indent=indent, subsequent_indent=hang or indent,
                         break_on_hyphens=False)


HELP_TEXT = "\n".join([
    "Space Chess (Chessex, 1994): three stacked 8x8 boards",
    "",
    _para("Board. Level 1 (bottom, 'C' on the re-issued set), level 2 (middle, 'B'), level 3 (top, 'A'). "
          "White starts in the orthodox array on level 1, Black on level 3; level 2 starts empty. On every "
          "level c3, f3, c6, f6 and the centre d4, e4, d5, e5 are STARS (* in the diagram); f1 and f8 are "
          "KING SYMBOLS (+ in the diagram)."),
    "",
    _para("Moves. Every move is an orthodox chess move on the level the piece stands on: the path, the "
          "blocking and the capture all happen on that level. Pieces on other levels neither block nor "
          "attack, and you can capture only on your own level. After the move the piece may change level "
          "(a transfer) to the same file and rank on another level; the square there must be empty."),
    _para("First move of each piece: it MUST transfer one level toward the middle (White up, Black down); "
          "if it ends on a star it may go one or two levels. If every transfer square is occupied it "
          "stays. The king may always stay. A piece may stay although it could transfer only when you are "
          "in check and nothing else gets you out of it.", "  - ", "    "),
    _para("Later moves: a piece that ends its move on a star may (not must) transfer one or two levels, "
          "up or down, to an empty square. A king may also transfer one level from a king symbol.",
          "  - ", "    "),
    _para("Castling: orthodox conditions on the home level; king and rook both stay (O-O) or both "
          "transfer to level 2 (O-O(2)); it is the first move of both.", "  - ", "    "),
    _para("Pawns promote on the last rank of any level; en passant works on the level where the "
          "double-stepping pawn ended.", "  - ", "    "),
    _para("Check, mate and stalemate are orthodox, judged on the king's own level: your king may step "
          "onto an attacked star or king symbol and transfer away."),
    _para("Draws: 50-move rule and threefold repetition by claim (send 'draw' on your turn); the 75-move "
          "rule, fivefold repetition, stalemate and bare kings (or king and one knight or bishop against "
          "a king) end the game by themselves."),
    "",
    _para("Notation: piece letter, from-square with its level, - or x, the square where the piece ends "
          "(after any transfer) with its level, =Q etc. for a promotion. Upper or lower case; a move "
          "number ('12.') and a '// comment' are ignored."),
    "  Pe2(1)-e4(2)     pawn e2 on level 1 to e4, transferring to level 2",
    "  Pc2(1)-c3(3)     to the star c3, then two levels up to level 3",
    "  Nb1(1)-a3(2)     Rc3(2)xc7(2)     Ra3(3)-c3(1)     Pe7(3)-e8(3)=Q",
    "  O-O  O-O-O       castling, both pieces stay on the home level",
    "  O-O(2)           castling, king and rook both transfer to level 2",
    _para("Also accepted: letters for levels (e4B = e4(2), A = 3 top, C = 1 bottom), no piece letter "
          "(e2(1)-e4(2)), no separator (e2(1)e4(2)), 0-0, and leaving out a level when only one legal "
          "move fits (Ng1-h3 = Ng1(1)-h3(2)); if several fit, the server lists them. The server writes "
          "x exactly when something is captured (en passant too, with no suffix), and + or # after a "
          "move that gives check or mate."),
    "",
    "Game record ('history'): PGN-like tags, then numbered moves, e.g.",
    "  1. Pe2(1)-e4(2) Pd7(3)-d5(2) 2. Pe4(2)xd5(2) Qd8(3)-d5(1) ...",
    "",
    _para("Diagram: the three levels side by side, level 3 (top) on the left, files a-h, ranks 1-8 "
          "(turned round in Black's mails)."),
    "",
    "Options, chosen in the challenge, e.g.",
    "  challenge bob space-chess option promotion=enemy-level",
    *(f"  {name}\n{_para(text, '      ')}" for name, text in OPTION_HELP),
    "",
    "Rulings in force (details: the server's variant specification):",
    *(_para(text, f"  {key}: ", " " * 7) for key, text in RULINGS),
])
