"""The operator's changes (`pbem admin`): accounts disabled, renamed or readdressed; games settled or aborted."""

from __future__ import annotations

from sqlmodel import col, func, select

from pbem.app.accounts import HANDLE, find_account
from pbem.app.context import CommandError, Context
from pbem.app.game_mail import final_mail
from pbem.app.games import end_without_move, game_over
from pbem.engine.base import Outcome, Seat
from pbem.mail.inbound.headers import valid_address
from pbem.store.event_models import EventPlayer
from pbem.store.models import Account, Challenge, Game
from pbem.store.vocabulary import ChallengeStatus, GameStatus

__all__ = [
    "ABORTED",
    "REASON_LENGTH",
    "SETTLED",
    "abort_game",
    "change_email",
    "rename_account",
    "require_account",
    "require_game",
    "set_disabled",
    "settle_game",
]

#: How an operator's ending is worded in the game's reason (and so in the players' last mails).
SETTLED = "settled by the operator"
ABORTED = "aborted by the operator"
#: The longest reason an operator may give: the game row keeps 64 characters, prefix included.
REASON_LENGTH = 64 - len(f"{SETTLED}: ")

_RESULTS = {"white": "1-0", "black": "0-1", "draw": "1/2-1/2"}


def require_account(ctx: Context, who: str) -> Account:
    """The account ``who`` names (a handle or an address), or a CommandError naming it."""
    account = find_account(ctx, who)
    if account is None:
        raise CommandError(f"no player {who!r}")
    return account


def require_game(ctx: Context, game_id: int, lock: bool = True) -> Game:
    """Game ``game_id``, row-locked for a change unless only read (SQLite locks the whole file anyway)."""
    statement = select(Game).where(Game.id == game_id)
    game = ctx.session.exec(statement.with_for_update() if lock else statement).first()
    if game is None:
        raise CommandError(f"no game {game_id}")
    return game


def set_disabled(ctx: Context, account: Account, disabled: bool) -> str:
    """Disable (or enable again) ``account``: the worker refuses every mail from or for a disabled account."""
    word = "disabled" if disabled else "enabled"
    if account.disabled == disabled:
        return f"{account.handle} is already {word}."
    account.disabled = disabled
    ctx.session.add(account)
    if disabled:
        return (f"{account.handle} is disabled: every mail from or for the account is refused with one reply; "
                "the clocks of their games run on by the games' rules.")
    return f"{account.handle} is enabled: their mails are read again."


def rename_account(ctx: Context, account: Account, new: str) -> str:
    """Give ``account`` the handle ``new``, checked as at registration (the form, and free)."""
    handle = new.lower()
    if not HANDLE.match(handle):
        raise CommandError(f"{new!r} is not a valid handle: 2 to 32 characters, letters, digits, '.', '_' or '-', "
                           "starting with a letter")
    if handle == account.handle:
        raise CommandError(f"{account.handle} already has that handle")
    taken = ctx.session.exec(select(Account.id).where(func.lower(Account.handle) == handle,
                                                      Account.id != account.id)).first()
    if taken is not None:
        raise CommandError(f"the handle {handle!r} is taken")
    old, account.handle = account.handle, handle
    ctx.session.add(account)
    return f"{old} is now {handle}."


def change_email(ctx: Context, account: Account, new: str) -> str:
    """Move ``account`` to the address ``new`` (a plain local@domain, no other account's).

    The personal and game addresses stay valid (their tokens name the account, not the address); mails
    from the old address to them are held for confirmation from the new one, as any foreign sender's.
    """
    email = valid_address(new.strip().strip("<>"))
    if not email:
        raise CommandError(f"{new!r} is not an email address (local@domain)")
    if email == account.email:
        raise CommandError(f"{account.handle} already has the address {email}")
    taken = ctx.session.exec(select(Account.id).where(Account.email == email, Account.id != account.id)).first()
    if taken is not None:
        raise CommandError(f"{email} belongs to another account")
    old, account.email = account.email, email
    ctx.session.add(account)
    # Where the old address is kept beside the account: its event entries and challenges waiting for its answer.
    for entry in ctx.session.exec(select(EventPlayer).where(EventPlayer.account_id == account.id)).all():
        invited = ctx.session.exec(select(EventPlayer).where(EventPlayer.event_id == entry.event_id,
                                                             EventPlayer.email == email,
                                                             col(EventPlayer.account_id).is_(None))).first()
        if invited is not None:  # an invitation of the new address to an event the account is in already
            ctx.session.delete(invited)
            ctx.session.flush()
        entry.email = email
        ctx.session.add(entry)
    for challenge in ctx.session.exec(select(Challenge).where(Challenge.opponent_id == account.id,
                                                              Challenge.status == ChallengeStatus.OPEN)).all():
        challenge.opponent_email = email
        ctx.session.add(challenge)
    return f"{account.handle}'s address is now {email} (was {old})."


def _reason(prefix: str, text: str) -> str:
    text = " ".join(text.split())
    if len(text) > REASON_LENGTH:
        raise CommandError(f"the reason is at most {REASON_LENGTH} characters (it is kept with the game as "
                           f"'{prefix}: ...'), not {len(text)}")
    return f"{prefix}: {text}" if text else prefix


def _finish(ctx: Context, game: Game, outcome: Outcome) -> None:
    """End ``game`` outside play as the sweep ends one on time: observers told, ratings and events updated,
    each player's last mail with the result."""
    state = end_without_move(ctx, game, outcome)
    game_over(ctx, game)
    for seat in Seat:
        ctx.send(final_mail(ctx, game, seat, outcome, state))


def _active(game: Game) -> None:
    if game.status != GameStatus.ACTIVE:
        raise CommandError(f"game {game.id} is already over ({game.result}, {game.reason})")


def settle_game(ctx: Context, game: Game, winner: str, reason: str) -> str:
    """Finish an active game with the operator's result (``white``, ``black`` or ``draw``); rated as any."""
    result = _RESULTS.get(winner.lower())
    if result is None:
        raise CommandError(f"a game is settled for white, black or draw, not {winner!r}")
    if not reason.strip():
        raise CommandError("say why the game is settled (--reason TEXT): the players read it")
    _active(game)
    outcome = Outcome(result, _reason(SETTLED, reason))
    _finish(ctx, game, outcome)
    return f"Game {game.id} settled {result} ({outcome.reason}); both players are told by mail."


def abort_game(ctx: Context, game: Game, reason: str = "") -> str:
    """Finish an active game without a result: it changes no rating. Event games need a score: settle those."""
    _active(game)
    if game.event_id is not None:
        raise CommandError(f"game {game.id} belongs to an event, whose games need a score: settle it instead")
    outcome = Outcome("*", _reason(ABORTED, reason))
    _finish(ctx, game, outcome)
    return f"Game {game.id} aborted ({outcome.reason}); both players are told by mail."
