"""The player-facing help for Hyperspace Chess: rules summary, notation, commitments and rulings."""

from __future__ import annotations

__all__ = ["HELP_TEXT", "RULINGS"]

#: One line per ruling of shared/spec/variants/hyperspace.md that this server enforces.
RULINGS: tuple[tuple[str, str], ...] = (
    ("H1", "The delay N is 1 to 99 full turns."),
    ("H2", "Return onto your own piece: 'keep new' or 'keep old' on that turn's move decides, "
           "default old; onto your own king the returning piece is removed."),
    ("H3", "Return onto an enemy piece, the king included: the returning piece is lost, "
           "nothing is captured."),
    ("H4", "On a turn with your return, a move is legal if your king is safe after the return; "
           "checkmate and stalemate are judged with that return applied."),
    ("H5", "Phasing out a rook loses its castling right for good, even if it returns home."),
    ("H6", "A phase-out counts as a non-pawn, non-capture move (50 moves); a return is neither; "
           "repetition compares the pools too; pieces in hyperspace count as material."),
    ("H7", "Only one return per player per turn: a phase-out whose return turn is taken is refused."),
    ("H8", "Pawns (and kings) never enter hyperspace, so no en passant or promotion on return."),
    ("H9", "If the game ends first, pieces still in hyperspace never return."),
    ("H10", "The return square becomes public in the record of the turn the piece comes back."),
)

HELP_TEXT = "\n".join([
    "Hyperspace Chess",
    "",
    "Rules. Standard chess, plus one extra kind of move: instead of a normal move you may send a",
    "knight, bishop, rook or queen (promoted pieces too, never a pawn or the king) into hyperspace.",
    "You declare publicly the piece, its square and a delay N (1 to 99). You also record, secretly, the",
    "square where it will come back: any square, but a bishop must keep its square colour.",
    "Phased out on your turn T, the piece returns at the END of your turn T+N+1, after your move of",
    "that turn. Example: out on turn 12 with N = 3 -> back at the end of your turn 16.",
    "While away it does not attack, defend or block and cannot be captured. On return:",
    "  empty square -> it appears (it may give check at once, even double check);",
    "  your own piece there -> you keep one of the two (see 'keep' below); your king always stays;",
    "  an enemy piece there (even the king) -> your piece is lost and nothing is captured;",
    "  no return square recorded in time -> the piece is forfeited.",
    "Only one of your pieces may be scheduled to return on any turn.",
    "On a turn with your return, a move that leaves your king attacked is still legal if the",
    "returning piece blocks the check. Castling keeps its normal conditions, judged before the return.",
    "50-move rule and threefold repetition: send 'draw' on your turn to claim. The 75-move rule and",
    "fivefold repetition end the game by themselves.",
    "",
    "Notation (upper or lower case; a move number such as '12.' and a '// comment' are ignored):",
    "  Pe2-e4  Ng1-f3  Pe5xd6  Pe7-e8=Q  O-O  O-O-O   long form: piece, from-square, - or x, to-square",
    "  e2-e4  e2e4  Nf3  exd5  Bb5                   also accepted: no piece letter, UCI, or SAN",
    "  In SAN a lower-case 'b' can be the b-file or a bishop: if both readings are legal moves",
    "  ('bc4'), the server asks you to write the from-square ('Bf1-c4' or 'Pb3xc4').",
    "  Bc1@3 {f4}         bishop c1 into hyperspace for 3 turns, coming back to f4 (the {f4} is secret)",
    "  phase Bc1 3 f4     the same, as a command",
    "  secret 12 Bc1 f4   the return square of the phase-out you sent on turn 12 without one; accepted",
    "                     only before your opponent's next move, otherwise the piece is forfeited",
    "  Nb1-c3 keep new    on a return turn, keep the returning piece if its square holds your own piece",
    "                     ('keep old', 'keep:new' and 'keep:old' work too; without it the old piece stays)",
    "The public record shows a phase-out as 'Bc1@3' and the return after that turn's move:",
    "  'Nb1-c3 &Bf4+', '&Qd5!lost', '&Rd1!kept-new', '&Rd1!kept-old', '&Bc1!forfeited' (no square recorded;",
    "  there the square named is the one the piece left).",
    "",
    "Game record: 'history' mails it in this notation and as PGN ('pbem export GAME' on the server",
    "writes the PGN), which python-chess reads with pbem.variants.hyperspace.pgn.board_from_pgn.",
    "In the PGN board moves are SAN, a turn that is only a phase-out is the null move '--', and what",
    "happens off the board follows the turn as a PGN comment:",
    "  2. -- {[%hs Qd1@1]}       the queen leaves d1 for 1 turn (letters as in FEN: nb8@1 is Black's)",
    "  4. a3 {[%hs &Qh5]}        the return: '&Qh5', '&ne4!lost', '&Nd2!kept-new', '&Rd1!kept-old',",
    "                            '&Ng1!forfeited', as in the public record",
    "  3. -- {[%hs >a2a3 &Ng3]}  a move legal only because the return shields the king (ruling H4),",
    "                            which plain chess calls illegal: the null move stands for it",
    "  {[%hs ?Rh1@2:8]}          at the end: a piece still in hyperspace, back at the end of its",
    "                            owner's turn 8; its square is not shown until it returns",
    "  {alice: good luck}        a player's note ('say'), after the turn it came with",
    "",
    "Commitment. When you phase out, everybody receives the SHA-256 digest of the text",
    "  hyperspace-chess/1|<seat>|<piece><from>@<delay>|turn=<return turn>|square=<square>|nonce=<nonce>",
    "for example hyperspace-chess/1|white|Bc1@3|turn=16|square=f4|nonce=9f86d081884c7d65",
    "The nonce is a random hex string the server picks; only you (and the referee) get it in your",
    "receipt. When the piece returns, the server publishes square, nonce and the text, so anybody can",
    "check that the square was fixed in advance:",
    "  printf '%s' 'hyperspace-chess/1|white|Bc1@3|turn=16|square=f4|nonce=9f86d081884c7d65' | sha256sum",
    "must print the digest published at the phase-out (printf, not echo: no newline at the end).",
    "",
    "Rulings in force (details: the server's variant specification):",
    *(f"  {key}: {text}" for key, text in RULINGS),
])
