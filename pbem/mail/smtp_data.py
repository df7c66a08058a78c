"""An SMTP DATA section read in blocks, with aiosmtpd's size and line-length limits and its dot-unstuffing."""

from __future__ import annotations

import asyncio
import enum
from dataclasses import dataclass

__all__ = ["DataSection", "Refusal", "read_data_section"]

#: The end of a DATA section: a line holding a lone dot (RFC 5321 4.1.1.4).
_END = b"\r\n.\r\n"


class Refusal(enum.Enum):
    """Why a section read to its end is refused, and the answer aiosmtpd gives for it."""

    TOO_LONG = "500 Line too long (see RFC5321 4.5.3.1.6)"
    TOO_MUCH = "552 Error: Too much mail data"


@dataclass(frozen=True, slots=True)
class DataSection:
    """A section read to its end: the mail with the dot-stuffing taken off, or why it is refused (then empty)."""

    content: bytes
    refusal: Refusal | None = None


def _matched_after(matched: int, byte: int) -> int:
    """How much of ``_END`` the bytes end with once ``byte`` follows ``matched`` bytes of it."""
    seen = _END[:matched] + bytes((byte,))
    for length in range(min(len(seen), len(_END)), 0, -1):
        if seen.endswith(_END[:length]):
            return length
    return 0


#: ``_matched_after`` for every state and byte, so the first bytes of a section cost a look-up each.
_MATCHED_AFTER = tuple(tuple(_matched_after(matched, byte) for byte in range(256)) for matched in range(len(_END)))


def _has_long_line(stuffed: bytes | bytearray, line_length_limit: int) -> bool:
    """Whether a line, its CRLF counted, is longer than the limit; a last, unfinished line counts as it is.

    A line that long (``limit - 1`` bytes or more without a CRLF) holds the whole of a window of ``limit - 1 - step``
    bytes starting at a multiple of ``step`` (half the limit): when every such window holds a CRLF, no line is
    long. That is one ``find`` per half limit, which stops at the window's first CRLF, where splitting a picture's
    500 lines to measure them cost the listener 48 µs for a 37 KB mail (14 µs this way).
    """
    step = (line_length_limit - 1) // 2
    window = line_length_limit - 1 - step
    if step >= 1 and window >= 2:
        find = stuffed.find
        if all(find(b"\r\n", start, start + window) >= 0 for start in range(0, len(stuffed) - window + 1, step)):
            return False
    longest = max(map(len, stuffed.split(b"\r\n")), default=0)  # a window without one: measure every line
    return longest + 2 > line_length_limit


def _first_refusal(kept: bytearray, size_limit: int, line_length_limit: int) -> tuple[Refusal | None, int]:
    """aiosmtpd's refusal of a section whose bytes so far are ``kept``, from its finished lines in order, and
    where the unfinished line after them starts (None: no line has settled it yet).

    aiosmtpd reads line by line: a line longer than its reader's limit (the line-length limit) overruns the
    reader and is refused before it is counted; any other line is counted (past ``size_limit``: TOO_MUCH) and
    then measured, its CRLF with it (TOO_LONG). An unfinished line already longer than the reader's limit
    will overrun it whatever follows.
    """
    count, start = 0, 0
    while (end := kept.find(b"\r\n", start)) >= 0:
        length = end - start
        if length > line_length_limit:
            return Refusal.TOO_LONG, start
        count += length + 2
        if count > size_limit:
            return Refusal.TOO_MUCH, start
        if length + 2 > line_length_limit:
            return Refusal.TOO_LONG, start
        start = end + 2
    return (Refusal.TOO_LONG if len(kept) - start > line_length_limit else None), start


def _unstuffed(stuffed: bytes | bytearray) -> bytes:
    """The section without its transparency dots: a line that starts with a dot loses that dot (RFC 5321 4.5.2)."""
    return (b"\r\n" + stuffed).replace(b"\r\n.", b"\r\n")[2:]


async def read_data_section(reader: asyncio.StreamReader, size_limit: int | None,
                            line_length_limit: int) -> DataSection:
    """Read up to and including the section's closing dot line, never past it.

    aiosmtpd reads a section a line at a time, which for a move mail of some 100 lines was a quarter
    of the listener's CPU for that mail (bench/smtp_data.py). Here ``readuntil`` looks for the whole
    end marker: a block read from the socket without it is taken whole but for its last four bytes
    (``LimitOverrunError`` says how much), so a section costs a call or two per read from the socket
    instead of one per line. The outcome is aiosmtpd's: a section over
    ``size_limit`` (its bytes before the dot line) or with a line over ``line_length_limit`` is read
    to its end, then refused with the answer aiosmtpd's line-by-line reading settles on first;
    tests/mail/test_smtp_data.py compares the two over random sections sent in random pieces.

    The section starts right after the DATA line's CRLF, so a dot line can end it at once. Until the
    bytes read stop matching the start of the end marker, they are read one at a time; after that
    the marker cannot straddle what is read and what is not.
    """
    kept = bytearray()
    size = 0  # every byte read, the end marker's too
    over = False  # past the size limit: the section is refused, and only which answer is left to settle
    refusal: Refusal | None = None

    def keep(block: bytes) -> None:
        nonlocal size, over, refusal
        size += len(block)
        if refusal is not None:
            return  # settled: what comes is forgotten as it comes
        kept.extend(block)
        if over:
            # The finished lines did not settle it, so the count goes past the limit with the next one to end
            # (a limit of 0), unless that line overruns the reader first.
            refusal, _ = _first_refusal(kept, 0, line_length_limit)
        elif size_limit and size - 3 > size_limit:
            over = True
            refusal, start = _first_refusal(kept, size_limit, line_length_limit)
            del kept[:start]  # what may still settle it is the unfinished line
        if refusal is not None:
            kept.clear()

    matched = 2  # the DATA line's CRLF
    while 0 < matched < len(_END):
        byte = await reader.readexactly(1)
        keep(byte)
        matched = _MATCHED_AFTER[matched][byte[0]]
    while matched < len(_END):
        try:
            keep(await reader.readuntil(_END))
            matched = len(_END)
        except asyncio.LimitOverrunError as error:
            # No end marker within the reader's limit: take what cannot be part of one, then look again.
            keep(await reader.readexactly(error.consumed))
    if refusal is not None:
        return DataSection(b"", refusal)
    stuffed = kept[:-3]  # the dot line; the CRLF before it ends the last line
    if _has_long_line(stuffed, line_length_limit):
        return DataSection(b"", Refusal.TOO_LONG)
    return DataSection(_unstuffed(stuffed))
