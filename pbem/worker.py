"""One inbound mail -> one transaction: identify the sender, run the commands, queue the replies."""

from __future__ import annotations

import dataclasses
import logging
import math
import re
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, func, select

from pbem.app.clocks import clock_lines
from pbem.app.context import CommandError, Context, Result, Services
from pbem.app.game_directory import game_directory
from pbem.app.game_files import final_attachments
from pbem.app.game_mail import subject_of, thread_root
from pbem.app.game_pictures import html_source
from pbem.app.game_state import handles, records, state_of
from pbem.app.games import play_move
from pbem.app.secrecy import queue_outgoing
from pbem.app.settings import wants_pictures, white_bottom_for
from pbem.app.text import preview
from pbem.commands.base import Command
from pbem.commands.move import Move
from pbem.commands.registry import looks_like_command, lookup, nearest
from pbem.engine.base import Seat
from pbem.engine.errors import InvalidMoveError
from pbem.engine.notation import looks_like_move
from pbem.mail.addresses import Address, AddressKind
from pbem.mail.compose import Outgoing
from pbem.mail.inbound.parse import InboundMail, parse_mail
from pbem.mail.inbound.reading import reading_from_text, reading_text
from pbem.mail.outbox import queue_mail
from pbem.mail.render import render
from pbem.metrics import MAILS_FAILED, MAILS_PROCESSED, PROCESSING_SECONDS
from pbem.notices import NoticeWriter
from pbem.store.db import Database
from pbem.store.game_writes import write_games
from pbem.store.inbox import WAITING, StoredMail, mark, new_mails, stored_mail
from pbem.store.loaded import RowsOf
from pbem.store.models import Account, Challenge, Game, OutboxItem, utcnow
from pbem.store.prepared import Prepared
from pbem.store.vocabulary import GameStatus, InboxStatus, OutboxKind

__all__ = ["Report", "Worker", "echo", "read_ahead"]

log = logging.getLogger(__name__)

_BRACED = re.compile(r"\{[^}]*\}")


def read_ahead(raw: bytes, envelope_from: str) -> str:
    """A received mail read as the worker reads it, kept as text: the listener stores it with the mail
    (pbem.mail.smtpd.GroupCommit), so that the worker need not read it again."""
    return reading_text(parse_mail(raw, envelope_from, looks_like_command))


def echo(line: str) -> str:
    """A command line as the reply quotes it: a secret in braces is never echoed.

    The receipt already tells the sender the square in words; echoing ``{f4}``
    could match another seat's pending secret in the leak scan.
    """
    return _BRACED.sub("{...}", line)


@dataclass
class Report:
    """What the reply to one mail says: each command's result, and what was not read."""

    results: list[tuple[str, Result]] = field(default_factory=list)
    unprocessed: list[tuple[str, str]] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    #: For the log: each line's command name (never its words) and outcome class.
    outcomes: list[str] = field(default_factory=list)

    def result(self, line: str, result: Result, name: str = "") -> None:
        self.results.append((echo(line), result))
        self.outcomes.append(f"{name or 'command'} {'ok' if result.ok else 'refused'}")

    def unread(self, line: str, why: str) -> None:
        self.unprocessed.append((echo(line), why))
        self.outcomes.append("unread")

    def ignore(self, line: str, why: str) -> None:
        self.ignored.append((echo(line), why))
        self.outcomes.append("ignored")

    def headline(self) -> str:
        """The news of a reply in a game, for its first line: the first result's own headline, else
        the first line of the first result, else what was not read."""
        for _line, result in self.results:
            if result.headline:
                return result.headline
        for line, result in self.results:
            first = result.text.strip().splitlines()[0] if result.text.strip() else ""
            return f"{line}: {first}" if line and not result.ok else first
        if self.unprocessed or self.ignored:
            return "Nothing was done: see below for the lines not read."
        return ""


