"""Running an event: create, enter players, start, pair rounds, score finished games, withdraw, adjudicate, mail.

Every function works inside the caller's transaction through a Context (the
worker's for mail commands and finished games, the CLI's own for the
organiser) and leaves its mails in ``ctx.outgoing``; the caller queues them.

Rules decided here (the pairing and tiebreak rules are in their modules):

- Round robin: all games of the section start at once, as in correspondence;
  start numbers (and so the Berger table's colours) are drawn by lot.
- Swiss: seeds by rating (ties by lot); the next round is paired when the
  last game of the round ends. A round deadline (``round_days``) is shown in
  the mails and in ``pbem event list``; the organiser then decides the
  unfinished games with ``pbem event adjudicate``, which completes the round.
- Knockout: see pbem.events.knockout.
- Withdrawal (``pbem event withdraw``), after ICCF/FIDE practice: in a round
  robin, a player who has finished fewer than half of their games has all
  their results annulled (they count for nobody); otherwise their unfinished
  games are forfeited (a win for the opponent). In a Swiss, results stand,
  the unfinished game is forfeited, and the player is not paired again. In a
  knockout, the unfinished games are forfeited and the opponent goes through.
  Before the start, a withdrawal simply removes the entry.
- Losses on time come from the clock rules and count as any other loss.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlmodel import col, func, select

from pbem.clock import ClockError, TimeControl
from pbem.commands.base import Context
from pbem.engine.base import Outcome, Seat
from pbem.events import knockout, swiss
from pbem.events.berger import berger_table, double_round_robin
from pbem.events.models import FORMATS, Event, EventPlayer
from pbem.events.render import crosstable, standings_table, summary
from pbem.events.standings import FORMAT_TITLES, standings
from pbem.events.store import EventData, event_by_name, load, lock_event, rate_game
from pbem.events.tiebreaks import normalise
from pbem.gameplay import board_block, end_without_move, game_mail, game_over, start_game
from pbem.mail.outbound import Outgoing
from pbem.mail.render import render
from pbem.settings import split_options
from pbem.store.models import Account, Challenge, Game
from pbem.variants import UnknownVariantError, get_variant

__all__ = [
    "EventError",
    "add_players",
    "adjudicate",
    "create_event",
    "find_event",
    "game_finished",
    "join_event",
    "start_event",
    "withdraw",
]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,63}$", re.IGNORECASE)
_RESULTS = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "1/2": "1/2-1/2", "draw": "1/2-1/2",
            "=": "1/2-1/2", "white": "1-0", "black": "0-1"}


class EventError(ValueError):
    """An organiser's or player's request about an event that cannot be carried out."""


# -- creating and entering ------------------------------------------------------------------


def create_event(ctx: Context, name: str, variant: str, fmt: str, time_control: str = "", rounds: int = 0,
                 tiebreaks: Sequence[str] = (), games_per_match: int = 2, knockout_tiebreak: str = "extra",
                 round_days: float | None = None, options: dict[str, Any] | None = None) -> Event:
    """A new event, open for entries."""
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
    if knockout_tiebreak not in knockout.KO_TIEBREAKS:
        raise EventError(f"unknown knockout tiebreak {knockout_tiebreak!r}; "
                         f"choose from {', '.join(knockout.KO_TIEBREAKS)}")
    if games_per_match < 1:
        raise EventError("a knockout match has at least one game")
    if rounds < 0 or (round_days is not None and round_days <= 0):
        raise EventError("rounds and round days must be positive")
    event = Event(name=name, variant=engine.key, format=fmt, time_control=control, options=dict(options or {}),
                  rounds=rounds, tiebreaks=list(chosen), games_per_match=games_per_match,
                  knockout_tiebreak=knockout_tiebreak, round_days=round_days)
    ctx.session.add(event)
    ctx.session.flush()
    return event


def find_event(ctx: Context, name: str) -> Event:
    event = event_by_name(ctx.session, name)
    if event is None:
        raise EventError(f"there is no event called {name!r}")
    return event


def _entries(ctx: Context, event: Event) -> list[EventPlayer]:
    return list(ctx.session.exec(select(EventPlayer).where(EventPlayer.event_id == event.id)
                                 .order_by(col(EventPlayer.id))).all())


def add_players(ctx: Context, event: Event, who: Sequence[str]) -> list[str]:
    """Enter players by handle or address; unregistered addresses are invited. One report line each."""
    if event.status != "registration":
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
        entry = next((e for e in _entries(ctx, event) if e.email == email), None)
        if entry is not None and entry.status == "entered":
            lines.append(f"{text}: already entered")
            continue
        if account is None:
            if entry is None:
                ctx.session.add(EventPlayer(event_id=event.id or 0, email=email, status="invited"))
            ctx.send(Outgoing(to=email, subject=f"[pbem event {event.name}] you are invited",
                              body=render("event/invitation.txt", event=event, about=_about(event),
                                          public=ctx.services.addresses.public),
                              reply_to=ctx.services.addresses.public, auto_submitted="auto-generated"))
            lines.append(f"{text}: invited (not registered yet; they join once registered)")
            continue
        if entry is None:
            entry = EventPlayer(event_id=event.id or 0, email=email)
        entry.account_id, entry.status = account.id, "entered"
        ctx.session.add(entry)
        _mail(ctx, event, account, "entered", "event/entered.txt", about=_about(event))
        lines.append(f"{account.handle}: entered")
    ctx.session.flush()
    return lines


def join_event(ctx: Context, event: Event, account: Account) -> str:
    """A player's own entry (the mail command ``join``), while registration is open."""
    if event.status != "registration":
        raise EventError(f"registration for {event.name} is closed")
    entry = next((e for e in _entries(ctx, event) if e.account_id == account.id or e.email == account.email),
                 None)
    if entry is not None and entry.status == "entered":
        return f"You are already entered in {event.name}."
    if entry is None:
        entry = EventPlayer(event_id=event.id or 0, email=account.email)
    entry.account_id, entry.status = account.id, "entered"
    ctx.session.add(entry)
    ctx.session.flush()
    count = sum(e.status == "entered" for e in _entries(ctx, event))
    return (f"You are entered in {event.name} ({_about(event)}); {count} players so far.\n"
            f"The games start when the organiser starts the event; each comes with its own mail.")


