"""ASCII tables of an event: the points table, the crosstables, and a knockout's bracket and standings."""

from __future__ import annotations

from pbem.events.standings import standings, tiebreaks_of
from pbem.events.store import EventData
from pbem.events.tiebreaks import LABELS, Row, score_of
from pbem.store.models import Game
from pbem.store.vocabulary import EntryStatus, EventStatus, GameStatus

__all__ = ["bracket", "knockout_standings", "number", "points_table", "round_robin_crosstable", "swiss_crosstable"]

_NAME = 16  # handle column width


def number(value: float) -> str:
    """2.5 -> "2.5", 3.0 -> "3", 3.25 -> "3.25"."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _name(handle: str) -> str:
    return handle if len(handle) <= _NAME else handle[: _NAME - 1] + "~"


def _withdrawn(data: EventData, account_id: int) -> str:
    entry = data.entry(account_id)
    return " (withdrawn)" if entry is not None and entry.status == EntryStatus.WITHDRAWN else ""


def points_table(data: EventData) -> str:
    """The standings on points and the event's tiebreaks, annulled players listed below."""
    rows = standings(data)
    names = tiebreaks_of(data)
    header = f"{'#':>3}  {'Player':<{_NAME}}  {'Rating':>6}  {'Games':>5}  {'Points':>6}"
    header += "".join(f"  {LABELS[name]:>5}" for name in names)
    lines = [header, "-" * len(header)]
    for row in rows:
        place = f"{row.rank}{'=' if row.shared else ''}"
        line = (f"{place:>3}  {_name(data.handle(row.player)):<{_NAME}}  {data.ratings[row.player]!s:>6}  "
                f"{row.games:>5}  {number(row.points):>6}")
        line += "".join(f"  {number(row.values[name]):>5}" for name in names)
        lines.append(line + _withdrawn(data, row.player))
    annulled = [data.handle(p.account_id) for p in data.players if p.annulled and p.account_id is not None]
    if annulled:
        lines += ["", f"Withdrawn, results annulled: {', '.join(annulled)}"]
    return "\n".join(lines)


def _cell(game: Game, player: int) -> str:
    if game.status != GameStatus.FINISHED:
        return "."
    own = score_of(game.result)[0 if game.white_id == player else 1]
    if game.reason.startswith("forfeit"):
        return "+" if own == 1.0 else "-" if own == 0.0 else "="
    return "1" if own == 1.0 else "0" if own == 0.0 else "="


def round_robin_crosstable(data: EventData, rows: list[Row], width: int) -> str:
    """A square table in standings order: 1 win, = draw, 0 loss, + / - forfeit, . still playing.

    ``width``: the games each pair plays, so each cell's characters.
    """
    column = max(width, len(str(len(rows)))) + 1
    header = f"{'#':>3}  {'Player':<{_NAME}} " + "".join(f"{n:>{column}}" for n in range(1, len(rows) + 1))
    header += f"  {'Points':>6}"
    lines = [header, "-" * len(header)]
    for number_, row in enumerate(rows, start=1):
        cells = []
        for other in rows:
            if other.player == row.player:
                cells.append("*" * width)
                continue
            games = [g for g in data.games if {g.white_id, g.black_id} == {row.player, other.player}]
            text = "".join(_cell(g, row.player) for g in games)
            cells.append(text.ljust(width) if text else " " * width)
        lines.append(f"{number_:>3}  {_name(data.handle(row.player)):<{_NAME}} "
                     + "".join(f"{cell:>{column}}" for cell in cells) + f"  {number(row.points):>6}")
    return "\n".join(lines)


def swiss_crosstable(data: EventData, rows: list[Row]) -> str:
    """Per round: the opponent's line number, their colour w/b, and 1 = 0 (. still playing), or bye."""
    index = {row.player: number_ for number_, row in enumerate(rows, start=1)}
    rounds = max([data.event.current_round, *[g.event_round for g in data.games]])
    header = f"{'#':>3}  {'Player':<{_NAME}}" + "".join(f"  {'R' + str(r):<5}" for r in range(1, rounds + 1))
    header += f"  {'Points':>6}"
    lines = [header, "-" * len(header)]
    for number_, row in enumerate(rows, start=1):
        entry = data.entry(row.player)
        cells = []
        for round_ in range(1, rounds + 1):
            game = next((g for g in data.games if g.event_round == round_
                         and row.player in (g.white_id, g.black_id)), None)
            if game is not None:
                opponent = game.black_id if game.white_id == row.player else game.white_id
                colour = "w" if game.white_id == row.player else "b"
                cells.append(f"{index.get(opponent, '?')}{colour}{_cell(game, row.player)}")
            elif entry is not None and round_ in entry.byes:
                cells.append("bye")
            else:
                cells.append("-")
        lines.append(f"{number_:>3}  {_name(data.handle(row.player)):<{_NAME}}"
                     + "".join(f"  {cell:<5}" for cell in cells) + f"  {number(row.points):>6}")
    return "\n".join(lines)


def _match_games(data: EventData, round_: int, high: int, low: int | None) -> list[Game]:
    return [g for g in data.games if g.event_round == round_ and {g.white_id, g.black_id} == {high, low}]


def bracket(data: EventData) -> str:
    """Each round's matches: the games from the higher seed's side and who went through."""
    lines: list[str] = []
    for number_, matches in enumerate(data.event.state.get("rounds", []), start=1):
        lines.append(f"Round {number_}:")
        for match in matches:
            high, low = match["high"], match["low"]
            if low is None:
                lines.append(f"  {data.handle(high)}: bye")
                continue
            games = _match_games(data, number_, high, low)
            cells = " ".join(_cell(g, high) for g in games)
            if match.get("winner"):
                verdict = f"{data.handle(match['winner'])} goes through ({match.get('how', '')})"
            else:
                verdict = "playing"
            lines.append(f"  {data.handle(high)} v {data.handle(low)}: [{cells}] {verdict}")
    return "\n".join(lines) if lines else "(no round played yet)"


def knockout_standings(data: EventData) -> str:
    """Who is still in, and in which round each other player went out."""
    out: dict[int, int] = {}
    rounds = data.event.state.get("rounds", [])
    for number_, matches in enumerate(rounds, start=1):
        for match in matches:
            winner = match.get("winner")
            if winner is None:
                continue
            loser = match["low"] if winner == match["high"] else match["high"]
            if loser is not None:
                out[loser] = number_
    if not rounds:
        entered = [p.account_id for p in data.players if p.account_id is not None and p.status == EntryStatus.ENTERED]
        return "Entered: " + (", ".join(f"{data.handle(a)} ({data.ratings[a]})" for a in entered) or "nobody yet")
    lines = []
    still = [p.account_id for p in data.players if p.account_id is not None and p.status == EntryStatus.ENTERED
             and p.account_id not in out]
    if data.event.status == EventStatus.FINISHED and len(still) == 1:
        lines.append(f"Winner: {data.handle(still[0])} ({data.ratings[still[0]]})")
    elif still:
        lines.append("Still in: " + ", ".join(f"{data.handle(a)} ({data.ratings[a]})" for a in still))
    for number_ in range(len(rounds), 0, -1):
        gone = [a for a, r in out.items() if r == number_]
        if gone:
            label = "Runner-up" if number_ == len(rounds) and data.event.status == EventStatus.FINISHED else \
                f"Out in round {number_}"
            lines.append(f"{label}: " + ", ".join(f"{data.handle(a)} ({data.ratings[a]})" for a in gone))
    return "\n".join(lines)
