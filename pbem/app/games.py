"""Where rules, storage and mail meet for one game: start, move, take back, finish."""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from pbem.app import conditionals
from pbem.app.clocks import control_of, pass_clock, restart_clock, start_clock
from pbem.app.computer_due import refresh_computer_due
from pbem.app.context import Context, Result
from pbem.app.game_mail import (
    board_block,
    deadline_text,
    final_mail,
    final_text,
    game_mail,
    move_label,
    notes_for,
    referee_mail,
)
from pbem.app.game_options import split_options
from pbem.app.game_pictures import store_highlights
from pbem.app.game_state import engine_for, handles, player_id, records, state_of, store_state
from pbem.app.move_hints import foreign_notation_hint
from pbem.app.news import result_news, turn_news
from pbem.app.notes import carry_pending_note, note_follows_move
from pbem.app.observers import notify_observers
from pbem.engine.base import Audience, Outcome, Seat, Transition
from pbem.engine.capabilities import seal_action
from pbem.engine.errors import InvalidMoveError, MoveError
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.metrics import MOVES_APPLIED
from pbem.store.models import Challenge, Game, MoveRecord
from pbem.store.prepared import Prepared
from pbem.store.vocabulary import ChallengeStatus, GameStatus
from pbem.variants import get_variant

__all__ = [
    "OFFER_ANSWER",
    "announce_offer",
    "apply_side_action",
    "close_game",
    "close_without_move",
    "end_without_move",
    "finish_game",
    "game_over",
    "play_computer_move",
    "play_move",
    "refusal",
    "start_game",
    "take_back",
]

log = logging.getLogger(__name__)


#: How to answer a draw offer, said under the news of the mail that carries it.
OFFER_ANSWER = 'Reply "draw" to accept the draw offer, or just move to decline it.'

_GUARD = re.compile(r"(?:^|\s)#(\d+)\s*$")


def start_game(ctx: Context, challenge: Challenge, extras: dict[str, Any] | None = None) -> Game:
    """Create the game of an accepted challenge and mail both players their opening mail.

    ``extras`` are the game's bookkeeping from the start (a game against the computer says so there).
    """
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
                white_id=white, black_id=black, time_control=challenge.time_control, extras=dict(extras or {}))
    start_clock(ctx, game, engine.to_act(state))
    refresh_computer_due(game, engine, state, ctx.services.now())
    ctx.session.add(game)
    ctx.session.flush()
    assert game.id is not None
    ctx.touched_games[game.id] = game
    challenge.status, challenge.game_id = ChallengeStatus.ACCEPTED, game.id
    ctx.session.add(challenge)
    to_move = engine.to_act(state)
    names = handles(ctx, game)
    log.info("game %s started: %s, %s (white) vs %s (black), %s", game.id, engine.key, names[Seat.WHITE],
             names[Seat.BLACK], game.time_control or "default time control")
    for seat in Seat:
        headline = (f"Game {game.id} has started: you play {seat} against {names[seat.other]}. "
                    f"{turn_news(names, seat, to_move, game.deadline)}")
        ctx.send(game_mail(ctx, game, seat, "player/game_started.txt", headline=headline,
                           board=board_block(ctx, game, state, seat), to_move=to_move,
                           time_control=control_of(ctx.services.config, game.time_control).describe(),
                           public=ctx.services.addresses.public))
    return game


def _guard(line: str) -> tuple[str, int | None]:
    match = _GUARD.search(line)
    if match is None:
        return line, None
    return line[: match.start()].strip(), int(match.group(1))


def refusal(ctx: Context, game: Game, state: Any, seat: Seat, reason: str, hint: str = "") -> Result:
    """A rejected move: why (and a hint, if any), and the board as the sender sees it."""
    explained = f"{reason}\n{hint}" if hint else reason
    return Result(f"Not played: {explained}\n\n{board_block(ctx, game, state, seat)}", ok=False,
                  headline=f"Your move was not played: {reason}.")