def _about(event: Event) -> str:
    title = get_variant(event.variant).title
    control = TimeControl.parse(event.time_control, default_days=1.0).describe() if event.time_control else \
        "the server's default time control"
    return f"{title}, {FORMAT_TITLES[event.format]}, {control}"


# -- mails ----------------------------------------------------------------------------------


def _thread(ctx: Context, event: Event) -> str:
    return f"<pbem.event-{event.id}@{ctx.services.addresses.domain}>"


def _mail(ctx: Context, event: Event, account: Account, topic: str, template: str, **context: Any) -> None:
    assert account.id is not None
    root = _thread(ctx, event)
    ctx.send(Outgoing(to=account.email, subject=f"[pbem event {event.name}] {topic}",
                      body=render(template, event=event, handle=account.handle, **context),
                      reply_to=ctx.services.addresses.personal(account.id), in_reply_to=root, references=(root,),
                      auto_submitted="auto-generated"))


def _players(data: EventData, everybody: bool = False) -> list[Account]:
    """The accounts still playing (``everybody``: withdrawn players too)."""
    wanted = ("entered", "withdrawn") if everybody else ("entered",)
    return [data.accounts[p.account_id] for p in data.players
            if p.account_id is not None and p.status in wanted and p.account_id in data.accounts]


def _tables(data: EventData) -> dict[str, str]:
    title = "Bracket" if data.event.format == "knockout" else "Crosstable"
    return dict(summary=summary(data), table=standings_table(data), crosstable=crosstable(data), cross_title=title)


def standings_text(ctx: Context, event: Event) -> str:
    """Standings and crosstable, as the ``standings`` command and `pbem event standings` show them."""
    return render("event/tables.txt", **_tables(load(ctx.session, event)))


def _mail_standings(ctx: Context, data: EventData, game: Game | None) -> None:
    news = ""
    if game is not None:
        news = (f"Game {game.id} is over: {data.handle(game.white_id)} - {data.handle(game.black_id)} "
                f"{game.result} ({game.reason}).")
    for account in _players(data):
        _mail(ctx, data.event, account, "standings", "event/standings.txt", news=news, **_tables(data))


# -- starting and pairing -------------------------------------------------------------------


