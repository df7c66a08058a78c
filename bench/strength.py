"""Playing strength of the computer levels: level 1 against a random mover, each level against the one below.

Usage: python bench/strength.py [--games N] [--variants KEY ...] [--max-level L | --levels L ...]
                                [--max-seconds S] [--max-plies P] [--jobs J] [--seed SEED] [--json FILE]
                                [--games-log FILE]

For each variant and pairing (level 1 - random, 2 - 1, ..., L - (L-1)) N games are played with colours
alternated. Between two computer levels a game ends early when both agree it is decided, as engine
matches adjudicate (cutechess-cli's two-sided resign rule): for 3 moves of each side in a row the side
ahead scores its own position at +600 centipawns or more and the side behind at -600 or less. A game that
reaches --max-plies without an end is adjudicated on the evaluation of its last position (300 centipawns
or more decides it, anything less is a draw). Printed per pairing: wins, draws and losses of the higher
level, its score, the Elo difference with a 95% error bar (from the spread of the game results; a clean
sweep gives the one-sided 95% bound instead), the mean seconds per move of each side, and how many games
were adjudicated (at the ply limit or by the resign rule).
Two levels that play without randomness (3 and up: no noise on their root moves) would play the same
game again and again with the same colours; such a pairing starts each pair of games (one with each
colour) from its own opening of --opening-plies random legal plies (default 4), as engine matches
play from an opening suite. Pairings with a noisy level start from the initial position.
--games-log appends every finished game to FILE as a JSON line and, run again, plays only the games not
yet there: a run of many hours can be stopped and taken up again, on another day or machine.
Exit status 1 if a target of the issue is missed (level 1 >= 90% against random, each level >= 60%
against the one below), 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.engine.base import Seat, Variant
from pbem.engine.capabilities import ActionCompletion, Evaluation, SecretKeeping
from pbem.engine.search import LEVELS, choose_action
from pbem.variants import all_variants, get_variant

#: The side "level 0" is the random mover.
RANDOM = 0
ADJUDICATE_AT = 300
#: The two-sided resign rule between computer levels: both scores past this for RESIGN_MOVES moves each.
RESIGN_AT = 600
RESIGN_MOVES = 3


@dataclass
class Game:
    """One game's result from the higher level's side: 1, 0.5 or 0."""

    variant: str
    high: int
    low: int
    high_is_white: bool
    score: float
    plies: int
    reason: str
    adjudicated: bool
    high_seconds: list[float] = field(default_factory=list)
    low_seconds: list[float] = field(default_factory=list)
    number: int = 0
    seed: int = 0
    max_plies: int = 0
    max_seconds: float | None = None
    opening: list[str] = field(default_factory=list)  # the random plies played before the levels took over


@dataclass
class Pairing:
    variant: str
    high: int
    low: int
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_error: float
    elo_bound: str
    high_seconds_per_move: float
    low_seconds_per_move: float
    adjudicated: int
    mean_plies: float
    target: float
    met: bool


def random_move(engine: Variant[Any, Any], state: Any, rng: random.Random) -> Any:
    """A uniformly random legal action; a phase-out gets the square the computer would choose for it."""
    action = rng.choice(list(engine.legal_actions(state)))
    if isinstance(engine, ActionCompletion):
        action = engine.complete_action(state, action)
    return action


def deterministic(level: int) -> bool:
    """A level that plays the same move in the same position every time (no noise on its root moves)."""
    return level != RANDOM and LEVELS[level].noise == 0


def opening(engine: Variant[Any, Any], plies: int, seed: int) -> tuple[Any, list[str]]:
    """The position after ``plies`` random legal plies (the same for both games of a pair) and their notation;
    a ply that would end the game ends the opening instead."""
    rng = random.Random(seed)
    state = engine.setup()
    played: list[str] = []
    for ply in range(plies):
        action = random_move(engine, state, rng)
        sealed = engine.seal(state, action, f"opening-{seed}-{ply}") if isinstance(engine, SecretKeeping) else action
        after = engine.apply(state, sealed).state
        if engine.outcome(after) is not None:
            break
        played.append(engine.describe(state, action))
        state = after
    return state, played


def play_game(variant: str, high: int, low: int, high_is_white: bool, seed: int, max_plies: int,
              max_seconds: float | None, number: int = 0, opening_plies: int = 0, opening_seed: int = 0) -> Game:
    engine = get_variant(variant)
    rng = random.Random(seed)
    state, played = opening(engine, opening_plies, opening_seed) if opening_plies else (engine.setup(), [])
    high_seat = Seat.WHITE if high_is_white else Seat.BLACK
    game = Game(variant, high, low, high_is_white, 0.5, 0, "", False, number=number, seed=seed,
                max_plies=max_plies, max_seconds=max_seconds, opening=played)
    # The high level's own score after each of its moves, negated for the low level's: the last 2k plies.
    verdicts: list[int] = []
    for ply in range(max_plies):
        over = engine.outcome(state)
        if over is not None:
            game.plies = ply
            game.reason = over.reason
            winner = over.winner
            game.score = 0.5 if winner is None else 1.0 if winner is high_seat else 0.0
            return game
        if low != RANDOM and len(verdicts) >= 2 * RESIGN_MOVES:
            recent = verdicts[-2 * RESIGN_MOVES:]
            if all(v >= RESIGN_AT for v in recent) or all(v <= -RESIGN_AT for v in recent):
                game.plies = ply
                game.adjudicated = True
                game.score = 1.0 if recent[-1] > 0 else 0.0
                game.reason = f"resign rule at {recent[-1]:+d}"
                return game
        seat = engine.to_act(state)
        assert seat is not None
        level = high if seat is high_seat else low
        started = time.monotonic()
        if level == RANDOM:
            action = random_move(engine, state, rng)
        else:
            result = choose_action(engine, state, seat, level, rng, time.monotonic, max_seconds=max_seconds)
            action = result.action
            verdicts.append(result.score if seat is high_seat else -result.score)
        (game.high_seconds if seat is high_seat else game.low_seconds).append(time.monotonic() - started)
        if isinstance(engine, SecretKeeping):
            action = engine.seal(state, action, f"bench-{seed}-{ply}")
        state = engine.apply(state, action).state
    game.plies = max_plies
    game.adjudicated = True
    over = engine.outcome(state)
    if over is not None:
        game.reason = over.reason
        winner = over.winner
        game.score = 0.5 if winner is None else 1.0 if winner is high_seat else 0.0
        game.adjudicated = False
        return game
    assert isinstance(engine, Evaluation)
    seat = engine.to_act(state)
    value = engine.evaluate(state) * (1 if seat is high_seat else -1)
    game.reason = f"adjudicated at {value:+d}"
    game.score = 1.0 if value >= ADJUDICATE_AT else 0.0 if value <= -ADJUDICATE_AT else 0.5
    return game


def _play(job: tuple[Any, ...]) -> Game:
    return play_game(*job)


def logged_games(path: Path | None) -> dict[tuple[Any, ...], Game]:
    """The games a --games-log already holds, by what identifies a game's conditions."""
    if path is None or not path.exists():
        return {}
    games = {}
    for line in path.read_text().splitlines():
        if line.strip():
            game = Game(**json.loads(line))
            games[game_key(game)] = game
    return games