def _not_a_command(word: str) -> str:
    """Why a line was not read, with the command names it was probably meant to be."""
    close = [f"'{name}'" for name in nearest(word)]
    if not close:
        return "not a command"
    return f"not a command; did you mean {' or '.join(close)}?"


#: How often a worker busy with mail looks for deadline notices; idle, it looks every round.
NOTICE_POLL_SECONDS = 1.0

#: A game's address names the game and the seat: the game, locked, with both players' accounts, read by one
#: prepared statement and made ORM objects by hand (pbem.store.loaded), which cost the worker a third of what
#: the ORM's own query of the three did.
_GAMES: Any = Game.__table__  # type: ignore[attr-defined]
_WHITE = Account.__table__.alias("white")  # type: ignore[attr-defined]
_BLACK = Account.__table__.alias("black")  # type: ignore[attr-defined]
_SEAT_ROWS = RowsOf((Game, _GAMES), (Account, _WHITE), (Account, _BLACK))
_SEAT_GAME = (select(*_SEAT_ROWS.columns)
              .select_from(_GAMES.join(_WHITE, _GAMES.c.white_id == _WHITE.c.id)
                           .join(_BLACK, _GAMES.c.black_id == _BLACK.c.id))
              .where(_GAMES.c.id == bindparam("game_id")))


