"""``say TEXT``: a note to the opponent, relayed in the sender's own words with the game's next mail."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import Context, Result
from pbem.app.notes import add_note
from pbem.commands.base import SEAT
from pbem.mail.addresses import AddressKind


class Say:
    name: ClassVar[str] = "say"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "say TEXT   (several 'say' lines in one mail make one note)"
    summary: ClassVar[str] = ("a note to your opponent, sent with your move or on its own (500 characters, "
                              "10 a day); kept in the game's record, and shown to observers only if the "
                              "game has option public-notes=yes")
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})
    details: ClassVar[str] = (
        "Your words go to your opponent exactly as you write them, quoted under\n"
        "\"HANDLE says:\", in the mail about your move (or in a mail of their own when\n"
        "the mail has no move). Write it in a reply to a game mail.\n\n"
        "Examples:\n"
        "  say Good luck, and thanks for the game!\n"
        "  Pe2-e4\n"
        "  say I will be away this weekend; my next move may take a while."
    )

    def run(self, ctx: Context, args: list[str]) -> Result:
        return add_note(ctx, " ".join(args))
