"""Creating an event and entering players, while its registration is open."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sqlmodel import col, func, select

from pbem.app.accounts import find_account
from pbem.app.context import Context
from pbem.app.game_options import split_options
from pbem.clock import ClockError, TimeControl
from pbem.events.errors import EventError
from pbem.events.mails import event_mail
from pbem.events.pairing.bracket import KO_TIEBREAKS
from pbem.events.store import event_by_name, lock_event
from pbem.events.tiebreaks import normalise
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.store.event_models import FORMATS, Event, EventPlayer
from pbem.store.models import Account
from pbem.store.vocabulary import EntryStatus, EventFormat, EventStatus
from pbem.variants import UnknownVariantError, get_variant

__all__ = ["about", "add_players", "create_event", "entries", "find_event", "join_event"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,63}$", re.IGNORECASE)


def create_event(ctx: Context, name: str, variant: str, fmt: str, time_control: str = "", rounds: int = 0,
                 tiebreaks: Sequence[str] = (), games_per_match: int = 2, knockout_tiebreak: str = "extra",
                 round_days: float | None = None, options: dict[str, Any] | None = None,
                 organiser: str = "") -> Event:
    """A new event, open for entries; ``organiser`` (a handle or an address of an account) may ask the engine
    about any of its games by mail."""
    if not _NAME.match(name):
        raise EventError(f"{name!r} is not a usable event name: 2 to 64 letters, digits, '.', '_' or '-'")
    if event_by_name(ctx.session, name) is not None:
        raise EventError(f"there is already an event called {name!r}")
    if fmt not in FORMATS:
        raise EventError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    try:
        rules, _ = split_options(options or {})
        engine = get_variant(variant, rules)
        engine.setup()
    except UnknownVariantError as error:
        raise EventError(str(error)) from error
    except ValueError as error:
        raise EventError(f"bad option for {variant}: {error}") from error
    spec = time_control.strip()
    if spec and spec.replace(".", "", 1).isdigit():
        spec = f"days {spec}"
    try:
        control = str(TimeControl.parse(spec, default_days=1.0)) if spec else ""
    except ClockError as error:
        raise EventError(str(error)) from error
    try:
        chosen = normalise(tiebreaks)
    except ValueError as error:
        raise EventError(str(error)) from error
    if knockout_tiebreak not in KO_TIEBREAKS:
        raise EventError(f"unknown knockout tiebreak {knockout_tiebreak!r}; "
                         f"choose from {', '.join(KO_TIEBREAKS)}")
    if games_per_match < 1:
        raise EventError("a knockout match has at least one game")
    if rounds < 0 or (round_days is not None and round_days <= 0):
        raise EventError("rounds and round days must be positive")
    organiser_id = None
    if organiser:
        account = find_account(ctx, organiser)
        if account is None:
            raise EventError(f"no account {organiser!r} to be the organiser: they register first")
        organiser_id = account.id
    event = Event(name=name, variant=engine.key, format=EventFormat(fmt), time_control=control,
                  options=dict(options or {}), rounds=rounds, tiebreaks=list(chosen),
                  games_per_match=games_per_match, knockout_tiebreak=knockout_tiebreak, round_days=round_days,
                  organiser_id=organiser_id)
    ctx.session.add(event)
    ctx.session.flush()
    return event


def find_event(ctx: Context, name: str) -> Event:
    event = event_by_name(ctx.session, name)
    if event is None:
        raise EventError(f"there is no event called {name!r}")
    return event


def entries(ctx: Context, event: Event) -> list[EventPlayer]:
    """Every entry of ``event`` (invited, entered, withdrawn), in the order they came."""
    return list(ctx.session.exec(select(EventPlayer).where(EventPlayer.event_id == event.id)
                                 .order_by(col(EventPlayer.id))).all())


def add_players(ctx: Context, event: Event, who: Sequence[str]) -> list[str]:
    """Enter players by handle or address; unregistered addresses are invited. One report line each."""
    event = lock_event(ctx.session, event.id or 0)  # as join_event: not while the event starts
    if event.status != EventStatus.REGISTRATION:
        raise EventError(f"{event.name} has started: no more entries")
    lines = []
    for word in who:
        text = word.strip().strip("<>")
        if "@" in text:
            account = ctx.session.exec(select(Account).where(Account.email == text.lower())).first()
        else:
            account = ctx.session.exec(select(Account).where(func.lower(Account.handle) == text.lower())).first()
            if account is None:
                raise EventError(f"no player with the handle {text!r}; give an email address to invite someone")
        email = account.email if account else text.lower()
        entry = next((e for e in entries(ctx, event) if e.email == email), None)
        if entry is not None and entry.status == EntryStatus.ENTERED:
            lines.append(f"{text}: already entered")
            continue
        if account is None:
            if entry is None:
                ctx.session.add(EventPlayer(event_id=event.id or 0, email=email, status=EntryStatus.INVITED))
            ctx.send(Outgoing(to=email, subject=f"[pbem event {event.name}] you are invited",
                              body=render("event/invitation.txt", event=event, about=about(event),
                                          public=ctx.services.addresses.public),
                              reply_to=ctx.services.addresses.public, auto_submitted="auto-generated"))
            lines.append(f"{text}: invited (not registered yet; they join once registered)")
            continue
        if entry is None:
            entry = EventPlayer(event_id=event.id or 0, email=email)
        entry.account_id, entry.status = account.id, EntryStatus.ENTERED
        ctx.session.add(entry)
        event_mail(ctx, event, account, "entered", "event/entered.txt", about=about(event))
        lines.append(f"{account.handle}: entered")
    ctx.session.flush()
    return lines


def join_event(ctx: Context, event: Event, account: Account) -> str:
    """A player's own entry (the mail command ``join``), while registration is open."""
    # Locked (and read afresh): the organiser may be starting the event at this moment; an entry written after the
    # start read its entries would be in a running event without a seed or games.
    event = lock_event(ctx.session, event.id or 0)
    if event.status != EventStatus.REGISTRATION:
        raise EventError(f"registration for {event.name} is closed")
    entry = next((e for e in entries(ctx, event) if e.account_id == account.id or e.email == account.email),
                 None)
    if entry is not None and entry.status == EntryStatus.ENTERED:
        return f"You are already entered in {event.name}."
    if entry is None:
        entry = EventPlayer(event_id=event.id or 0, email=account.email)
    entry.account_id, entry.status = account.id, EntryStatus.ENTERED
    ctx.session.add(entry)
    ctx.session.flush()
    count = sum(e.status == EntryStatus.ENTERED for e in entries(ctx, event))
    return (f"You are entered in {event.name} ({about(event)}); {count} players so far.\n"
            f"The games start when the organiser starts the event; each comes with its own mail.")


def about(event: Event) -> str:
    """The event's terms in a few words: variant, format, time control."""
    title = get_variant(event.variant).title
    control = TimeControl.parse(event.time_control, default_days=1.0).describe() if event.time_control else \
        "the server's default time control"
    return f"{title}, {EventFormat(event.format).label}, {control}"