def start_event(ctx: Context, event: Event) -> str:
    """Close registration, fix the start numbers and start the first games (all of them in a round robin)."""
    if event.status != "registration":
        raise EventError(f"{event.name} has already started")
    entries = _entries(ctx, event)
    players = [e for e in entries if e.status == "entered" and e.account_id is not None]
    dropped = [e.email for e in entries if e.status == "invited"]
    if len(players) < 2:
        raise EventError(f"{event.name} has {len(players)} entered players; it needs at least 2")
    for entry in entries:
        if entry.status == "invited":
            ctx.session.delete(entry)
    lot = random.SystemRandom()
    if event.format in ("round-robin", "double-round-robin"):
        lot.shuffle(players)  # Berger numbers, and so colours, by lot
    else:
        data = load(ctx.session, event)
        ties = {e.id: lot.random() for e in players}
        players.sort(key=lambda e: (-data.ratings[e.account_id or 0].rating, ties[e.id]))
    for seed, entry in enumerate(players, start=1):
        entry.seed = seed
        ctx.session.add(entry)
    event.status, event.started_at = "running", ctx.services.now()
    ids = [e.account_id or 0 for e in players]
    if event.format == "swiss":
        limit = len(ids) - 1 + len(ids) % 2
        event.rounds = event.rounds or min(limit, max(1, math.ceil(math.log2(len(ids)))))
        if event.rounds > limit:
            raise EventError(f"{len(ids)} players can play at most {limit} Swiss rounds without a rematch")
    ctx.session.add(event)
    ctx.session.flush()
    if event.format in ("round-robin", "double-round-robin"):
        table = berger_table(len(ids)) if event.format == "round-robin" else double_round_robin(len(ids))
        event.rounds, event.current_round = len(table), 1
        games = [game for number, pairs in enumerate(table, start=1)
                 for game in _start_games(ctx, event, number, [(ids[w], ids[b]) for w, b in pairs])]
        _announce(ctx, event, games, bye=None, heading="All games of the section start now")
    elif event.format == "swiss":
        _pair_swiss(ctx, load(ctx.session, event))
    else:
        _start_knockout(ctx, event, ids)
    report = f"{event.name} has started with {len(ids)} players."
    if dropped:
        report += f" Invited but never joined, so left out: {', '.join(dropped)}."
    return report


def _start_games(ctx: Context, event: Event, round_: int, pairs: Sequence[tuple[int, int]]) -> list[Game]:
    games = []
    for white, black in pairs:
        opponent = ctx.account_by_id(black)
        assert opponent is not None
        challenge = Challenge(challenger_id=white, opponent_id=black, opponent_email=opponent.email,
                              variant=event.variant, color="white", time_control=event.time_control,
                              options=dict(event.options), status="accepted")
        ctx.session.add(challenge)
        ctx.session.flush()
        game = start_game(ctx, challenge)
        game.event_id, game.event_round = event.id, round_
        ctx.session.add(game)
        games.append(game)
    ctx.session.flush()
    return games


def _set_round(ctx: Context, event: Event, round_: int) -> None:
    event.current_round = round_
    event.round_deadline = ctx.services.now() + timedelta(days=event.round_days) if event.round_days else None
    ctx.session.add(event)


def _announce(ctx: Context, event: Event, games: Sequence[Game], bye: int | None, heading: str) -> None:
    """The pairing mail: each player's new games (and the bye), with the round deadline if any."""
    involved = {a for g in games for a in (g.white_id, g.black_id)} | ({bye} if bye else set())
    deadline = event.round_deadline.strftime("%Y-%m-%d %H:%M UTC") if event.round_deadline else ""
    for account_id in sorted(involved):
        account = ctx.account_by_id(account_id)
        assert account is not None
        lines = []
        for game in games:
            if account_id not in (game.white_id, game.black_id):
                continue
            white = account_id == game.white_id
            other = ctx.account_by_id(game.black_id if white else game.white_id)
            lines.append(f"game {game.id}: you play {'white' if white else 'black'} against "
                         f"{other.handle if other else '?'}")
        _mail(ctx, event, account, heading.lower(), "event/round.txt", heading=heading, lines=lines,
              bye=account_id == bye, deadline=deadline)


def _entrants(data: EventData) -> list[swiss.Entrant]:
    points = {row.player: row.points for row in standings(data)}
    result = []
    for entry in data.players:
        if entry.status != "entered" or entry.account_id is None:
            continue
        me = entry.account_id
        mine = [g for g in data.games if me in (g.white_id, g.black_id)]
        result.append(swiss.Entrant(
            id=me, score=points.get(me, 0.0), rank=entry.seed,
            colours=tuple("w" if g.white_id == me else "b" for g in mine),
            opponents=frozenset(g.black_id if g.white_id == me else g.white_id for g in mine),
            had_bye=bool(entry.byes)))
    return result


