"""Notes between the players of a game (``say``): stored with the game, relayed in the player's own words."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import datetime, timedelta

from pbem.app.context import CommandError, Context, Result
from pbem.app.game_mail import game_mail
from pbem.app.game_options import public_notes
from pbem.app.game_state import handles, notes_of, player_id
from pbem.engine.base import Seat
from pbem.mail.compose import Outgoing
from pbem.store.models import Game
from pbem.store.vocabulary import GameStatus

__all__ = [
    "MAX_NOTES_PER_DAY",
    "MAX_NOTE_CHARS",
    "add_note",
    "after_news",
    "carry_pending_note",
    "note_follows_move",
    "notes_for_observers",
    "quoted",
]

#: The longest note one mail may carry (all its ``say`` lines together), in characters.
MAX_NOTE_CHARS = 500
#: How many notes one player may send in one game within 24 hours.
MAX_NOTES_PER_DAY = 10


def quoted(handle: str, text: str) -> str:
    """A note as the reader sees it: an attribution, then the player's words as '> ' lines of 78 columns."""
    lines = [f"> {part}" for line in text.splitlines()
             for part in (textwrap.wrap(line, 76, break_long_words=True, break_on_hyphens=False) or [""])]
    return f"{handle} says:\n" + "\n".join(lines)


def add_note(ctx: Context, text: str) -> Result:
    """Add ``text`` (one ``say`` line) to the sender's note of this mail and relay it to the opponent."""
    game, seat = ctx.require_active_game()
    assert game.id is not None
    text = text.strip()
    if not text:
        raise CommandError("say what? e.g. 'say good luck'")
    notes = notes_of(game.extras)
    key = f"note:{game.id}"
    index = ctx.memo.get(key)
    now = ctx.services.now()
    if index is None:
        since = now - timedelta(days=1)
        recent = [n for n in notes if n.get("seat") == seat.value
                  and datetime.fromisoformat(str(n.get("at"))) >= since]
        if len(recent) >= MAX_NOTES_PER_DAY:
            raise CommandError(f"note not sent: at most {MAX_NOTES_PER_DAY} notes per player per game "
                               "in 24 hours; try again later")
        words = text
    else:
        words = f"{notes[index]['text']}\n{text}"
    if len(words) > MAX_NOTE_CHARS:
        raise CommandError(f"note not sent: a mail's notes may hold at most {MAX_NOTE_CHARS} characters "
                           f"(this one would hold {len(words)})")
    ply = _note_ply(ctx, game)
    entry: dict[str, object] = {"ply": ply, "seat": seat.value, "text": words, "at": now.isoformat()}
    if index is None:
        ctx.memo[key] = len(notes)
        notes.append(entry)
    else:
        notes[index] = entry
    game.extras = {**game.extras, "notes": notes}
    ctx.session.add(game)
    ctx.touched_games[game.id] = game
    _relay(ctx, seat, words)
    return Result("Your note was sent to your opponent.")


def _relay(ctx: Context, seat: Seat, words: str) -> None:
    """Put the note in the opponent's mail about this mail's move, else in (or replace it in) a mail of its own."""
    game = ctx.game
    assert game is not None and game.id is not None
    names = handles(ctx, game)
    block = quoted(names[seat], words)
    key = f"note-mail:{game.id}"
    previous: tuple[Outgoing, str] | None = ctx.memo.get(key)
    if previous is not None and previous[0] in ctx.outgoing:
        mail, old = previous
        mail.body = mail.body.replace(old, block, 1)
        mail.own_words = tuple(block if w == old else w for w in mail.own_words)
        ctx.memo[key] = (mail, block)
        return
    opponent = ctx.account_by_id(player_id(game, seat.other))
    moved = [m for m in ctx.outgoing if m.game_id == game.id and opponent and m.to == opponent.email
             and ctx.move_played]
    if moved:
        mail = moved[-1]
        mail.body = after_news(mail.body, (block,))
    else:
        mail = game_mail(ctx, game, seat.other, "player/notice.txt",
                         headline=f"{names[seat]} sends you a note in game {game.id}.", lines=["", block])
        ctx.send(mail)
        ctx.memo[f"note-alone:{game.id}"] = (mail, block)
    mail.own_words = (*mail.own_words, block)
    ctx.memo[key] = (mail, block)


