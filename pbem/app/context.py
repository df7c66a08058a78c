"""What the application core works in: the long-lived Services, one unit of work's Context, its Result."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from pbem.app.signals import Signals
from pbem.config import Config
from pbem.engine.base import Seat
from pbem.mail.addresses import Address, AddressBook
from pbem.mail.compose import Outgoing
from pbem.mail.inbound.parse import InboundMail
from pbem.store.models import Account, Challenge, Game, utcnow
from pbem.store.vocabulary import GameStatus

__all__ = ["CommandError", "Context", "Result", "Services"]


class CommandError(Exception):
    """A request could not be carried out; the message goes back to whoever asked (by mail or the CLI)."""


@dataclass
class Services:
    """Long-lived collaborators, shared by every mail the worker processes."""

    config: Config
    addresses: AddressBook
    now: Callable[[], datetime] = utcnow
    new_nonce: Callable[[], str] = field(default=lambda: secrets.token_hex(16))
    #: What other layers asked to hear about (tournaments subscribe to finished games at start-up).
    signals: Signals = field(default_factory=Signals)


@dataclass
class Result:
    """The answer to one command line, as it appears in the reply."""

    text: str
    ok: bool = True
    #: The news of this result for the reply's first line (empty: the reply finds one itself).
    headline: str = ""
    #: The players' words ``text`` holds (notes in a record), which the reply's secret scan skips once each.
    own_words: tuple[str, ...] = ()


@dataclass
class Context:
    """One recipient address of one inbound mail, inside the worker's transaction."""

    session: Session
    services: Services
    #: The mail being answered and the address it came to; None for the server's own work (the sweep).
    mail: InboundMail = None  # type: ignore[assignment]
    address: Address = None  # type: ignore[assignment]
    account: Account | None = None
    game: Game | None = None
    seat: Seat | None = None
    challenge: Challenge | None = None
    outgoing: list[Outgoing] = field(default_factory=list)
    move_played: bool = False
    #: Why this mail got no reply, when it got none on purpose (kept on the inbox row).
    unanswered: str = ""
    #: The address our reply comes from (and the sender answers to).
    reply_from: str = ""
    #: The games this mail changed, so their secrets are checked in every outgoing mail.
    touched_games: dict[int, Game] = field(default_factory=dict)

    #: A draw offer's own mail per game, dropped again if a move of the same mail carries the offer.
    offer_mails: dict[int, Outgoing] = field(default_factory=dict)

    #: Accounts already loaded for this mail (a lookup inside a dirty session would flush it).
    accounts: dict[int, Account] = field(default_factory=dict)
    #: Work shared by the mails of this unit of work (e.g. a finished game's record and GIF, made once).
    memo: dict[str, Any] = field(default_factory=dict)

    def account_by_id(self, account_id: int) -> Account | None:
        if account_id not in self.accounts:
            with self.session.no_autoflush:
                found = self.session.get(Account, account_id)
            if found is None:
                return None
            self.accounts[account_id] = found
        return self.accounts[account_id]

    def account_by_email(self, email: str) -> Account | None:
        """The account registered with ``email`` (a mail's recipient), if any; loaded ones first."""
        wanted = email.lower()
        for account in self.accounts.values():
            if account.email.lower() == wanted:
                return account
        with self.session.no_autoflush:
            # Addresses are stored lower-case (pbem.app.accounts.create_account).
            found = self.session.exec(select(Account).where(Account.email == wanted)).first()
        if found is not None and found.id is not None:
            self.accounts[found.id] = found
        return found

    def send(self, mail: Outgoing) -> None:
        self.outgoing.append(mail)

    def require_account(self) -> Account:
        if self.account is None:
            raise CommandError(
                "this command needs to know who you are: reply to one of the server's mails "
                f"(or register first: send 'register HANDLE' to {self.services.addresses.public})"
            )
        return self.account

    def require_game(self) -> tuple[Game, Seat]:
        if self.game is None or self.seat is None:
            raise CommandError("this command belongs to a game: reply to a mail of that game")
        return self.game, self.seat

    def require_active_game(self) -> tuple[Game, Seat]:
        game, seat = self.require_game()
        if game.status != GameStatus.ACTIVE:
            raise CommandError(f"game {game.id} is already over ({game.result}, {game.reason})")
        return game, seat