def _pair_swiss(ctx: Context, data: EventData) -> bool:
    """Pair and start the next Swiss round; False when no pairing is possible (the event then ends)."""
    event = data.event
    round_ = event.current_round + 1
    try:
        pairing = swiss.pair_round(_entrants(data), random.Random(f"{event.id}:{round_}"))
    except swiss.PairingError:
        return False
    _set_round(ctx, event, round_)
    if pairing.bye is not None:
        entry = data.entry(pairing.bye)
        assert entry is not None
        entry.byes = [*entry.byes, round_]
        ctx.session.add(entry)
    games = _start_games(ctx, event, round_, pairing.boards)
    _announce(ctx, event, games, pairing.bye, heading=f"Round {round_} of {event.rounds}")
    return True


def _start_knockout(ctx: Context, event: Event, seeded: list[int]) -> None:
    matches = [{"high": high, "low": low, "winner": None, "how": ""} for high, low in knockout.first_round(seeded)]
    size = 2 * len(matches)
    event.rounds = size.bit_length() - 1
    event.state = {"rounds": [matches]}
    _open_knockout_round(ctx, event)


def _open_knockout_round(ctx: Context, event: Event) -> None:
    round_ = len(event.state["rounds"])
    _set_round(ctx, event, round_)
    _advance_matches(ctx, load(ctx.session, event), announce=f"Round {round_} of {event.rounds}")


def _advance_matches(ctx: Context, data: EventData, announce: str = "") -> None:
    """Decide the current round's matches that can be decided; start the games the others need."""
    event = data.event
    round_ = len(event.state["rounds"])
    matches = [dict(match) for match in event.state["rounds"][-1]]
    started: list[Game] = []
    bye = None
    for match in matches:
        if match["winner"] is not None:
            continue
        games = [(g.white_id, g.black_id, g.result if g.status == "finished" else "*") for g in data.games
                 if g.event_round == round_ and {g.white_id, g.black_id} == {match["high"], match["low"]}]
        state = knockout.match_state(match["high"], match["low"], games, event.games_per_match,
                                     event.knockout_tiebreak, seed=f"{event.id}:{round_}")
        if state.winner is not None:
            match["winner"], match["how"] = state.winner, state.how
            if state.how == "bye":
                bye = state.winner
        elif state.start:
            started += _start_games(ctx, event, round_, state.start)
    event.state = {"rounds": [*event.state["rounds"][:-1], matches]}
    ctx.session.add(event)
    if announce:
        _announce(ctx, event, started, bye, heading=announce)
    elif started:
        _announce(ctx, event, started, None, heading=f"Round {round_}: the match goes on")


# -- finished games -------------------------------------------------------------------------


def game_finished(ctx: Context, game: Game) -> None:
    """Rate the game; for an event's game, score it, mail the standings, and pair on or finish."""
    rate_game(ctx.session, game)
    if game.event_id is None:
        return
    event = lock_event(ctx.session, game.event_id)
    if event.status != "running":
        return
    _progress(ctx, event, game)


def _progress(ctx: Context, event: Event, game: Game | None) -> None:
    data = load(ctx.session, event)
    if event.format == "knockout":
        _advance_matches(ctx, data)
        matches = event.state["rounds"][-1]
        if all(match["winner"] is not None for match in matches):
            winners = [match["winner"] for match in matches]
            if len(winners) == 1:
                _finish(ctx, load(ctx.session, event), game)
                return
            _mail_standings(ctx, load(ctx.session, event), game)
            seeds = {p.account_id: p.seed for p in data.players}
            pairs = []
            for index in range(0, len(winners), 2):  # the better seed is "high": White first, and the seed rule
                high, low = sorted(winners[index:index + 2], key=lambda account: seeds.get(account, 0))
                pairs.append({"high": high, "low": low, "winner": None, "how": ""})
            event.state = {"rounds": [*event.state["rounds"], pairs]}
            _open_knockout_round(ctx, event)
            return
        _mail_standings(ctx, load(ctx.session, event), game)
        return
    if any(g.status != "finished" for g in data.games):
        _mail_standings(ctx, data, game)
        return
    if event.format == "swiss" and event.current_round < event.rounds:
        _mail_standings(ctx, data, game)
        if _pair_swiss(ctx, data):
            return
    _finish(ctx, load(ctx.session, event), game)


def _finish(ctx: Context, data: EventData, game: Game | None) -> None:
    event = data.event
    event.status, event.finished_at, event.round_deadline = "finished", ctx.services.now(), None
    event.version += 1
    ctx.session.add(event)
    if event.format == "knockout":
        winner = data.handle(event.state["rounds"][-1][0]["winner"])
    else:
        rows = standings(data)
        winner = " and ".join(data.handle(r.player) for r in rows if r.rank == 1) if rows else "nobody"
    news = ""
    if game is not None:
        news = (f"The last game, {game.id}, is over: {data.handle(game.white_id)} - {data.handle(game.black_id)} "
                f"{game.result} ({game.reason}).")
    for account in _players(data, everybody=True):
        _mail(ctx, event, account, "final result", "event/final.txt", winner=winner, news=news, **_tables(data))