def play_move(ctx: Context, line: str) -> Result:
    """Play one move line for the sender's seat, or explain why not."""
    game, seat = ctx.require_active_game()
    engine = engine_for(game)
    state = state_of(game)
    text, guard = _guard(line)
    to_move = engine.to_act(state)
    number = engine.move_number(state)
    if to_move is not seat:
        return refusal(ctx, game, state, seat, f"it is not your move; {to_move} is to play move {number}")
    if guard is not None and guard != number:
        return refusal(ctx, game, state, seat, f"the move is guarded by #{guard}, but this is move {number}")
    try:
        action = engine.parse_action(state, text)
        action = seal_action(engine, state, action, ctx.services.new_nonce())
        transition = engine.apply(state, action)
    except MoveError as error:
        hint = foreign_notation_hint(engine, state, text) if isinstance(error, InvalidMoveError) else ""
        return refusal(ctx, game, state, seat, str(error), hint)
    return _commit_transition(ctx, game, seat, number, transition, canonical=engine.describe(state, action))


@dataclass
class _Followed:
    """What happened after a move for the player who is to answer it: their conditional reply, news."""

    played: str = ""  # the conditional reply played for them ("2. Ng1-f3"), if any
    lines: list[str] = field(default_factory=list)


def _play_for(ctx: Context, game: Game, seat: Seat, text: str) -> tuple[str, Transition[Any]]:
    """Play ``text`` for ``seat``, who is not mailing it (a conditional reply, the computer): parsed and sealed
    as a player's move, stored, the opponent told; the record line ("2. Ng1-f3") and the transition.
    MoveError (before anything is stored) if the rules refuse it."""
    engine = engine_for(game)
    state = state_of(game)
    number = engine.move_number(state)
    action = engine.parse_action(state, text)
    transition = engine.apply(state, seal_action(engine, state, action, ctx.services.new_nonce()))
    _commit_transition(ctx, game, seat, number, transition, canonical=engine.describe(state, action),
                       by_sender=False)
    return f"{move_label(number, seat)} {transition.record}", transition


def _play_conditional(ctx: Context, game: Game, seat: Seat, text: str) -> _Followed:
    """Play ``seat``'s registered reply; what their mail about the opponent's move must add."""
    try:
        played, transition = _play_for(ctx, game, seat, text)
    except MoveError as error:  # the position differs from the one foreseen (e.g. a Hyperspace return)
        conditionals.clear(game, seat)
        return _Followed(lines=[f"Your conditional move {text} could not be played ({error}); "
                                "your conditional lines are cleared."])
    return _Followed(played, [f"Your conditional move was played for you: Played {played}",
                              *notes_for(transition.notes, seat)])


def play_computer_move(ctx: Context, game: Game, seat: Seat, text: str) -> str:
    """Play the computer's move ``text`` (in its owner's notation) for ``seat`` through the same parser and
    path as a player's; the record line ("12. Nf3"). RuntimeError if the rules refuse it (a bug)."""
    try:
        played, _transition = _play_for(ctx, game, seat, text)
    except MoveError:
        # Not chained: the error quotes the move, and a phase-out's text holds its secret square.
        raise RuntimeError(f"game {game.id}: the rules refuse the computer's move (a bug of the search)") from None
    return played


def apply_side_action(ctx: Context, transition: Transition[Any], game: Game, seat: Seat) -> Result:
    """Save a transition that is not a turn (e.g. a late Hyperspace secret) and tell whom it concerns."""
    store_state(game, transition.state)
    game.version += 1
    game.updated_at = ctx.services.now()
    ctx.session.add(game)
    assert game.id is not None
    ctx.touched_games[game.id] = game
    referee_mail(ctx, game, notes_for(transition.notes, Audience.REFEREE))
    public_lines = notes_for(transition.notes, Audience.PUBLIC)
    if public_lines:
        ctx.send(game_mail(ctx, game, seat.other, "player/notice.txt", headline=public_lines[0],
                           lines=public_lines[1:]))
    return Result("\n".join(notes_for(transition.notes, seat)) or "Recorded.")


