"""format=flowed text (RFC 3676) joined back into the paragraphs its sender wrote."""

from __future__ import annotations

__all__ = ["unflow"]


def unflow(text: str, delsp: bool) -> str:
    """Undo format=flowed (RFC 3676): join soft-broken lines, remove space-stuffing."""
    out: list[str] = []
    pieces: list[str] = []
    current_depth = 0

    def flush() -> None:
        if pieces:
            joined = "".join(pieces)
            out.append(">" * current_depth + " " + joined if current_depth else joined)
            pieces.clear()

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        soft = content.endswith(" ") and content != "-- "  # the signature separator never flows
        if pieces and depth != current_depth:
            flush()  # a change of quote depth ends a paragraph whatever its last line said
        current_depth = depth
        pieces.append(content[:-1] if soft and delsp else content)
        if not soft:
            flush()
    flush()
    return "\n".join(out)