class Worker:
    """Applies stored inbox rows, oldest first, each in exactly one transaction."""

    def __init__(self, db: Database, services: Services) -> None:
        self.db = db
        self.services = services
        self.notices = NoticeWriter(db, services)
        self._seat_game = Prepared(db.locked(_SEAT_GAME, of=_GAMES))
        self._claims: dict[int, Prepared] = {}  # the inbox's claim, by batch size
        #: When the notice queue was last found empty (monotonic seconds).
        self._notices_found_none = -math.inf

    def process_next(self, batch: int = 1) -> bool:
        """Write one deadline notice the sweep left, then process up to ``batch`` waiting mails, oldest
        first; False when there was neither.

        One notice a round: a sweep that ended a hundred games leaves a hundred notices (each some 40 ms
        of pictures), and the moves that arrive meanwhile go between them instead of after them all.
        While mail keeps coming, a notice queue found empty is looked at again after ``NOTICE_POLL_SECONDS``
        (a look was a thirtieth of a move); a round that finds no mail always looks, so False means both
        queues were empty.
        The mails share one commit. A mail that fails leaves nothing behind but its 'failed' mark and
        the answer that says so: its batch is rolled back and the others in it are applied again
        (``Database.work_through``).
        """
        looked = self._notices_due()
        wrote = self._write_notice() if looked else False
        if self.process_mail(batch):
            return True
        return wrote or (not looked and self._write_notice())

    def _notices_due(self) -> bool:
        return time.monotonic() - self._notices_found_none >= NOTICE_POLL_SECONDS

    def _write_notice(self) -> bool:
        wrote = self.notices.write_next()
        # Rounds after one that wrote a notice look again at once: a sweep's notices go one a round.
        self._notices_found_none = -math.inf if wrote else time.monotonic()
        return wrote

    def process_mail(self, batch: int = 1) -> bool:
        """Process up to ``batch`` waiting mails, oldest first; False when the inbox is empty."""
        claim = self._claims.get(batch)
        if claim is None:
            claim = self._claims[batch] = Prepared(self.db.claimable(new_mails(batch)))
        return self.db.work_through(WAITING, claim, self._process_one, self._fail_one)

    def _process_one(self, session: Session, row: Any) -> None:
        item = StoredMail.of(row)
        item.status = self._process(session, item)
        write_games(session)  # its games' rows, without the ORM's flush
        mark(session, item, utcnow())  # in the mail's transaction: the mark stands or falls with the work

    def _fail_one(self, session: Session, row: Any, error: Exception) -> None:
        """A mail whose processing raised (its transaction is rolled back): marked failed, its sender told."""
        item = StoredMail.of(row)
        log.error("inbox %s (%s) failed", item.id, item.message_id, exc_info=error)
        MAILS_FAILED.inc()
        item.status = InboxStatus.FAILED
        item.error = "".join(traceback.format_exception(error))[-4000:]
        try:
            with session.begin_nested():
                self._notify_failure(session, item)
        except Exception:  # the failure mark must be committed whatever happens here
            log.exception("inbox %s: could not tell the sender", item.id)
        mark(session, item, utcnow())

    def drain(self) -> int:
        count = 0
        while self.process_next():
            count += 1
        return count

    # -- one mail ---------------------------------------------------------------------------

    def _process(self, session: Session, item: StoredMail) -> str:
        """Answer one stored mail; its new status: ``done``, or ``held`` until its owner confirms it."""
        started = time.perf_counter()
        mail = reading_from_text(item.parsed) or parse_mail(item.raw, item.envelope_from, looks_like_command)
        if mail.automatic:
            item.error = f"not answered: automatic mail ({mail.automatic})"
            log.info("inbox %s %s not answered: automatic mail (%s)", item.id, item.message_id, mail.automatic)
            return InboxStatus.DONE
        outcomes: list[str] = []
        status = self._answer(session, item, mail, outcomes=outcomes)
        took = time.perf_counter() - started
        log.info("inbox %s %s processed in %.1f ms: %s", item.id, item.message_id, took * 1000,
                 ", ".join(outcomes) or "no commands")
        PROCESSING_SECONDS.observe(took)
        MAILS_PROCESSED.labels(status).inc()
        return status

    def _answer(self, session: Session, item: StoredMail, mail: InboundMail, confirmed: bool = False,
                outcomes: list[str] | None = None) -> str:
        status = InboxStatus.DONE
        seen: set[str] = set()
        for recipient in item.recipients:
            address = self.services.addresses.verify(recipient)
            if address is None or recipient.lower() in seen:
                continue
            seen.add(recipient.lower())
            ctx = Context(session=session, services=self.services, mail=mail, address=address)
            if address.kind == AddressKind.CONFIRM:
                self._confirm(ctx, item)
                self._flush(ctx)
                continue
            problem = self._identify(ctx) or self._disabled(ctx)
            if problem is None and not confirmed and self._foreign(ctx):
                self._hold(ctx, item)
                self._flush(ctx)
                status = InboxStatus.HELD
                log.warning("inbox %s %s held: a %s address of account %s used from another sender; confirmation "
                            "asked", item.id, item.message_id, ctx.address.kind, ctx.account.id if ctx.account else "?")
                continue
            report = Report()
            if problem is not None:
                report.result("", Result(problem, ok=False), "address")
            else:
                self._run(ctx, report)
            if outcomes is not None:
                outcomes.extend(report.outcomes)
            self._reply(ctx, report)
            if ctx.unanswered:
                item.error = ctx.unanswered
            self._flush(ctx)
        return status

    # -- a token used from another address ----------------------------------------------------

    def _foreign(self, ctx: Context) -> bool:
        """A personal or seat token used by someone whose From is not the account's address."""
        if ctx.address.kind not in (AddressKind.PERSONAL, AddressKind.SEAT) or ctx.account is None:
            return False
        return ctx.mail.sender.lower() != ctx.account.email.lower()

    def _hold(self, ctx: Context, item: StoredMail) -> None:
        """Do nothing yet; ask the registered address whether the mail is theirs (it may be a leaked token)."""
        account = ctx.account
        assert account is not None and item.id is not None
        item.error = f"held: sent from {ctx.mail.sender or 'an unknown address'}, not {account.email}"
        body = render("player/confirm_request.txt", sender=ctx.mail.sender or "an unknown address",
                      commands=[echo(line) for line in ctx.mail.commands], account=account,
                      game=ctx.game)
        ctx.send(Outgoing(to=account.email, subject="[pbem] please confirm a mail sent in your name",
                          body=body, reply_to=self.services.addresses.confirm(item.id)))

    def _confirm(self, ctx: Context, item: StoredMail) -> None:
        """The owner answers a confirmation request: carry out the held mail, once."""
        # Locked: two confirmations applied at once by two instances must not both find it held.
        held = (stored_mail(ctx.session, ctx.address.inbox_id, for_update=True) if ctx.address.inbox_id is not None
                else None)
        owner = self._owner_of(ctx.session, held) if held is not None else None
        if held is None or owner is None or held.status != InboxStatus.HELD:
            return  # nothing to confirm any more: stale addresses are refused at RCPT anyway
        if ctx.mail.sender.lower() != owner.email.lower():
            return  # only the registered address confirms; anyone else is ignored silently
        if not any(line.split()[0].lower() == "confirm" for line in ctx.mail.commands if line.split()):
            ctx.send(Outgoing(to=owner.email, subject="Re: [pbem] please confirm a mail sent in your name",
                              body="Nothing was done: reply with the word 'confirm' to carry out the held mail.\n",
                              reply_to=self.services.addresses.confirm(held.id or 0)))
            return
        original = dataclasses.replace(parse_mail(held.raw, held.envelope_from, looks_like_command),
                                       sender=owner.email)
        held.status = self._answer(ctx.session, held, original, confirmed=True)
        held.error = f"confirmed by {owner.email}"
        mark(ctx.session, held, utcnow())

    def _owner_of(self, session: Session, item: StoredMail) -> Account | None:
        for recipient in item.recipients:
            address = self.services.addresses.verify(recipient)
            if address is not None and address.account_id is not None:
                return session.get(Account, address.account_id)
        return None

    def _identify(self, ctx: Context) -> str | None:
        """Fill in who is speaking and for which game; a reason when the address is stale."""
        address = ctx.address
        services = self.services
        session = ctx.session
        if address.kind == AddressKind.PUBLIC:
            if ctx.mail.sender:
                ctx.account = session.exec(select(Account).where(Account.email == ctx.mail.sender)).first()
            ctx.reply_from = services.addresses.public
            return None
        if address.kind == AddressKind.INVITATION:
            ctx.challenge = session.get(Challenge, address.challenge_id)
            if ctx.challenge is None:
                return "this invitation no longer exists"
            ctx.account = session.exec(
                select(Account).where(Account.email == ctx.challenge.opponent_email)).first()
            ctx.reply_from = services.addresses.invitation(address.challenge_id or 0)
            return None
        if address.kind == AddressKind.SEAT and self._identify_seat(ctx):
            return None
        ctx.account = session.get(Account, address.account_id)
        if ctx.account is None:
            return "this address belongs to no account any more"
        ctx.reply_from = services.addresses.personal(ctx.account.id or 0)
        if address.kind == AddressKind.SEAT:
            return "this game address is not valid"
        return None

    def _identify_seat(self, ctx: Context) -> bool:
        """A game's address: the game (locked) and both its players in one round trip; False when the address
        is not the seat of its account in that game (``_identify`` then says why)."""
        address = ctx.address
        rows = self._seat_game.rows(ctx.session, {"game_id": address.game_id})
        if not rows or address.seat is None:
            return False
        game, white, black = _SEAT_ROWS.objects(ctx.session, rows[0])
        account = white if address.seat is Seat.WHITE else black
        if account.id != address.account_id:  # the join made it the seat's player: is it the address's?
            return False
        for player in (white, black):
            ctx.accounts[player.id] = player  # the opponent's clock and mail need theirs: no second look
        ctx.account, ctx.game, ctx.seat = account, game, address.seat
        ctx.reply_from = self.services.addresses.seat(game.id or 0, address.seat, account.id or 0)
        return True

    def _disabled(self, ctx: Context) -> str | None:
        """The refusal for a mail from or for an account the operator disabled: nothing in it is done."""
        if ctx.account is None or not ctx.account.disabled:
            return None
        log.warning("mail for account %s refused: the account is disabled", ctx.account.id)
        return ("your account is disabled by the operator of this server: nothing in this mail was done "
                "(your games' clocks run on as usual)")

    def _run(self, ctx: Context, report: Report) -> None:
        move_tried = False
        games_listed = False
        for line in ctx.mail.commands:
            word, *args = line.split()
            command = lookup(word)
            is_move = isinstance(command, Move) or (command is None and ctx.address.kind == AddressKind.SEAT)
            if is_move and move_tried:
                report.ignore(line, "only one move is played per mail")
                continue
            misdirected = self._misdirected(ctx, line, command)
            if misdirected:
                # The sender's games are listed once per reply, under the first line sent astray.
                lines = [misdirected] if games_listed else [misdirected, "", *game_directory(ctx, ctx.account)]
                games_listed = True
                report.result(line, Result("\n".join(lines), ok=False), "misaddressed")
                continue
            if command is None and not is_move:
                report.unread(line, _not_a_command(word))
                continue
            if command is not None and ctx.address.kind not in command.scopes:
                report.result(line, Result(self._scope_error(ctx, command.name), ok=False), command.name)
                continue
            try:
                result = play_move(ctx, line) if command is None else command.run(ctx, args)
            except InvalidMoveError as error:
                if command is None:  # a line that is no command and no move notation
                    report.unread(line, f"not a command, nor a move ({error})")
                    continue
                result = Result(str(error), ok=False)
            except CommandError as error:
                result = Result(str(error), ok=False)
            if is_move:
                move_tried = True
            report.result(line, result, "move" if is_move else command.name if command else "")

    def _misdirected(self, ctx: Context, line: str, command: Command | None) -> str:
        """Why a move or a game's command cannot be played from the public or personal address; '' if it is none.

        A seat-only command from an unknown sender keeps the "who are you" answer of ``_scope_error``.
        """
        if ctx.address.kind not in (AddressKind.PUBLIC, AddressKind.PERSONAL):
            return ""
        if command is None and looks_like_move(line):
            return "moves go to the game's own address: reply to a mail of that game"
        if command is not None and command.scopes == {AddressKind.SEAT} \
                and (ctx.account is not None or isinstance(command, Move)):
            return f"'{command.name}' belongs to a game: reply to a mail of that game"
        return ""

    def _scope_error(self, ctx: Context, name: str) -> str:
        if ctx.address.kind == AddressKind.PUBLIC:
            return (f"'{name}' needs to know who you are: reply to one of the server's mails to you "
                    f"(register first with 'register HANDLE' if you have no account)")
        if ctx.address.kind == AddressKind.INVITATION:
            return f"'{name}' is not available here: reply 'accept' or 'decline' to the invitation first"
        return f"'{name}' belongs to a game: reply to a mail of that game"

    # -- replies ----------------------------------------------------------------------------

    def _reply_target(self, ctx: Context) -> str:
        """The reply's recipient: from the database, never from the mail, once the sender is known."""
        if ctx.account is not None:
            return ctx.account.email
        if ctx.challenge is not None:
            return ctx.challenge.opponent_email
        return ctx.mail.sender

    def _reply(self, ctx: Context, report: Report) -> None:
        to = self._reply_target(ctx)
        if not to:
            return
        failed_only = not any(result.ok for _, result in report.results)
        paused = ""
        if failed_only:
            left, resume = self._error_replies_left(ctx, to)
            if left == 0:
                log.warning("not answering %s: more than the allowed error replies this hour", to)
                ctx.unanswered = "not answered: error-reply limit reached"
                return
            if left == 1:  # silence after this one must not look like a server that died
                paused = (f"This is the last error reply you get this hour: further error replies are paused "
                          f"until {resume:%Y-%m-%d %H:%M} UTC.")
        mail = ctx.mail
        references = [*mail.references, mail.message_id]
        if ctx.game is not None:
            subject = f"Re: {subject_of(ctx, ctx.game)}"
            references.insert(0, thread_root(ctx, ctx.game))
        else:
            original = mail.subject.strip()
            subject = original if original.lower().startswith("re:") else f"Re: {original or 'your mail to pbem'}"
        game = ctx.game
        body = render("player/reply.txt", report=report, problems=mail.problems,
                      nothing=not (report.results or report.unprocessed or report.ignored),
                      public=self.services.addresses.public, headline=preview(report.headline()) if game else "",
                      clock=clock_lines(ctx, game, handles(ctx, game)) if game else [], paused=paused)
        kind = OutboxKind.ERROR if failed_only else OutboxKind.REPLY
        reply = Outgoing(to=to, subject=subject, body=body, reply_to=ctx.reply_from or self.services.addresses.public,
                         in_reply_to=mail.message_id, references=tuple(references),
                         game_id=ctx.game.id if ctx.game else None, kind=kind,
                         own_words=tuple(words for _, result in report.results for words in result.own_words))
        if game is not None and ctx.seat is not None and game.status != GameStatus.ACTIVE \
                and game.id in ctx.touched_games:
            self._final(ctx, game, ctx.seat, reply)
        ctx.send(reply)
        # The reply goes first in the outbox, before the mails the commands produced.
        ctx.outgoing.insert(0, ctx.outgoing.pop())

    def _final(self, ctx: Context, game: Game, seat: Seat, reply: Outgoing) -> None:
        """The reply that ends a game (a resignation, an accepted draw, a mate) is that player's last mail
        of it: like the opponent's, it gets the final picture, the HTML part, the record and the GIF.
        Other replies are results and stay plain text (the opponent's mail carries the picture)."""
        reply.attachments = final_attachments(ctx, game)
        if not wants_pictures(ctx.account_by_email(reply.to)):
            return  # the text alone, as they asked (for_reader drops the picture too)
        source = html_source(game, state_of(game), seat, self.services.addresses.domain,
                             clock_lines(ctx, game, handles(ctx, game)), records(ctx, game),
                             white_bottom=white_bottom_for(ctx, game, seat))
        if source.diagram.strip() and source.diagram.strip() in reply.body:
            reply.html_source = source

    def _flush(self, ctx: Context) -> None:
        queue_outgoing(ctx)

    def _error_replies_left(self, ctx: Context, to: str) -> tuple[int | None, datetime]:
        """How many error replies ``to`` may still get this hour (None: no limit), and when the oldest
        of them leaves the hour, which is when one more is allowed (a loop or a flood must not make us
        a spammer)."""
        now = self.services.now()
        limit = self.services.config.server.error_replies_per_hour
        if limit <= 0:
            return None, now
        since = now - timedelta(hours=1)
        sent = ctx.session.exec(select(func.count(), func.min(OutboxItem.created_at)).select_from(OutboxItem).where(
            OutboxItem.recipient == to, OutboxItem.kind == OutboxKind.ERROR, col(OutboxItem.created_at) >= since)).one()
        count, oldest = int(sent[0]), sent[1]
        return max(limit - count, 0), (oldest or now) + timedelta(hours=1)

    def _notify_failure(self, session: Session, item: StoredMail) -> None:
        """Tell the sender that their mail is kept but could not be applied (the registered address if known)."""
        to, reply_to = "", self.services.addresses.public
        for recipient in item.recipients:
            address: Address | None = self.services.addresses.verify(recipient)
            account = session.get(Account, address.account_id) if address and address.account_id else None
            if account is not None:
                to, reply_to = account.email, self.services.addresses.personal(account.id or 0)
                break
        if not to:  # an unidentified sender still gets a clear answer, unless the mail was automatic
            mail = parse_mail(item.raw, item.envelope_from)
            if mail.automatic or not mail.sender:
                return
            to = mail.sender
        body = render("player/failure.txt", message_id=item.message_id)
        queue_mail(session, Outgoing(to=to, subject="Re: your mail to pbem could not be processed", body=body,
                                     reply_to=reply_to, in_reply_to=item.message_id, references=(item.message_id,)),
                   self.services.addresses, (), self.services.now())
