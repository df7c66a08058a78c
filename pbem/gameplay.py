"""Where rules, storage and mail meet for one game: start, move, finish, and tell the players."""

from __future__ import annotations

import json
import re
import secrets
from datetime import datetime
from functools import cache
from typing import Any

from sqlmodel import col, select

from pbem import conditionals
from pbem.commands.base import Context, Result
from pbem.engine.base import Audience, Note, Outcome, Seat, Transition, Variant
from pbem.engine.capabilities import seal_action, secrets_of
from pbem.engine.errors import MoveError
from pbem.mail.outbound import Outgoing
from pbem.mail.render import render
from pbem.settings import setting, split_options
from pbem.store.models import Challenge, Game, MoveRecord, Observation
from pbem.timekeeping import clock_lines, control_of, pass_clock, restart_clock, start_clock
from pbem.variants import get_variant

__all__ = [
    "board_block",
    "engine_for",
    "finish_game",
    "play_move",
    "start_game",
    "subject_of",
]

_GUARD = re.compile(r"(?:^|\s)#(\d+)\s*$")


@cache
def _engine(key: str, options_json: str) -> Variant:
    return get_variant(key, json.loads(options_json))


def engine_for(game: Game) -> Variant:
    rules, _ = split_options(game.options)
    return _engine(game.variant, json.dumps(rules, sort_keys=True))


def player_id(game: Game, seat: Seat) -> int:
    return game.white_id if seat is Seat.WHITE else game.black_id


def handles(ctx: Context, game: Game) -> dict[Seat, str]:
    white = ctx.account_by_id(game.white_id)
    black = ctx.account_by_id(game.black_id)
    assert white is not None and black is not None
    return {Seat.WHITE: white.handle, Seat.BLACK: black.handle}


def subject_of(ctx: Context, game: Game) -> str:
    names = handles(ctx, game)
    title = engine_for(game).title
    return f"[pbem #{game.id}] {names[Seat.WHITE]} vs {names[Seat.BLACK]} ({title})"


def thread_root(ctx: Context, game: Game) -> str:
    return f"<pbem.game-{game.id}@{ctx.services.addresses.domain}>"


def move_label(move_number: int, seat: Seat) -> str:
    return f"{move_number}." if seat is Seat.WHITE else f"{move_number}..."


def deadline_text(deadline: datetime | None) -> str:
    return deadline.strftime("%Y-%m-%d %H:%M UTC") if deadline else "none"


def board_block(game: Game, state: Any, audience: Seat | Audience) -> str:
    """The diagram and status lines of ``state`` as ``audience`` may see them."""
    return render("player/_view.txt", view=engine_for(game).view(state, audience))


def _notes_for(notes: tuple[Note, ...], audience: Seat | Audience) -> list[str]:
    return [note.text for note in notes if note.to is None or note.to == audience]


def game_mail(ctx: Context, game: Game, seat: Seat, template: str, **context: Any) -> Outgoing:
    """A mail of ``game`` to the player in ``seat``, from that seat's address, in the game's thread."""
    account = ctx.account_by_id(player_id(game, seat))
    assert account is not None and game.id is not None and account.id is not None
    root = thread_root(ctx, game)
    names = handles(ctx, game)
    body = render(template, game=game, seat=seat, handles=names,
                  title=engine_for(game).title, deadline=deadline_text(game.deadline), **context)
    body = with_clock(body, clock_lines(ctx, game, names))
    return Outgoing(
        to=account.email,
        subject=subject_of(ctx, game),
        body=body,
        reply_to=ctx.services.addresses.seat(game.id, seat, account.id),
        in_reply_to=root,
        references=(root,),
        game_id=game.id,
    )


def with_clock(body: str, lines: list[str]) -> str:
    """A game mail's body with the clock block at its foot."""
    if not lines:
        return body
    return body.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"


def referee_mail(ctx: Context, game: Game, lines: list[str]) -> None:
    referee = ctx.services.config.referee
    if not referee or not lines:
        return
    root = thread_root(ctx, game)
    ctx.send(Outgoing(
        to=referee,
        subject=f"{subject_of(ctx, game)} referee copy",
        body=render("referee/secrets.txt", game=game, lines=lines),
        reply_to=ctx.services.addresses.public,
        in_reply_to=root,
        references=(root,),
        auto_submitted="auto-generated",
        game_id=game.id,
    ))