# -- the organiser's interventions ----------------------------------------------------------


def _end_game(ctx: Context, game: Game, outcome: Outcome) -> None:
    """Finish ``game`` outside play (adjudication, forfeit) and tell both players and observers."""
    state = end_without_move(ctx, game, outcome)
    for seat in Seat:
        ctx.send(game_mail(ctx, game, seat, "player/game_over.txt", outcome=outcome,
                           board=board_block(game, state, seat)))


def adjudicate(ctx: Context, event: Event, game_id: int, result: str) -> str:
    """The organiser decides an unfinished game (e.g. at a round deadline); the event goes on as after any game."""
    outcome_result = _RESULTS.get(result.strip().lower())
    if outcome_result is None:
        raise EventError(f"a result is 1-0, 0-1 or 1/2-1/2, not {result!r}")
    game = ctx.session.exec(select(Game).where(Game.id == game_id).with_for_update()).first()
    if game is None or game.event_id != event.id:
        raise EventError(f"game {game_id} is not a game of {event.name}")
    if game.status != "active":
        raise EventError(f"game {game_id} is already over ({game.result}, {game.reason})")
    _end_game(ctx, game, Outcome(outcome_result, "adjudicated by the organiser"))
    game_over(ctx, game)
    return f"Game {game_id} adjudicated {outcome_result}."


def withdraw(ctx: Context, event: Event, who: str) -> str:
    """Take a player out of the event by the documented rule (see the module docstring)."""
    entries = _entries(ctx, event)
    needle = who.strip().strip("<>").lower()
    entry = None
    for candidate in entries:
        account = ctx.account_by_id(candidate.account_id) if candidate.account_id else None
        if candidate.email == needle or (account is not None and account.handle.lower() == needle):
            entry = candidate
    if entry is None or entry.status == "withdrawn":
        raise EventError(f"{who!r} is not playing in {event.name}")
    if event.status == "registration":
        ctx.session.delete(entry)
        return f"{who} is no longer entered in {event.name}."
    if event.status == "finished":
        raise EventError(f"{event.name} is over")
    event = lock_event(ctx.session, event.id or 0)
    data = load(ctx.session, event)
    me = entry.account_id
    mine = [g for g in data.games if me in (g.white_id, g.black_id)]
    played = [g for g in mine if g.status == "finished"]
    entry.status, entry.withdrawn_round = "withdrawn", event.current_round
    report = f"{data.handle(me or 0)} has withdrawn from {event.name}"
    if event.format in ("round-robin", "double-round-robin") and 2 * len(played) < len(mine):
        entry.annulled = True
        report += f" after {len(played)} of {len(mine)} games: all their results are annulled"
    else:
        report += ": their unfinished games are forfeited"
    ctx.session.add(entry)
    for game in mine:
        if game.status == "active":
            seat = Seat.WHITE if game.white_id == me else Seat.BLACK
            _end_game(ctx, game, Outcome.win(seat.other, f"forfeit: {data.handle(me or 0)} withdrew"))
    if event.format == "knockout":
        matches = [dict(match) for match in event.state["rounds"][-1]]
        for match in matches:
            if match["winner"] is None and me in (match["high"], match["low"]):
                match["winner"] = match["low"] if match["high"] == me else match["high"]
                match["how"] = "withdrawal"
        event.state = {"rounds": [*event.state["rounds"][:-1], matches]}
        ctx.session.add(event)
    ctx.session.flush()
    _progress(ctx, event, None)
    return report + "."


def list_events(ctx: Context) -> list[str]:
    """One line per event, newest last; an overdue round deadline is flagged for the organiser."""
    lines = []
    now = ctx.services.now()
    for event in ctx.session.exec(select(Event).order_by(col(Event.id))).all():
        line = summary(load(ctx.session, event))
        deadline = event.round_deadline
        if deadline is not None and event.status == "running":
            if deadline.tzinfo is None:
                deadline = deadline.replace(tzinfo=now.tzinfo)
            line += f"; round deadline {deadline:%Y-%m-%d %H:%M} UTC"
            if deadline <= now:
                line += " PASSED: adjudicate the unfinished games (pbem event adjudicate)"
        lines.append(line)
    return lines
