"""``variants``: list the games the server plays."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import Context, Result
from pbem.commands.base import ANYWHERE
from pbem.mail.addresses import AddressKind
from pbem.mail.render import render
from pbem.variants import all_variants


class Variants:
    name: ClassVar[str] = "variants"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "variants"
    summary: ClassVar[str] = "list the variants with their keys"
    scopes: ClassVar[frozenset[AddressKind]] = ANYWHERE

    def run(self, ctx: Context, args: list[str]) -> Result:
        return Result(render("player/variants.txt", variants=all_variants()))
