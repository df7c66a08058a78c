"""Game records: a PGN-like tag section with a Variant tag, and the variant's own movetext."""

from __future__ import annotations

from pbem.commands.base import Context
from pbem.engine.base import Seat
from pbem.gameplay import engine_for, handles, records
from pbem.store.models import Game


def _tag(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def game_record(ctx: Context, game: Game) -> str:
    """The whole record of ``game``: seven-tag roster, Variant, then numbered turns."""
    names = handles(ctx, game)
    engine = engine_for(game)
    tags = [
        _tag("Event", f"pbem game {game.id}"),
        _tag("Site", ctx.services.addresses.domain),
        _tag("Date", game.started_at.strftime("%Y.%m.%d")),
        _tag("Round", "-"),
        _tag("White", names[Seat.WHITE]),
        _tag("Black", names[Seat.BLACK]),
        _tag("Result", game.result),
        _tag("Variant", engine.title),
    ]
    if game.time_control:
        tags.append(_tag("TimeControl", game.time_control))
    if game.reason:
        tags.append(_tag("Termination", game.reason))
    words: list[str] = []
    previous_white = 0  # the move number of the white turn just written, if the last row was white
    for row in records(ctx, game):
        if row.seat == Seat.WHITE.value:
            words.append(f"{row.move_number}.")
            previous_white = row.move_number
        else:
            if previous_white != row.move_number:
                words.append(f"{row.move_number}...")
            previous_white = 0
        words.append(row.record)
    words.append(game.result)
    lines, line = [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > 79:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(tags) + "\n\n" + "\n".join(lines)
