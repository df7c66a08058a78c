"""Where the samples of a py-spy recording of bench/e2e.py went, by pbem process and function."""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

#: A frame as py-spy's raw format writes it, "function (path:line)"; the line number is dropped.
_FRAME = re.compile(r"^(?P<function>.+) \((?P<where>.+?)(?::\d+)?\)$")


@dataclass
class Process:
    """The samples of one of pbem's processes: in all, by thread, by function (inclusive and own)."""

    samples: int = 0
    threads: Counter[str] = field(default_factory=Counter)
    inclusive: Counter[str] = field(default_factory=Counter)
    own: Counter[str] = field(default_factory=Counter)


def role(stack: str, processes: list[str]) -> str:
    """Which of pbem's processes a stack is from: the server, or a child of its fork server."""
    if "forkserver" not in processes[-1]:
        return "server"
    if "serve_mail (pbem/worker_process.py" in stack:
        return "mail worker"
    if "serve_pictures (pbem/picture_process.py" in stack:
        return "picture process"
    return "fork server"


def read(path: Path) -> dict[str, Process]:
    """The recording at ``path`` (``py-spy record --format raw``: a stack and its count per line)."""
    found: dict[str, Process] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        parts = stack.split(";")
        processes = [part for part in parts if part.startswith("process ")]
        threads = [part for part in parts if part.startswith("thread ")]
        frames = [f"{match['function']} ({match['where']})" for part in parts
                  if not part.startswith(("process ", "thread ")) and (match := _FRAME.match(part))]
        if not processes:
            continue
        process = found.setdefault(role(stack, processes), Process())
        samples = int(count)
        process.samples += samples
        process.threads[threads[0].partition(": ")[2] or threads[0] if threads else "?"] += samples
        for frame in set(frames):
            process.inclusive[frame] += samples
        if frames:
            process.own[frames[-1]] += samples
    return found


def report(found: dict[str, Process], top: int, only: str) -> str:
    total = sum(process.samples for process in found.values()) or 1
    lines: list[str] = []
    for name, process in sorted(found.items(), key=lambda item: -item[1].samples):
        share = process.samples or 1
        lines.append(f"{name}: {process.samples} samples ({100 * process.samples / total:.1f}% of all)")
        lines.append("  threads: " + ", ".join(f"{thread} {100 * count / share:.0f}%"
                                                 for thread, count in process.threads.most_common(6)))
        for title, counts in (("inclusive", process.inclusive), ("own time", process.own)):
            lines.append(f"  {title}:")
            shown = [(frame, count) for frame, count in counts.most_common() if only in frame][:top]
            lines += [f"    {100 * count / share:5.1f}%  {frame[:150]}" for frame, count in shown]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("recording", type=Path, help="py-spy's raw output (bench/e2e.py --profile FILE)")
    parser.add_argument("--top", type=int, default=20, help="functions shown per list [20]")
    parser.add_argument("--only", default="", help="only functions whose name or file contains this, e.g. pbem/")
    args = parser.parse_args(argv)
    found = read(args.recording)
    if not found:
        print(f"profile_summary: no samples in {args.recording}", file=sys.stderr)
        return 1
    print(report(found, args.top, args.only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