def note_follows_move(ctx: Context, game: Game) -> None:
    """The sender's move was just stored: this mail's note follows it (and not a conditional reply to it)."""
    ctx.memo[f"note-ply:{game.id}"] = game.ply


def _note_ply(ctx: Context, game: Game) -> int:
    """The ply this mail's note follows: that of the sender's move if the mail played one, else the game's."""
    ply: int = ctx.memo.get(f"note-ply:{game.id}", game.ply)
    return ply


def carry_pending_note(ctx: Context, mail: Outgoing) -> None:
    """The sender's move later in the mail than its ``say`` lines: the note travels in the move's mail to the
    opponent instead of a mail of its own, and follows the move in the record."""
    game = ctx.game
    if game is None or game.id is None:
        return
    alone = ctx.memo.pop(f"note-alone:{game.id}", None)
    if alone is None or alone[0] not in ctx.outgoing:
        return
    own, block = alone
    ctx.outgoing = [m for m in ctx.outgoing if m is not own]
    mail.body = after_news(mail.body, (block,))
    mail.own_words = (*mail.own_words, block)
    ctx.memo[f"note-mail:{game.id}"] = (mail, block)
    key = f"note:{game.id}"
    if key in ctx.memo:
        notes = notes_of(game.extras)
        notes[ctx.memo[key]] = {**notes[ctx.memo[key]], "ply": _note_ply(ctx, game)}
        game.extras = {**game.extras, "notes": notes}


def after_news(body: str, blocks: Sequence[str]) -> str:
    """``body`` with ``blocks`` (quoted notes) after its first paragraph, the news, as paragraphs of their own."""
    if not blocks:
        return body
    news, _, rest = body.partition("\n\n")
    return "\n\n".join([news, *blocks, rest])


#: In game.extras: how many of the game's notes, first to last, observers have had (or have missed:
#: a note said while nobody observed is not mailed to a later observer).
_OBSERVED = "notes_observed"


def notes_for_observers(ctx: Context, game: Game, visible_ply: int) -> tuple[str, ...]:
    """The notes the observers' mail that shows ply ``visible_ply`` carries, quoted and attributed as the
    opponent read them; from then on they count as seen. None unless the game has public-notes=yes.

    The rule under ``observer-delay``: a note said at ply p (after p half-moves; one sent with a move
    belongs to that move's ply) goes to observers in the first mail that lets them see ply p+1, the
    move played after the note (``p < visible_ply``), or in the final mail if the game ends first. So
    a note reaches observers no sooner than the move that answered it, and never before the position
    it was said in: observers who see the game K plies late get its notes K plies late too. Notes go
    in the order they were said; one still waiting holds back those said after it (after a takeback,
    a later note may have a smaller ply).
    """
    if not public_notes(game.options):
        return ()
    notes = notes_of(game.extras)
    seen = int(str(game.extras.get(_OBSERVED, 0)))
    over = game.status != GameStatus.ACTIVE
    # A note whose 'say' came before this mail's move will follow that move (see carry_pending_note).
    pending = ctx.memo.get(f"note:{game.id}") if f"note-alone:{game.id}" in ctx.memo else None
    names = handles(ctx, game)
    blocks: list[str] = []
    for index in range(seen, len(notes)):
        note = notes[index]
        ply = _note_ply(ctx, game) if index == pending else int(str(note.get("ply", 0)))
        if not over and ply >= visible_ply:
            break
        blocks.append(quoted(names[Seat(str(note.get("seat")))], str(note.get("text", ""))))
    if blocks:
        game.extras = {**game.extras, _OBSERVED: seen + len(blocks)}
        ctx.session.add(game)
    return tuple(blocks)
