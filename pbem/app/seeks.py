"""Seeks: open challenges anyone registered may accept, kept as Challenge rows with no opponent.

A seek is a Challenge with status SEEKING, no opponent, an ``expires_at`` and an optional rating range.
Expiry is applied where seeks are read (listing, accepting), not by the sweep: nothing has to happen at
the moment a seek lapses (nobody is mailed), so a lapsed seek is simply no longer offered, and the rows
the listing passes over are marked EXPIRED then. The sweep keeps looking at due games only.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import col, select

from pbem.app.challenges import locked_challenge
from pbem.app.clocks import control_of
from pbem.app.context import CommandError, Context, Result
from pbem.app.games import start_game
from pbem.app.news import when
from pbem.engine.base import Variant
from pbem.store.event_models import Rating
from pbem.store.models import Account, Challenge
from pbem.store.vocabulary import ChallengeStatus
from pbem.variants import get_variant

__all__ = ["DEFAULT_RATING", "accept_seek", "list_seeks", "post_seek", "withdraw_seek"]

#: The rating of a player who has no rated game in a variant (as pbem.events.ratings starts everyone).
DEFAULT_RATING = 1500


def _rating(ctx: Context, account_id: int, variant: str) -> int:
    with ctx.session.no_autoflush:
        row = ctx.session.exec(select(Rating).where(Rating.account_id == account_id,
                                                    Rating.variant == variant)).first()
    return round(row.rating) if row is not None else DEFAULT_RATING


def _expired(seek: Challenge, now: datetime) -> bool:
    return seek.expires_at is not None and seek.expires_at <= now


def _terms(ctx: Context, seek: Challenge) -> str:
    """A seek's terms in words: variant, the seeker's colour, time control, options, rating range."""
    title = get_variant(seek.variant).title
    control = control_of(ctx.services.config, seek.time_control).describe()
    text = f"{title}, time control {control}"
    if seek.options:
        text += ", options " + " ".join(f"{key}={value}" for key, value in seek.options.items())
    if seek.rating_low is not None and seek.rating_high is not None:
        text += f", for players rated {seek.rating_low}-{seek.rating_high}"
    return text


def post_seek(ctx: Context, account: Account, engine: Variant[Any, Any], colour: str, time_control: str,
              options: dict[str, Any], rating_range: tuple[int, int] | None) -> Result:
    """Store a seek by ``account``; the seeker's answer."""
    now = ctx.services.now()
    expires = now + timedelta(days=ctx.services.config.games.seek_days)
    low, high = rating_range if rating_range is not None else (None, None)
    seek = Challenge(challenger_id=account.id or 0, opponent_id=None, opponent_email="", variant=engine.key,
                     color=colour, time_control=time_control, options=options, status=ChallengeStatus.SEEKING,
                     expires_at=expires, rating_low=low, rating_high=high)
    ctx.session.add(seek)
    ctx.session.flush()
    return Result(f"Seek {seek.id} posted: {_terms(ctx, seek)}; you play {colour}. It is open until {when(expires)}.\n"
                  f'Anyone registered may take it with "accept seek {seek.id}"; withdraw it with '
                  f'"seek withdraw {seek.id}". The game starts when it is accepted.')


def list_seeks(ctx: Context) -> Result:
    """Every open seek, oldest first; lapsed ones are marked expired on the way."""
    now = ctx.services.now()
    seeks = list(ctx.session.exec(select(Challenge).where(Challenge.status == ChallengeStatus.SEEKING)
                                  .order_by(col(Challenge.id))).all())
    lines = []
    for seek in seeks:
        if _expired(seek, now):
            seek.status = ChallengeStatus.EXPIRED
            ctx.session.add(seek)
            continue
        owner = ctx.account_by_id(seek.challenger_id)
        name = owner.handle if owner else "?"
        rating = _rating(ctx, seek.challenger_id, seek.variant)
        lines.append(f"  Seek {seek.id}: {name} ({rating}) plays {seek.color}; {_terms(ctx, seek)}; "
                     f"open until {when(seek.expires_at)}.")
    if not lines:
        return Result('No open seeks. Post one with "seek VARIANT [white|black|random] [days N] ..." '
                      "from your personal address.")
    return Result("Open seeks:\n" + "\n".join(lines) + '\n\nTo play one, send "accept seek N" from your '
                  "personal address (reply to the server's mail to you).")


def _seek(ctx: Context, number: int) -> Challenge:
    seek = locked_challenge(ctx, number)  # two players taking it at once, or its owner withdrawing it meanwhile
    if seek is None or seek.expires_at is None:  # challenges to one opponent have no expiry
        raise CommandError(f"there is no seek {number}")
    return seek


def _still_open(ctx: Context, seek: Challenge) -> None:
    if seek.status == ChallengeStatus.SEEKING and _expired(seek, ctx.services.now()):
        raise CommandError(f"seek {seek.id} expired on {when(seek.expires_at)}")
    if seek.status != ChallengeStatus.SEEKING:
        raise CommandError(f"seek {seek.id} is already {seek.status}")


def accept_seek(ctx: Context, account: Account, number: int) -> Result:
    """``account`` takes seek ``number``: the game starts for both players."""
    seek = _seek(ctx, number)
    _still_open(ctx, seek)
    if seek.challenger_id == account.id:
        raise CommandError(f"seek {number} is your own; withdraw it with \"seek withdraw {number}\"")
    assert account.id is not None
    if seek.rating_low is not None and seek.rating_high is not None:
        rating = _rating(ctx, account.id, seek.variant)
        if not seek.rating_low <= rating <= seek.rating_high:
            title = get_variant(seek.variant).title
            raise CommandError(f"seek {number} is for players rated {seek.rating_low}-{seek.rating_high} in "
                               f"{title}; your rating there is {rating}")
    seek.opponent_id, seek.opponent_email = account.id, account.email
    game = start_game(ctx, seek)
    return Result(f"Seek {number} accepted as {account.handle}: game {game.id} has started. "
                  "Its opening mail comes separately; reply to that mail to play.")


def withdraw_seek(ctx: Context, account: Account, number: int) -> Result:
    """The owner takes seek ``number`` back."""
    seek = _seek(ctx, number)
    if seek.challenger_id != account.id:
        raise CommandError(f"seek {number} is not yours")
    _still_open(ctx, seek)
    seek.status = ChallengeStatus.WITHDRAWN
    ctx.session.add(seek)
    return Result(f"Seek {number} withdrawn.")