def _commit_transition(ctx: Context, game: Game, seat: Seat, number: int, transition: Transition[Any],
                       canonical: str = "", by_sender: bool = True) -> Result:
    """Store ``seat``'s turn (not ``by_sender``: a conditional move played for them), play the opponent's
    conditional reply if one answers it, mail the opponent once about both; the mover's result."""
    engine = engine_for(game)
    state = transition.state
    lapsed = game.draw_offer == seat.other.value
    _store_turn(ctx, game, seat, number, transition)
    if by_sender:
        note_follows_move(ctx, game)  # this mail's note follows this turn, not a conditional reply to it
    played = f"{move_label(number, seat)} {transition.record}"
    outcome = engine.outcome(state)
    names = handles(ctx, game)
    opponent = seat.other
    followed = _Followed()
    if lapsed:  # the offerer hears of it in this, their next mail
        followed.lines.append(f"Your draw offer lapsed: {names[seat]} moved instead of answering it.")
    reply, news = conditionals.respond(game, opponent, canonical) if outcome is None else (None, [])
    followed.lines.extend(news)
    text = render("player/move_played.txt", game=game, played=played, outcome=outcome,
                  notes=notes_for(transition.notes, seat), board=board_block(ctx, game, state, seat),
                  deadline=deadline_text(game.deadline), handles=names, seat=seat,
                  final=final_text(ctx, game, state, seat) if outcome is not None else "")
    headline = f"You played {played}. " + (result_news(outcome, names, seat) if outcome is not None
                                            else turn_news(names, seat, engine.to_act(state), game.deadline))
    result = Result(text, headline=headline)
    if outcome is not None:
        game_over(ctx, game)
    if reply is not None:
        conditional = _play_conditional(ctx, game, opponent, reply)
        followed = _Followed(conditional.played, [*followed.lines, *conditional.lines])
    mail = _opponent_mail(ctx, game, seat, played, notes_for(transition.notes, opponent), followed)
    ctx.send(mail)
    if by_sender:
        carry_pending_note(ctx, mail)  # 'say' lines earlier in this mail travel with the move
    return result


def _store_turn(ctx: Context, game: Game, seat: Seat, number: int, transition: Transition[Any]) -> None:
    """Save the turn, pass the clock, close a finished game; tell the referee and the observers."""
    engine = engine_for(game)
    state = transition.state
    assert game.id is not None
    ctx.touched_games[game.id] = game
    game.ply += 1
    store_state(game, state)
    _insert_record(ctx, {"game_id": game.id, "ply": game.ply, "seat": seat.value, "move_number": number,
                         "record": transition.record, "state_after": game.state, "played_at": ctx.services.now()})
    game.version += 1
    game.updated_at = ctx.services.now()
    if game.draw_offer == seat.other.value:
        game.draw_offer = ""  # moving on declines the opponent's standing offer
    if game.extras.get("takeback") == seat.other.value:
        game.extras = {k: v for k, v in game.extras.items() if k != "takeback"}  # and a takeback request
    store_highlights(game, transition.highlights)  # the squares every picture of this position marks
    ctx.move_played = True
    # The record is the public notation (a phase-out's square is never in it).
    log.info("game %s: ply %d %s %s", game.id, game.ply, seat.value, transition.record)
    MOVES_APPLIED.labels(game.variant).inc()
    outcome = engine.outcome(state)
    pass_clock(ctx, game, seat, engine.to_act(state))
    if outcome is not None:
        close_game(game, outcome)
    refresh_computer_due(game, engine, state, ctx.services.now())
    ctx.session.add(game)
    referee_mail(ctx, game, notes_for(transition.notes, Audience.REFEREE))
    notify_observers(ctx, game)


#: The record row of a turn, one prepared INSERT: an ORM object here costs the unit of work a second pass.
_INSERT_RECORD = Prepared.insert(MoveRecord.__table__, (  # type: ignore[attr-defined]
    "game_id", "ply", "seat", "move_number", "record", "state_after", "played_at"))


def _insert_record(ctx: Context, values: dict[str, Any]) -> None:
    """Store one turn's record row at once (it needs nothing back, and nothing in this session holds it)."""
    if ctx.session.deleted:  # a takeback earlier in this mail deleted the rows this ply may reuse
        ctx.session.flush()
    _INSERT_RECORD.execute(ctx.session, values)


