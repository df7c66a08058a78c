"""Shared by the inbound-mail tests: sample mails, a mail builder, the line breaks no header may hold."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent / "samples"
LINE_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def read_sample(name: str, crlf: bool = False) -> bytes:
    raw = (SAMPLES / name).read_bytes()
    return raw.replace(b"\n", b"\r\n") if crlf else raw


def build_mail(headers: str, body: bytes, *, sender: str | None = "From: Bob <bob@example.org>") -> bytes:
    lines = [sender] if sender else []
    lines += [line for line in headers.strip().splitlines() if line]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body