def game_key(game: Game) -> tuple[Any, ...]:
    """A game's conditions: the same key means the same game, to be played once."""
    return key_of(game.variant, game.high, game.low, game.number, game.seed, game.max_plies, game.max_seconds,
                  len(game.opening) > 0)


def key_of(variant: str, high: int, low: int, number: int, seed: int, max_plies: int, max_seconds: float | None,
           opened: bool) -> tuple[Any, ...]:
    return (variant, high, low, number, seed, max_plies, max_seconds, opened)


def elo(score: float) -> float:
    return -400 * math.log10(1 / score - 1)


def summarise(games: list[Game]) -> Pairing:
    first = games[0]
    n = len(games)
    results = [g.score for g in games]
    mean = sum(results) / n
    spread = math.sqrt(sum((r - mean) ** 2 for r in results) / n)
    error = 1.96 * spread / math.sqrt(n)
    if 0 < mean < 1:
        bound = ""
        low_p, high_p = max(mean - error, 0.5 / n), min(mean + error, 1 - 0.5 / n)
        difference, half_width = elo(mean), (elo(high_p) - elo(low_p)) / 2
    else:
        # A clean sweep has no spread: give the one-sided 95% bound (all n games won has chance 0.05).
        swept = 0.05 ** (1 / n)
        bound = ">=" if mean == 1 else "<="
        difference, half_width = elo(swept if mean == 1 else 1 - swept), 0.0
    high_moves = [s for g in games for s in g.high_seconds]
    low_moves = [s for g in games for s in g.low_seconds]
    target = 0.9 if first.low == RANDOM else 0.6
    return Pairing(
        variant=first.variant, high=first.high, low=first.low, games=n,
        wins=sum(r == 1.0 for r in results), draws=sum(r == 0.5 for r in results),
        losses=sum(r == 0.0 for r in results), score=mean, elo=difference, elo_error=half_width, elo_bound=bound,
        high_seconds_per_move=sum(high_moves) / len(high_moves) if high_moves else 0.0,
        low_seconds_per_move=sum(low_moves) / len(low_moves) if low_moves else 0.0,
        adjudicated=sum(g.adjudicated for g in games), mean_plies=sum(g.plies for g in games) / n,
        target=target, met=mean >= target)