def _opponent_mail(ctx: Context, game: Game, mover: Seat, played: str, notes: list[str],
                   followed: _Followed) -> Outgoing:
    """The one mail the mover's opponent gets: the move, their conditional reply if it was played, the
    position after both, and whose move it is or how the game ended."""
    engine = engine_for(game)
    state = state_of(game)  # after the conditional reply, if one was played
    reader = mover.other
    names = handles(ctx, game)
    outcome = engine.outcome(state) if game.status != "active" else None
    news = f"{names[mover]} played {played}"
    if followed.played:
        news += f"; your conditional {followed.played} was played for you"
    offered = game.draw_offer == mover.value
    if offered:
        news += f", and {names[mover]} offers a draw"
    headline = f"{news}. " + (result_news(outcome, names, reader) if outcome is not None
                             else turn_news(names, reader, engine.to_act(state), game.deadline))
    if offered:
        headline += f"\n{OFFER_ANSWER}"
    # A draw offer made earlier in the same mail travels here instead of in a mail of its own.
    assert game.id is not None
    standalone = ctx.offer_mails.pop(game.id, None)
    if standalone is not None and game.draw_offer == mover.value:
        ctx.outgoing = [mail for mail in ctx.outgoing if mail is not standalone]
    return game_mail(ctx, game, reader, "player/opponent_moved.txt", headline=headline, played=played,
                     notes=[*notes, *followed.lines], outcome=outcome, board=board_block(ctx, game, state, reader),
                     final=final_text(ctx, game, state, reader) if outcome is not None else "")


def announce_offer(ctx: Context, game: Game, seat: Seat) -> None:
    """Tell the opponent of ``seat``'s draw offer: in the mail about the move this mail played, if it
    played one; else in a mail of its own, which a move later in this mail replaces (see _opponent_mail)."""
    names = handles(ctx, game)
    assert game.id is not None
    if ctx.move_played:
        opponent = ctx.account_by_id(player_id(game, seat.other))
        moved = [mail for mail in ctx.outgoing if mail.game_id == game.id and opponent and mail.to == opponent.email]
        if moved:
            news, rest = moved[-1].body.split("\n\n", 1)
            moved[-1].body = f"{news}\n{names[seat]} offers a draw. {OFFER_ANSWER}\n\n{rest}"
            return
    mail = game_mail(ctx, game, seat.other, "player/draw_offered.txt",
                     headline=f"{names[seat]} offers a draw in game {game.id}.")
    ctx.offer_mails[game.id] = mail
    ctx.send(mail)


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
    store_state(game, state)
    game.version += 1
    game.updated_at = ctx.services.now()
    game.draw_offer = ""
    game.extras = {key: value for key, value in game.extras.items()
                   if key not in ("takeback", "conditionals", "highlights")}  # the last move is undone
    restart_clock(ctx, game, engine.to_act(state))
    refresh_computer_due(game, engine, state, ctx.services.now())
    ctx.session.add(game)
    assert game.id is not None
    ctx.touched_games[game.id] = game
    return state


def game_over(ctx: Context, game: Game) -> None:
    """After a game finished, whatever way: tell the subscribers (tournaments score and rate it)."""
    ctx.services.signals.send_game_finished(ctx, game)


def close_game(game: Game, outcome: Outcome) -> None:
    """Mark ``game`` finished with ``outcome``; its clock stops."""
    log.info("game %s ended: %s (%s)", game.id, outcome.result, outcome.reason)
    game.status, game.result, game.reason = GameStatus.FINISHED, outcome.result, outcome.reason
    game.deadline = None
    game.next_event_at = None
    game.computer_due_at = None
    game.draw_offer = ""


def end_without_move(ctx: Context, game: Game, outcome: Outcome) -> Any:
    """Finish ``game`` outside play (resignation, draw, time, adjudication) and tell its observers.

    Returns the final state for the players' mails, which each caller words its own way.
    """
    close_without_move(ctx, game, outcome)
    notify_observers(ctx, game)
    return state_of(game)


def close_without_move(ctx: Context, game: Game, outcome: Outcome) -> None:
    """Finish ``game`` outside play, telling nobody yet (the sweep leaves its mails to the worker)."""
    close_game(game, outcome)
    game.version += 1
    game.updated_at = ctx.services.now()
    ctx.session.add(game)
    assert game.id is not None
    ctx.touched_games[game.id] = game


def finish_game(ctx: Context, game: Game, outcome: Outcome, by: Seat) -> Result:
    """End ``game`` outside a move (resignation, agreed or claimed draw) and tell the opponent."""
    state = end_without_move(ctx, game, outcome)
    game_over(ctx, game)
    ctx.send(final_mail(ctx, game, by.other, outcome, state))
    return Result(final_text(ctx, game, state, by), headline=result_news(outcome, handles(ctx, game), by))