def start_game(ctx: Context, challenge: Challenge) -> Game:
    """Create the game of an accepted challenge and mail both players their opening mail."""
    assert challenge.opponent_id is not None
    challenger_white = challenge.color == "white" or (
        challenge.color == "random" and secrets.randbelow(2) == 0
    )
    white, black = (
        (challenge.challenger_id, challenge.opponent_id)
        if challenger_white
        else (challenge.opponent_id, challenge.challenger_id)
    )
    rules, _ = split_options(challenge.options)
    engine = get_variant(challenge.variant, rules)
    state = engine.setup()
    game = Game(variant=engine.key, options=challenge.options, state=engine.dump(state),
                white_id=white, black_id=black, time_control=challenge.time_control)
    start_clock(ctx, game, engine.to_act(state))
    ctx.session.add(game)
    ctx.session.flush()
    assert game.id is not None
    ctx.touched_games[game.id] = game
    challenge.status, challenge.game_id = "accepted", game.id
    ctx.session.add(challenge)
    to_move = engine.to_act(state)
    for seat in Seat:
        ctx.send(game_mail(ctx, game, seat, "player/game_started.txt",
                           board=board_block(game, state, seat), to_move=to_move,
                           time_control=control_of(ctx.services.config, game.time_control).describe(),
                           public=ctx.services.addresses.public))
    return game


def _guard(line: str) -> tuple[str, int | None]:
    match = _GUARD.search(line)
    if match is None:
        return line, None
    return line[: match.start()].strip(), int(match.group(1))


def refusal(game: Game, state: Any, seat: Seat, reason: str) -> Result:
    """A rejected move: why, and the board as the sender sees it."""
    return Result(f"Not played: {reason}\n\n{board_block(game, state, seat)}", ok=False)


def play_move(ctx: Context, line: str) -> Result:
    """Play one move line for the sender's seat, or explain why not."""
    game, seat = ctx.require_active_game()
    engine = engine_for(game)
    state = engine.load(game.state)
    text, guard = _guard(line)
    to_move = engine.to_act(state)
    number = engine.move_number(state)
    if to_move is not seat:
        return refusal(game, state, seat, f"it is not your move; {to_move} is to play move {number}")
    if guard is not None and guard != number:
        return refusal(game, state, seat, f"the move is guarded by #{guard}, but this is move {number}")
    try:
        action = engine.parse_action(state, text)
        action = seal_action(engine, state, action, ctx.services.new_nonce())
        transition = engine.apply(state, action)
    except MoveError as error:
        return refusal(game, state, seat, str(error))
    return _commit_transition(ctx, game, seat, number, transition, canonical=engine.describe(state, action))


def _play_conditional(ctx: Context, game: Game, seat: Seat, text: str) -> None:
    """Play ``seat``'s registered reply and mail them what happened (they sent no mail)."""
    engine = engine_for(game)
    state = engine.load(game.state)
    number = engine.move_number(state)
    try:
        action = engine.parse_action(state, text)
        transition = engine.apply(state, seal_action(engine, state, action, ctx.services.new_nonce()))
    except MoveError as error:  # the position differs from the one foreseen (e.g. a Hyperspace return)
        conditionals.clear(game, seat)
        ctx.send(game_mail(ctx, game, seat, "player/notice.txt", lines=[
            f"Your conditional move {text} could not be played ({error}); your conditional lines are cleared."]))
        return
    result = _commit_transition(ctx, game, seat, number, transition, canonical=engine.describe(state, action))
    ctx.send(game_mail(ctx, game, seat, "player/notice.txt",
                       lines=["Your conditional move was played for you.", "", result.text]))