def name(level: int) -> str:
    return "random" if level == RANDOM else f"level {level}"


def row(p: Pairing) -> str:
    """One pairing as a row of the Markdown table the README carries."""
    difference = f"{p.elo_bound} {p.elo:+.0f} (95%)" if p.elo_bound else f"{p.elo:+.0f} ± {p.elo_error:.0f}"
    return (f"| {p.variant} | {name(p.high)} - {name(p.low)} | {p.games} | {p.wins}/{p.draws}/{p.losses} "
            f"| {100 * p.score:.0f}% | {difference} | {p.high_seconds_per_move:.2f} | "
            f"{p.low_seconds_per_move:.2f} | {p.adjudicated} | {100 * p.target:.0f}% "
            f"{'met' if p.met else 'missed'} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games per pairing (default 4)")
    parser.add_argument("--variants", nargs="*", default=[v.key for v in all_variants()], metavar="KEY")
    parser.add_argument("--max-level", type=int, default=2, help=f"highest level played, 1-{max(LEVELS)} (default 2)")
    parser.add_argument("--levels", type=int, nargs="+", metavar="L",
                        help="the pairings to play, by their higher level (1: level 1 - random, 3: level 3 - "
                             "level 2); default: 1 to --max-level. Lets a long run be split.")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="cap every computer move at S seconds (as [computer] max_seconds_per_move)")
    parser.add_argument("--max-plies", type=int, default=160, help="adjudicate a game at P plies (default 160)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once in processes (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write the pairings as JSON to FILE")
    parser.add_argument("--opening-plies", type=int, default=4,
                        help="random plies before two levels without randomness take over (default 4)")
    parser.add_argument("--games-log", metavar="FILE",
                        help="append each finished game to FILE (JSON lines) and skip the games already there")
    args = parser.parse_args(argv)
    if not 1 <= args.max_level <= max(LEVELS):
        parser.error(f"--max-level is 1 to {max(LEVELS)}")
    highs = args.levels or list(range(1, args.max_level + 1))
    if not all(1 <= level <= max(LEVELS) for level in highs):
        parser.error(f"--levels are 1 to {max(LEVELS)}")
    pairs = [(level, RANDOM if level == 1 else level - 1) for level in sorted(set(highs))]
    for variant in args.variants:
        get_variant(variant)  # an unknown key fails here, before any game
    started = time.monotonic()
    print(f"{args.games} games per pairing, colours alternated, adjudicated at {args.max_plies} plies; "
          "a row as each pairing finishes\n")
    print("| variant | pairing | games | +/=/- | score | Elo difference | s/move (higher) | s/move (lower) "
          "| adjudicated | target |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    pairings: list[Pairing] = []
    log = Path(args.games_log) if args.games_log else None
    done = logged_games(log)
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    played = 0
    try:
        for variant in args.variants:
            for high, low in pairs:
                jobs, games = [], []
                for number in range(args.games):
                    seed = args.seed * 1_000_003 + zlib.crc32(f"{variant} {high} {number}".encode()) % 1_000_003
                    plies = args.opening_plies if deterministic(high) and deterministic(low) else 0
                    pair = args.seed * 1_000_003 + zlib.crc32(f"{variant} {high} pair {number // 2}".encode())
                    job = (variant, high, low, number % 2 == 0, seed, args.max_plies, args.max_seconds, number,
                           plies, pair)
                    key = key_of(variant, high, low, number, seed, args.max_plies, args.max_seconds, plies > 0)
                    if key in done:
                        games.append(done[key])
                    else:
                        jobs.append(job)
                finished = (future.result() for future in as_completed([pool.submit(_play, job) for job in jobs])) \
                    if pool else map(_play, jobs)
                for game in finished:  # each game logged as it ends: a stop loses only the games running
                    games.append(game)
                    played += 1
                    if log is not None:
                        with log.open("a") as out:
                            out.write(json.dumps(asdict(game)) + "\n")
                pairing = summarise(sorted(games, key=lambda g: g.number))
                pairings.append(pairing)
                print(row(pairing), flush=True)
                if args.json:  # written after every pairing: a long run that stops keeps what it finished
                    Path(args.json).write_text(json.dumps([asdict(p) for p in pairings], indent=1) + "\n")
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    print(f"\n{played} games played in {time.monotonic() - started:.0f} s, "
          f"{len(pairings) * args.games - played} taken from the games log")
    return 0 if all(p.met for p in pairings) else 1


if __name__ == "__main__":
    sys.exit(main())
