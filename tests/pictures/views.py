"""Realistic board views of the five variants' shapes, built by hand, and the variants' own after random moves."""

from __future__ import annotations

import random

from pbem.engine.base import Audience, Seat
from pbem.engine.board_view import BoardView, Cell, Mark, Panel, Piece, PieceKind
from pbem.variants import all_variants, get_variant

FILES8 = tuple("abcdefgh")
RANKS8 = tuple("87654321")
K = PieceKind
BACK_RANK = (K.ROOK, K.KNIGHT, K.BISHOP, K.QUEEN, K.KING, K.BISHOP, K.KNIGHT, K.ROOK)


def initial_chess_pieces() -> tuple[tuple[Cell, Piece], ...]:
    pieces: list[tuple[Cell, Piece]] = []
    for column, kind in enumerate(BACK_RANK):
        pieces += [((column, 0), Piece(kind, False)), ((column, 1), Piece(K.PAWN, False)),
                   ((column, 6), Piece(K.PAWN, True)), ((column, 7), Piece(kind, True))]
    return tuple(pieces)


def chess() -> BoardView:
    """An 8x8 board after 1. e4, with all 32 pieces."""
    pieces = tuple(((4, 4), p) if cell == (4, 6) else (cell, p) for cell, p in initial_chess_pieces())
    return BoardView(panels=(Panel("", 8, 8, FILES8, RANKS8, pieces=pieces,
                                   marks=(((4, 6), Mark.MOVE_FROM), ((4, 4), Mark.MOVE_TO)),
                                   dark=Panel.checkered(8, 8, 1)),))


def space_chess() -> BoardView:
    """Three 8x8 levels side by side, with transfer stars and king squares."""
    levels = []
    for index in range(3):
        marks: list[tuple[Cell, Mark]] = [((2, 2), Mark.STAR), ((5, 5), Mark.STAR), ((2, 5), Mark.STAR),
                                          ((5, 2), Mark.STAR)]
        pieces: tuple[tuple[Cell, Piece], ...] = ()
        if index == 1:
            marks += [((4, 0), Mark.KING_SQUARE), ((4, 7), Mark.KING_SQUARE), ((3, 6), Mark.MOVE_FROM),
                      ((3, 4), Mark.MOVE_TO)]
            pieces = tuple(((3, 4), p) if cell == (3, 6) else (cell, p) for cell, p in initial_chess_pieces())
        levels.append(Panel(f"Level {index + 1}", 8, 8, FILES8, RANKS8, pieces=pieces, marks=tuple(marks),
                            dark=Panel.checkered(8, 8, 1), at=(index * 9.0, 0.0)))
    return BoardView(panels=tuple(levels))


def outer_space() -> BoardView:
    """A 5x8 board with black holes and unorthodox pieces, and a 3x1 hyperspace panel beside it."""
    row_black = (K.STAR_CLUSTER, K.PLANET, K.GALAXY, K.NEBULA, K.SPACESHIP)
    pieces: list[tuple[Cell, Piece]] = []
    for column, kind in enumerate(row_black):
        pieces += [((column, 0), Piece(kind, False)), ((column, 7), Piece(kind, True))]
    pieces += [((1, 1), Piece(K.PAWN, False)), ((3, 5), Piece(K.PAWN, True)), ((2, 4), Piece(K.KING, True)),
               ((2, 2), Piece(K.KING, False))]
    board = Panel("Space", 5, 8, tuple("abcde"), RANKS8, pieces=tuple(pieces),
                  marks=(((0, 3), Mark.BLACK_HOLE), ((4, 4), Mark.BLACK_HOLE), ((3, 6), Mark.MOVE_FROM),
                         ((3, 5), Mark.MOVE_TO)),
                  dark=Panel.checkered(5, 8, 1))
    hyperspace = Panel("Hyperspace", 3, 1, ("", "", ""), ("H",), pieces=(((0, 0), Piece(K.NEBULA, True)),),
                       at=(6.0, 0.0))
    return BoardView(panels=(board, hyperspace), legend=((K.STAR_CLUSTER, "Star cluster (moves like a queen)"),))


