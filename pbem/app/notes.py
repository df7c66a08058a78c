"""Notes between the players of a game (``say``): stored with the game, relayed in the player's own words."""

from __future__ import annotations

import textwrap
from datetime import datetime, timedelta

from pbem.app.context import CommandError, Context, Result
from pbem.app.game_mail import game_mail
from pbem.app.game_state import handles, player_id
from pbem.engine.base import Seat
from pbem.mail.compose import Outgoing

__all__ = ["MAX_NOTES_PER_DAY", "MAX_NOTE_CHARS", "add_note", "carry_pending_note", "notes_of", "quoted"]

#: The longest note one mail may carry (all its ``say`` lines together), in characters.
MAX_NOTE_CHARS = 500
#: How many notes one player may send in one game within 24 hours.
MAX_NOTES_PER_DAY = 10


def notes_of(extras: dict[str, object]) -> list[dict[str, object]]:
    """The notes stored with a game: dicts with ply, seat, text and at (ISO time)."""
    found = extras.get("notes", [])
    return list(found) if isinstance(found, list) else []


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
    entry: dict[str, object] = {"ply": game.ply, "seat": seat.value, "text": words, "at": now.isoformat()}
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
        news, rest = mail.body.split("\n\n", 1)
        mail.body = f"{news}\n\n{block}\n\n{rest}"
    else:
        mail = game_mail(ctx, game, seat.other, "player/notice.txt",
                         headline=f"{names[seat]} sends you a note in game {game.id}.", lines=["", block])
        ctx.send(mail)
        ctx.memo[f"note-alone:{game.id}"] = (mail, block)
    mail.own_words = (*mail.own_words, block)
    ctx.memo[key] = (mail, block)


def carry_pending_note(ctx: Context, mail: Outgoing) -> None:
    """A move later in the mail than its ``say`` lines: the note travels in the move's mail instead."""
    game = ctx.game
    if game is None or game.id is None:
        return
    alone = ctx.memo.pop(f"note-alone:{game.id}", None)
    if alone is None or alone[0] not in ctx.outgoing:
        return
    own, block = alone
    ctx.outgoing = [m for m in ctx.outgoing if m is not own]
    news, rest = mail.body.split("\n\n", 1)
    mail.body = f"{news}\n\n{block}\n\n{rest}"
    mail.own_words = (*mail.own_words, block)
    ctx.memo[f"note-mail:{game.id}"] = (mail, block)
    key = f"note:{game.id}"
    if key in ctx.memo:
        notes = notes_of(game.extras)
        notes[ctx.memo[key]] = {**notes[ctx.memo[key]], "ply": game.ply}
        game.extras = {**game.extras, "notes": notes}