def apply_side_action(ctx: Context, transition: Transition[Any], game: Game, seat: Seat) -> Result:
    """Save a transition that is not a turn (e.g. a late Hyperspace secret) and tell whom it concerns."""
    game.state = engine_for(game).dump(transition.state)
    game.version += 1
    game.updated_at = ctx.services.now()
    ctx.session.add(game)
    assert game.id is not None
    ctx.touched_games[game.id] = game
    referee_mail(ctx, game, _notes_for(transition.notes, Audience.REFEREE))
    public_lines = _notes_for(transition.notes, Audience.PUBLIC)
    if public_lines:
        ctx.send(game_mail(ctx, game, seat.other, "player/notice.txt", lines=public_lines))
    return Result("\n".join(_notes_for(transition.notes, seat)) or "Recorded.")


def _commit_transition(ctx: Context, game: Game, seat: Seat, number: int, transition: Transition[Any],
                       canonical: str = "") -> Result:
    engine = engine_for(game)
    state = transition.state
    assert game.id is not None
    ctx.touched_games[game.id] = game
    game.ply += 1
    game.state = engine.dump(state)
    ctx.session.add(MoveRecord(game_id=game.id, ply=game.ply, seat=seat.value, move_number=number,
                               record=transition.record, state_after=game.state))
    game.version += 1
    game.updated_at = ctx.services.now()
    if game.draw_offer == seat.other.value:
        game.draw_offer = ""  # moving on declines the opponent's standing offer
    if game.extras.get("takeback") == seat.other.value:
        game.extras = {k: v for k, v in game.extras.items() if k != "takeback"}  # and a takeback request
    ctx.move_played = True
    played = f"{move_label(number, seat)} {transition.record}"
    outcome = engine.outcome(state)
    pass_clock(ctx, game, seat, engine.to_act(state))
    if outcome is not None:
        close_game(game, outcome)
    ctx.session.add(game)
    referee_mail(ctx, game, _notes_for(transition.notes, Audience.REFEREE))
    notify_observers(ctx, game)
    opponent = seat.other
    reply, news = conditionals.respond(game, opponent, canonical) if outcome is None else (None, [])
    ctx.send(game_mail(ctx, game, opponent, "player/opponent_moved.txt", played=played,
                       notes=_notes_for(transition.notes, opponent) + news, outcome=outcome,
                       board=board_block(game, state, opponent),
                       your_move=engine.to_act(state) is opponent and reply is None))
    text = render("player/move_played.txt", game=game, played=played, outcome=outcome,
                  notes=_notes_for(transition.notes, seat), board=board_block(game, state, seat),
                  deadline=deadline_text(game.deadline), handles=handles(ctx, game), seat=seat)
    result = Result(with_clock(text, clock_lines(ctx, game, handles(ctx, game))))
    if outcome is not None:
        game_over(ctx, game)
    if reply is not None:
        _play_conditional(ctx, game, opponent, reply)
    return result


def observer_state(ctx: Context, game: Game) -> Any:
    """The position observers may see: ``observer-delay`` plies behind while the game runs."""
    engine = engine_for(game)
    delay = setting(game.options, "observer-delay")
    if not delay or game.status != "active":
        return engine.load(game.state)
    ply = max(0, game.ply - delay)
    if ply == 0:
        return engine.setup()
    row = ctx.session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.ply == ply)).one()
    return engine.load(row.state_after)


def notify_observers(ctx: Context, game: Game) -> None:
    """Mail every observer the public position (delayed as the game says) and the last move they may see."""
    observers = list(ctx.session.exec(select(Observation).where(Observation.game_id == game.id)))
    if not observers:
        return
    delay = setting(game.options, "observer-delay") if game.status == "active" else 0
    visible_ply = max(0, game.ply - delay)
    if visible_ply == 0 and game.status == "active":
        return  # nothing observers may see has changed yet
    row = ctx.session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id,
                                                    MoveRecord.ply == visible_ply)).first()
    last = f"{move_label(row.move_number, Seat(row.seat))} {row.record}" if row else ""
    board = board_block(game, observer_state(ctx, game), Audience.PUBLIC)
    names = handles(ctx, game)
    root = thread_root(ctx, game)
    for observation in observers:
        account = ctx.account_by_id(observation.account_id)
        if account is None or account.id is None:
            continue
        body = render("player/observer.txt", game=game, handles=names, last=last, board=board, delay=delay,
                      title=engine_for(game).title)
        ctx.send(Outgoing(to=account.email, subject=f"{subject_of(ctx, game)} (observing)",
                          body=with_clock(body, clock_lines(ctx, game, names)) if not delay else body,
                          reply_to=ctx.services.addresses.personal(account.id), in_reply_to=root,
                          references=(root,), auto_submitted="auto-generated", game_id=game.id))


