"""The shape of an email command, and the kinds of address it may be sent to."""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

from pbem.app.context import Context, Result
from pbem.mail.addresses import AddressKind

__all__ = ["ANYWHERE", "IDENTIFIED", "INVITATION", "PERSONAL", "PUBLIC", "SEAT", "Command", "Documented"]

#: Where a command may be sent: the kinds of address of pbem.mail.addresses.
PUBLIC, PERSONAL, SEAT, INVITATION = AddressKind.PUBLIC, AddressKind.PERSONAL, AddressKind.SEAT, AddressKind.INVITATION
IDENTIFIED = frozenset({PERSONAL, SEAT})
ANYWHERE = frozenset({PUBLIC, PERSONAL, SEAT, INVITATION})


class Command(Protocol):
    """One email command, in the manner of Mailman 3: a name, a usage line, one ``run``."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]]
    usage: ClassVar[str]
    summary: ClassVar[str]
    scopes: ClassVar[frozenset[AddressKind]]

    def run(self, ctx: Context, args: list[str]) -> Result: ...


@runtime_checkable
class Documented(Protocol):
    """A command with more to say in ``help COMMAND`` than its usage line: what it does, with examples."""

    details: ClassVar[str]
