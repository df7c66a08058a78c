"""The player-facing help for Outer Space Chess: rules summary, notation and the rulings in force."""

from __future__ import annotations

import textwrap

__all__ = ["HELP_TEXT", "RULINGS"]

#: One line per ruling of shared/spec/variants/outer-space.md, plus the server's own decisions (D*).
RULINGS: tuple[tuple[str, str], ...] = (
    ("A1", "White is the side on ranks 1-3 with its Galaxy on 2c, and moves first."),
    ("A2", "No check, no mate: leaving your Nebula capturable is legal; capturing it ends the game."),
    ("A3", "You may capture your own Clusters, Planets and Spaceship; never a Galaxy, never your own Nebula."),
    ("A4", "Pass only when your Nebula moved last turn and nothing but Nebula moves is left; a pass is a turn."),
    ("A5", "Stalemate (no move, no pass) is a draw; a blocked hyperspace duty never causes it by itself."),
    ("A6", "Age = your turns completed in hyperspace. Age 3 on 2a/2c: move to 2b if it is free; age 4 on 2b:"
           " leave if you can. Such duties are your only legal moves."),
    ("A7", "Both Galaxies start in hyperspace at age 0; a blocked duty waits until it can be done."),
    ("A8", "A Spaceship stepping onto an empty Black Hole, by its 1st or 2nd step, lands on 2b; occupied Black"
           " Holes block it; while 2b is occupied it may not touch a Black Hole."),
    ("A9", "After a first step along a rank onto a Black Hole it may go on to 2a (toward file a) or 2c"
           " (toward file e) if empty."),
    ("A10", "Leaving 2b: to an empty Black Hole, then 1-2 orthogonal steps through empty squares, not over a"
            " Black Hole, ending off Black Holes."),
    ("A11", "When 2b is vacated, every Planet on a Black Hole is removed."),
    ("A12", "Draw after 60 plies in a row (30 moves each, passes included) without a capture;"
            " obliterated Planets do not count as captures."),
    ("A13", "No draw by repetition."),
    ("A14", "A Nebula treats Black Holes as ordinary squares."),
    ("A15", "Capture zones are taken before the move, the moving Nebula still on its square; every piece's"
            " zone counts, your own and both Galaxies' included."),
    ("A16", "If your Nebula moved last turn and you have no other move, you must pass."),
    ("A17", "One move per piece, from-square and final square; /via names the alphabetically first Black"
            " Hole route."),
    ("A18", "A Spaceship moves in a straight line; in hyperspace 2a-2c only over an empty 2b; no shots from"
            " hyperspace."),
    ("D1", "A Nebula cannot capture the other Nebula (only a Galaxy captures a Nebula), nor a Galaxy."),
    ("D2", "A Galaxy warps only to an empty Black Hole; it captures the Nebula only by a king step."),
    ("D3", "The 30-move draw and stalemate end the game by themselves; other draws by agreement ('draw')."),
)

HELP_TEXT = "\n".join([
    "Outer Space Chess (Nicholas Kuschinski, 2003)",
    "",
    "Boards. Ordinary space (board 1) is 5 files a-e by 8 ranks; its squares are written 1a1 ... 1e8.",
    "Hyperspace (board 2) is three squares in a row: 2a 2b 2c. Black Holes: 1b3 1d3 1c4 1c5 1b6 1d6,",
    "and 2b. White (upper case in diagrams) starts on ranks 1-3 with its Galaxy on 2c; Black on",
    "ranks 6-8 with its Galaxy on 2a. White moves first.",
    "",
    "Pieces. Capturing your own pieces is allowed (never a Galaxy or your own Nebula).",
    "  C Star Cluster: moves 1 square forward or 1 diagonally backward; captures 1 square straight",
    "    backward or 1 diagonally forward. Never promotes.",
    "  P Planet: a knight. Landing on a Black Hole destroys it, unless 2b is occupied; when 2b is",
    "    vacated, every Planet on a Black Hole is destroyed.",
    "  S Spaceship: moves 1 or 2 squares orthogonally through empty squares; captures by shooting the",
    "    first piece on a diagonal without moving (not a Galaxy or a Nebula, which block the shot).",
    "    Stepping onto a Black Hole takes it to 2b (after a first step along a rank it may go on to",
    "    2a or 2c). From 2b it leaves through any empty Black Hole and must move on 1 or 2 squares",
    "    to a square that is not a Black Hole. While 2b is occupied no Spaceship may touch a Black Hole.",
    "  G Galaxy: a king that cannot be captured and captures only the enemy Nebula. Standing on a",
    "    Black Hole (2b included) it may warp to any empty Black Hole; that is the whole turn.",
    "  N Nebula: a rook that may not pass over any square in another piece's capture zone (landing",
    "    there is fine), may not move on two of your turns in a row, and is captured only by a Galaxy.",
    "    If your Nebula moved last turn and you have no other move, you must 'pass'.",
    "Hyperspace. Only Galaxies and Spaceships go there; nothing there can be captured. A piece must",
    "move onto 2b after 3 of your turns there and leave after 4, whenever that is possible; while",
    "such a duty can be done, it is your only legal move. The diagram shows each piece's age.",
    "The diagram and the picture show the board from White's side for both players (rank 1 at the",
    "bottom), as the notation reads.",
    "End. Capture the enemy Nebula (with your Galaxy) to win. Draws: stalemate, 30 moves each",
    "without a capture, or agreement. There is no check.",
    "",
    "Notation (upper or lower case; the piece letter and the /Black Hole are optional):",
    "  C1c3-1c4      Star Cluster 1c3 to 1c4          P1b1x1c3    Planet captures on 1c3",
    "  S1c2x1e4      Spaceship on 1c2 shoots 1e4 (it stays on 1c2)",
    "  S1b4-2b/1b3   Spaceship enters hyperspace through the Black Hole 1b3",
    "  S1a3-2c/1b3   first step onto 1b3, then on to 2c",
    "  S2b-1a3/1b3   from 2b out through 1b3, then to 1a3",
    "  G2c-2b        Galaxy step in hyperspace      G2b-1c4    Galaxy warps out of hyperspace",
    "  G1c4-1d6      Galaxy warps between Black Holes   G1c4x1c5   Galaxy captures the Nebula: game over",
    "  pass          only when forced (see above)",
    "  x is written exactly when something is captured; records may add (P1b6\u2020) for a destroyed Planet.",
    "",
    "Rulings in force (A: the server's variant specification; D: decisions where it is silent):",
    *(textwrap.fill(f"{key}: {text}", width=76, initial_indent="  ", subsequent_indent="       ")
      for key, text in RULINGS),
])