def take_back(ctx: Context, game: Game, target_ply: int) -> Any:
    """Return ``game`` to the position after ``target_ply`` (0: the start); returns that state.

    The records after it are deleted; the clock restarts for the side to move.
    """
    engine = engine_for(game)
    rows = records(ctx, game)
    state = engine.setup() if target_ply == 0 else engine.load(rows[target_ply - 1].state_after)
    for row in rows[target_ply:]:
        ctx.session.delete(row)
    game.ply = target_ply
    game.state = engine.dump(state)
    game.version += 1
    game.updated_at = ctx.services.now()
    game.draw_offer = ""
    game.extras = {key: value for key, value in game.extras.items() if key not in ("takeback", "conditionals")}
    restart_clock(ctx, game, engine.to_act(state))
    ctx.session.add(game)
    assert game.id is not None
    ctx.touched_games[game.id] = game
    return state


def game_over(ctx: Context, game: Game) -> None:
    """After a game finished, whatever way: its event (if any) scores it and may pair the next round."""
    from pbem.events.hooks import game_finished  # the event layer builds on this module

    game_finished(ctx, game)


def close_game(game: Game, outcome: Outcome) -> None:
    """Mark ``game`` finished with ``outcome``; its clock stops."""
    game.status, game.result, game.reason = "finished", outcome.result, outcome.reason
    game.deadline = None
    game.next_event_at = None
    game.draw_offer = ""


def end_without_move(ctx: Context, game: Game, outcome: Outcome) -> Any:
    """Finish ``game`` outside play (resignation, draw, time, adjudication) and tell its observers.

    Returns the final state for the players' mails, which each caller words its own way.
    """
    close_game(game, outcome)
    game.version += 1
    game.updated_at = ctx.services.now()
    ctx.session.add(game)
    assert game.id is not None
    ctx.touched_games[game.id] = game
    notify_observers(ctx, game)
    return engine_for(game).load(game.state)


def finish_game(ctx: Context, game: Game, outcome: Outcome, by: Seat) -> Result:
    """End ``game`` outside a move (resignation, agreed or claimed draw) and tell the opponent."""
    state = end_without_move(ctx, game, outcome)
    game_over(ctx, game)
    ctx.send(game_mail(ctx, game, by.other, "player/game_over.txt", outcome=outcome,
                       board=board_block(game, state, by.other)))
    return Result(render("player/game_over.txt", game=game, seat=by, outcome=outcome,
                         handles=handles(ctx, game), title=engine_for(game).title,
                         deadline=deadline_text(None), board=board_block(game, state, by)))


def records(ctx: Context, game: Game) -> list[MoveRecord]:
    statement = select(MoveRecord).where(MoveRecord.game_id == game.id).order_by(col(MoveRecord.ply))
    return list(ctx.session.exec(statement).all())


def secrets_by_owner(ctx: Context) -> list[tuple[str, tuple[str, ...]]]:
    """Each unrevealed secret of the games this mail touched, with its owner's address."""
    owned: list[tuple[str, tuple[str, ...]]] = []
    for game in ctx.touched_games.values():
        engine = engine_for(game)
        for seat, strings in secrets_of(engine, engine.load(game.state)).items():
            owner = ctx.account_by_id(player_id(game, seat))
            if strings:
                owned.append((owner.email.lower() if owner else "", strings))
    return owned


def forbidden_for(ctx: Context, secrets: list[tuple[str, tuple[str, ...]]], recipient: str) -> tuple[str, ...]:
    """The secrets in ``secrets`` that ``recipient`` may not read: all but their own (the referee: none)."""
    recipient = recipient.lower()
    if ctx.services.config.referee and recipient == ctx.services.config.referee.lower():
        return ()
    return tuple(string for owner, strings in secrets if owner != recipient for string in strings)
