"""The HTML alternative of a game mail: the same text, the board picture by cid, the clock and moves as tables."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pbem.mail.compose import InlineImage
from pbem.mail.render import render_html

__all__ = ["WEB_LINE", "clock_rows", "digest_html", "game_html"]

#: How a game mail's text introduces its web page (the HTML part shows a link of its own instead).
WEB_LINE = "On the web: "

_LABELLED = re.compile(r"^([A-Z][A-Za-z -]*):\s+(.*)$")
_SIGNATURE = "-- "


def clock_rows(lines: Sequence[str]) -> list[list[str]]:
    """The clock block as table rows: ``Label: value`` lines as two cells, the players' lines by their columns."""
    rows: list[list[str]] = []
    for line in lines:
        labelled = _LABELLED.match(line)
        if labelled:
            rows.append([labelled.group(1), labelled.group(2)])
        else:
            rows.append([cell for cell in re.split(r"\s{2,}", line.strip()) if cell])
    return rows


def _paragraphs(text: str) -> list[str]:
    return [block.strip("\n") for block in re.split(r"\n\s*\n", text) if block.strip()]


def _without(text: str, lines: Sequence[str]) -> str:
    """``text`` with the run of ``lines`` (the clock block) taken out where it stands."""
    if not lines:
        return text
    block = "\n".join(lines)
    return text.replace(block, "", 1) if block in text else text


def game_html(body: str, *, title: str, diagram: str = "", clock: Sequence[str] = (),
              picture: InlineImage | None = None, size: tuple[int, int] = (0, 0),
              moves: Sequence[tuple[str, str, str]] = (), link: str = "") -> str:
    """The HTML part for a game mail whose plain text is ``body``.

    ``diagram`` and ``clock`` are the exact text blocks ``body`` contains; the
    picture goes where the diagram stands, the diagram stays in a ``<pre>`` for
    clients that block images, and the clock becomes a table. ``size`` is the
    picture's display size in CSS pixels.
    """
    text = _without(body, clock)
    if link:  # the text's "On the web: URL" line becomes a link of its own
        text = "\n".join(line for line in text.splitlines() if line != f"{WEB_LINE}{link}")
    signature = ""
    if f"\n{_SIGNATURE}\n" in text:
        text, signature = text.split(f"\n{_SIGNATURE}\n", 1)
    first_line, _, rest = text.lstrip("\n").partition("\n")
    if diagram and diagram.strip() and diagram.strip("\n") in rest:
        before, _, after = rest.partition(diagram.strip("\n"))
    else:
        before, after = rest, ""
    return render_html("html/game.html", title=title, first_line=first_line.strip(),
                       before=_paragraphs(before), after=_paragraphs(after),
                       diagram=diagram.strip("\n"), picture=picture, width=size[0], height=size[1],
                       clock=clock_rows(clock), moves=list(moves), footer=_paragraphs(signature), link=link)


def digest_html(body: str, *, title: str,
                sections: Sequence[tuple[str, InlineImage | None, tuple[int, int]]]) -> str:
    """The HTML part of a digest whose plain text is ``body``: each game's board block (the exact text
    ``body`` holds) with its picture above it, the text between them as paragraphs."""
    blocks: list[dict[str, object]] = []
    rest = body
    for board, picture, size in sections:
        board = board.strip("\n")
        if not board or board not in rest:
            continue
        before, _, rest = rest.partition(board)
        blocks.append({"paragraphs": _paragraphs(before), "diagram": board, "picture": picture,
                       "width": size[0], "height": size[1]})
    text = rest
    signature = ""
    if f"\n{_SIGNATURE}\n" in text:
        text, signature = text.split(f"\n{_SIGNATURE}\n", 1)
    width = max([int(block["width"]) for block in blocks if block["picture"]] or [600])  # type: ignore[call-overload]
    return render_html("html/digest.html", title=title, blocks=blocks, after=_paragraphs(text),
                       footer=_paragraphs(signature), width=width)