def tri_d() -> BoardView:
    """Three 4x4 main levels with 2x2 attack boards at their corners, placed with ``at``."""
    panels: list[Panel] = []
    for index, name in enumerate(("White", "Neutral", "Black")):
        x = index * 7.0
        ranks = tuple(str(n) for n in range(4 + 2 * (2 - index), 2 * (2 - index), -1))
        pieces: tuple[tuple[Cell, Piece], ...] = ()
        if index == 0:
            pieces = (((0, 3), Piece(K.ROOK, True)), ((1, 3), Piece(K.KNIGHT, True)), ((1, 2), Piece(K.PAWN, True)))
        elif index == 2:
            pieces = (((2, 0), Piece(K.BISHOP, False)), ((3, 0), Piece(K.QUEEN, False)),
                      ((2, 1), Piece(K.PAWN, False)))
        panels.append(Panel(f"{name} level", 4, 4, tuple("abcd"), ranks, pieces=pieces,
                            marks=(((1, 1), Mark.MOVE_TO),) if index == 1 else (),
                            dark=Panel.checkered(4, 4, 1), at=(x + 1.0, 2.0)))
        for side, ax in (("QL", x), ("KL", x + 4.0)):
            attack_pieces = (((0, 0), Piece(K.KING if side == "KL" else K.QUEEN, index == 0)),) if index != 1 else ()
            panels.append(Panel(f"{side}{index + 1}", 2, 2, ("z", "a") if side == "QL" else ("d", "e"),
                                (str(1 + 2 * index + 1), str(1 + 2 * index)), pieces=attack_pieces,
                                marks=(((1, 0), Mark.MOVE_FROM),) if index == 1 and side == "QL" else (),
                                dark=Panel.checkered(2, 2, 0), at=(ax, 0.0)))
    return BoardView(panels=tuple(panels))


VOIDS = frozenset({(0, 0), (6, 0), (3, 2), (1, 4), (5, 4), (3, 6), (0, 8), (6, 8), (2, 4), (4, 4)})


def voidrider() -> BoardView:
    """A 7x9 panel with voids (missing cells) and voidriders."""
    pieces = (((1, 0), Piece(K.ROOK, False)), ((3, 0), Piece(K.KING, False)), ((2, 1), Piece(K.VOIDRIDER, False)),
              ((4, 1), Piece(K.VOIDRIDER, False)), ((3, 8), Piece(K.KING, True)), ((2, 7), Piece(K.VOIDRIDER, True)),
              ((4, 6), Piece(K.VOIDRIDER, True)), ((5, 8), Piece(K.ROOK, True)), ((3, 5), Piece(K.PAWN, True)))
    panel = Panel("", 7, 9, tuple("abcdefg"), tuple(str(n) for n in range(9, 0, -1)), pieces=pieces,
                  marks=(((4, 7), Mark.MOVE_FROM), ((4, 6), Mark.MOVE_TO)), dark=Panel.checkered(7, 9, 1),
                  missing=VOIDS)
    return BoardView(panels=(panel,), legend=((K.VOIDRIDER, "Voidrider"),))


def hyperspace(notes: tuple[str, ...] = ("In hyperspace: white knight, white bishop; black queen.",
                                         "Your knight returns to f3 next turn.")) -> BoardView:
    """A chess board from White's side with pieces in hyperspace (notes) and a secret return square."""
    gone = {(6, 7), (5, 7), (3, 0)}
    pieces = tuple((cell, p) for cell, p in initial_chess_pieces() if cell not in gone)
    return BoardView(panels=(Panel("", 8, 8, FILES8, RANKS8, pieces=pieces,
                                   marks=(((5, 5), Mark.PENDING_RETURN), ((5, 7), Mark.LEFT),
                                          ((2, 2), Mark.RETURNED)),
                                   dark=Panel.checkered(8, 8, 1)),), notes=notes)


LAYOUTS = {"chess": chess, "space-chess": space_chess, "outer-space": outer_space, "tri-d": tri_d,
           "voidrider": voidrider, "hyperspace": hyperspace}


def random_views(rng: random.Random, plies: int) -> list[tuple[str, BoardView]]:
    """The boards of every variant after up to ``plies`` random legal moves, the last one highlighted, as each
    audience sees them (variant key, board)."""
    views = []
    for variant_class in all_variants():
        variant = get_variant(variant_class.key)
        state, highlights = variant.setup(), ()
        for _ in range(rng.randrange(plies)):
            if variant.outcome(state) is not None:
                break
            actions = list(variant.legal_actions(state))
            if not actions:
                break
            transition = variant.apply(state, rng.choice(actions))
            state, highlights = transition.state, transition.highlights
        for audience in (Audience.PUBLIC, Seat.WHITE, Seat.BLACK):
            board = variant.view(state, audience, highlights).board
            if board is not None:
                views.append((variant_class.key, board))
    return views
