"""Fuzz the inbound parser and the worker with mutated real-world mails; exits 1 on any finding.

    .venv/bin/python bench/fuzz_mail.py --count 100000 --seed 1 [--pipeline-every 50] [--json]

Inputs are the samples (tests/mail/samples/*.eml) and the reply-body corpus (../shared/corpus)
wrapped in mails, mutated: byte flips, truncations, header splices from other mails, charset
and transfer-encoding swaps, injected CR/LF and encoded words, and random MIME trees. Every
input goes through ``parse_mail``; every K-th also through the real worker on a temporary
SQLite database. Findings: an exception, a parse result with a line break or an unencodable
character in a header field, a parse slower than --slow seconds, a ``failed`` inbox row, a
reply to automatic mail, not exactly one reply to a person's mail, or a reply whose header
block holds anything compose() does not write.
"""

from __future__ import annotations

import argparse
import base64
import email
import json
import random
import re
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from email.policy import default as default_policy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlmodel import col, select  # noqa: E402

from pbem.mail.inbound.parse import InboundMail, parse_mail  # noqa: E402
from pbem.mail.smtpd import store_inbound  # noqa: E402
from pbem.store.models import InboxItem, OutboxItem  # noqa: E402
from tests.helpers.pipeline import Pipeline  # noqa: E402

SAMPLES = ROOT / "tests" / "mail" / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"
#: One label of a host name in its ASCII form, as a relay needs it (RFC 1123).
HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
LINE_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
REPLY_HEADERS = {b"content-type", b"mime-version", b"content-transfer-encoding", b"from", b"to", b"reply-to",
                 b"subject", b"date", b"message-id", b"in-reply-to", b"references", b"auto-submitted",
                 b"x-auto-response-suppress", b"precedence"}
ENVELOPES = ["fuzz.sender@players.example", "fuzz.sender@players.example", "", "<>", "not an address",
             "b\u00f8b@ex\u00e4mple.org", "x\x01y@players.example"]
CHARSETS = [b"utf-8", b"UTF-8", b"iso-8859-1", b"windows-1252", b"x-unknown", b"utf-7", b"iso-2022-jp",
            b"utf-16", b"punycode", b"zlib", b"", b'"', b"utf-8*en", b"koi8-r", b"gb18030", b"big5",
            b"shift_jis", b"euc-kr", b"us-ascii", b"idna", b"rot13", b"hz"]
ENCODINGS = [b"7bit", b"8bit", b"binary", b"base64", b"quoted-printable", b"x-uuencode", b"BASE64", b""]
SPLICE_HEADERS = [
    b"Subject: =?utf-8?q?hi=0D=0ABcc:_victim@example.com?=", b"From: \"Eve\r\nBcc: victim@example.com\" <e@x.org>",
    b"From: =?utf-8?b?RXZlDQpCY2M6IHZpY3RpbUBleGFtcGxlLmNvbQ==?= <eve@example.org>",
    b"Auto-Submitted: auto-replied", b"Auto-Submitted: no", b"X-Autoreply: yes", b"Precedence: bulk",
    b"Precedence: junk", b"Precedence: list", b"List-Id: <l.example.org>", b"Return-Path: <>",
    b"Content-Type: multipart/mixed", b"Content-Type: multipart/alternative; boundary=\"\"",
    b"Content-Type: text/html; charset=x-unknown", b"Content-Transfer-Encoding: base64",
    b"Message-ID: <\xc3\xa9\xc3\xa9@x>", b"In-Reply-To: <" + b"i" * 200 + b"@x>", b"References: <a@b> <c d@e> junk",
    b"From: \xc3\xa9l\xc3\xa8ve <\xc3\xa9l\xc3\xa8ve@\xc3\xa9cole.fr>", b"From: <>", b"From: ",
    b"Subject: \xff\xfe\x00\x01", b"Cc: victim@example.com", b"Bcc: victim@example.com",
    b"Reply-To: victim@example.com", b"Subject: " + b"s" * 5000, b"From: " + b'"' * 3000,
    b"Content-Disposition: attachment", b"MIME-Version: 1.0",
]
CHUNKS = [b"\r\n", b"\n", b"\r", b"\r\n\r\n", b"--", b"=?", b"?=", b"=\r\n", b":", b";", b'"', b"<", b">", b"\x00",
          b"\xff", b"\xc3", b"\xe2\x80\xa8", b"=0D=0A", b"&#13;&#10;", b"<br>", b"<blockquote>", b"\t", b" ",
          b"=?utf-8?q?=0D=0ABcc:_victim@example.com?=", b"boundary=", b"charset=", b"\r\n> ",
          b"\r\n-- \r\n", b"\r\nOn Mon, 1 Jan 2024, Bob <b@x> wrote:\r\n", b"\r\nend\r\n"]
COMMANDS = ["games", "variants", "help", "register fuzz", "resign", "draw", "Pe2-e4", "accept 1", "vacation off",
            "challenge bob chess", "board", "// a comment", "end"]


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def load_seeds() -> list[bytes]:
    seeds = [path.read_bytes() for path in sorted(SAMPLES.glob("*.eml"))]
    for path in sorted(CORPUS.glob("*/*.txt")):
        body = path.read_bytes()
        seeds.append(b"From: Corpus <corpus@players.example>\r\nSubject: Re: corpus\r\n"
                     b"Content-Type: text/plain; charset=utf-8\r\n\r\ngames\r\n" + body)
    return seeds


def _split(raw: bytes) -> tuple[bytes, bytes, bytes]:
    """(header block, separator, body); the separator is b"" when there is none."""
    for separator in (b"\r\n\r\n", b"\n\n"):
        head, found, body = raw.partition(separator)
        if found:
            return head, separator, body
    return raw, b"", b""


def random_text(rng: random.Random) -> bytes:
    lines = [rng.choice(COMMANDS) for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.5:
        lines += ["", "On Tue, Bob <bob@example.org> wrote:", "> resign"]
    if rng.random() < 0.2:
        lines.append("".join(chr(rng.randint(0x20, 0x2FFF)) for _ in range(rng.randint(1, 40))))
    return "\r\n".join(lines).encode("utf-8")


def random_mime(rng: random.Random, depth: int = 0) -> bytes:
    """A random MIME entity (headers and body), sometimes broken on purpose."""
    if depth < 6 and rng.random() < 0.4:
        boundary = f"b{depth}{rng.randint(0, 999)}"
        subtype = rng.choice(["mixed", "alternative", "related", "report", "signed"])
        declared = rng.choice([f'; boundary="{boundary}"', f"; boundary={boundary}", "", '; boundary="wrong"'])
        parts = [random_mime(rng, depth + 1) for _ in range(rng.randint(0, 4))]
        body = b"".join(b"--" + boundary.encode() + b"\r\n" + part + b"\r\n" for part in parts)
        if rng.random() < 0.8:
            body += b"--" + boundary.encode() + b"--\r\n"
        return f"Content-Type: multipart/{subtype}{declared}\r\n\r\n".encode() + body
    ctype = rng.choice(["text/plain", "text/plain", "text/html", "message/rfc822", "application/pdf", "text/x-odd"])
    charset = rng.choice(CHARSETS)
    encoding = rng.choice(ENCODINGS)
    text = random_text(rng)
    if ctype == "text/html":
        text = b"<html><body>" + b"".join(b"<div>" + line + b"</div>" for line in text.split(b"\r\n")) + b"</body>"
    if encoding.lower() == b"base64" and rng.random() < 0.8:
        text = base64.encodebytes(text)
    elif encoding == b"quoted-printable" and rng.random() < 0.8:
        import quopri
        text = quopri.encodestring(text)
    head = b"Content-Type: " + ctype.encode() + b"; charset=" + charset + b"\r\n"
    if encoding:
        head += b"Content-Transfer-Encoding: " + encoding + b"\r\n"
    if rng.random() < 0.1:
        head += b"Content-Disposition: attachment; filename=x.txt\r\n"
    return head + b"\r\n" + text


def generated_mail(rng: random.Random) -> bytes:
    head = b"From: Gen <gen@players.example>\r\nSubject: generated\r\nMIME-Version: 1.0\r\n"
    return head + random_mime(rng)


def _flip(rng: random.Random, data: bytearray) -> None:
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)


def _truncate(rng: random.Random, data: bytearray) -> None:
    del data[rng.randint(0, len(data)):]


def _insert(rng: random.Random, data: bytearray) -> None:
    position = rng.randint(0, len(data))
    data[position:position] = rng.choice(CHUNKS)


def _delete(rng: random.Random, data: bytearray) -> None:
    position = rng.randint(0, len(data))
    del data[position:position + rng.randint(1, 200)]


def _duplicate(rng: random.Random, data: bytearray) -> None:
    start = rng.randint(0, len(data))
    chunk = data[start:start + rng.randint(1, 400)]
    position = rng.randint(0, len(data))
    data[position:position] = chunk * rng.randint(1, 3)


def _splice_header(rng: random.Random, data: bytearray, seeds: list[bytes]) -> None:
    head, separator, body = _split(bytes(data))
    lines = head.split(b"\r\n") if b"\r\n" in head else head.split(b"\n")
    if rng.random() < 0.5:
        line = rng.choice(SPLICE_HEADERS)
    else:
        other_lines = _split(rng.choice(seeds))[0].replace(b"\r\n", b"\n").split(b"\n")
        line = rng.choice(other_lines) if other_lines else b""
    lines.insert(rng.randint(0, len(lines)), line)
    data[:] = b"\r\n".join(lines) + (separator or b"\r\n\r\n") + body


def _swap_charset(rng: random.Random, data: bytearray) -> None:
    text = bytes(data)
    index = text.lower().find(b"charset=")
    if index < 0:
        return
    end = index + len(b"charset=")
    stop = end
    while stop < len(text) and text[stop:stop + 1] not in (b";", b"\r", b"\n", b" "):
        stop += 1
    data[end:stop] = rng.choice(CHARSETS)


def _swap_encoding(rng: random.Random, data: bytearray) -> None:
    text = bytes(data)
    index = text.lower().find(b"content-transfer-encoding:")
    if index < 0:
        return
    end = index + len(b"content-transfer-encoding:")
    stop = text.find(b"\n", end)
    data[end:stop if stop >= 0 else len(text)] = b" " + rng.choice(ENCODINGS) + b"\r"


def _swap_body(rng: random.Random, data: bytearray) -> None:
    head, separator, _ = _split(bytes(data))
    data[:] = head + (separator or b"\r\n\r\n") + random_mime(rng)


def _line_endings(rng: random.Random, data: bytearray) -> None:
    text = bytes(data)
    data[:] = rng.choice([text.replace(b"\r\n", b"\n"), text.replace(b"\n", b"\r\n"), text.replace(b"\r\n", b"\r")])


MUTATORS: list[Callable[..., None]] = [_flip, _truncate, _insert, _delete, _duplicate, _splice_header,
                                       _swap_charset, _swap_encoding, _swap_body, _line_endings]


def make_input(rng: random.Random, seeds: list[bytes]) -> tuple[bytes, str]:
    """One fuzz input and the name of how it was made."""
    roll = rng.random()
    if roll < 0.05:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 2000))), "random-bytes"
    if roll < 0.2:
        base, kind = generated_mail(rng), "generated"
    else:
        base, kind = rng.choice(seeds), "mutated"
    data = bytearray(base)
    for _ in range(rng.randint(1, 6)):
        mutator = rng.choice(MUTATORS)
        if mutator is _splice_header:
            mutator(rng, data, seeds)
        else:
            mutator(rng, data)
    return bytes(data), kind


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


@dataclass
class Stats:
    inputs: int = 0
    parsed: int = 0
    pipeline_runs: int = 0
    automatic: int = 0
    replies: int = 0
    parse_exceptions: int = 0
    malformed_results: int = 0
    slow_parses: int = 0
    pipeline_exceptions: int = 0
    failed_rows: int = 0
    replies_to_automatic: int = 0
    wrong_reply_counts: int = 0
    unsafe_replies: int = 0
    max_parse_seconds: float = 0.0
    kinds: Counter[str] = field(default_factory=Counter)
    findings: list[dict[str, str]] = field(default_factory=list)

    @property
    def finding_count(self) -> int:
        return (self.parse_exceptions + self.malformed_results + self.slow_parses + self.pipeline_exceptions
                + self.failed_rows + self.replies_to_automatic + self.wrong_reply_counts + self.unsafe_replies)


def malformed(mail: InboundMail) -> str | None:
    """Why a parse result would be unsafe to use, or None."""
    fields = (mail.message_id, mail.sender, mail.sender_name, mail.subject, mail.in_reply_to,
              *mail.references, mail.automatic or "", *mail.commands, *mail.problems)
    for value in fields:
        if any(ch in value for ch in LINE_BREAKS):
            return f"line break in {value[:80]!r}"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"unencodable {value[:80]!r}"
    try:
        mail.body.encode("utf-8")
    except UnicodeEncodeError:
        return "unencodable body"
    if "\x00" in mail.body:
        return "NUL in body"
    return None


def unsafe_reply(raw: bytes) -> str | None:
    head, separator, _ = raw.partition(b"\r\n\r\n")
    if not separator:
        return "no header/body separator"
    names = []
    for line in head.split(b"\r\n"):
        if b"\r" in line or b"\n" in line:
            return "bare CR or LF in the header block"
        if len(line) > 998:
            return "header line longer than 998 octets"
        if line[:1] not in (b" ", b"\t"):
            names.append(line.split(b":", 1)[0].lower())
    if not set(names) <= REPLY_HEADERS or len(names) != len(set(names)):
        return f"unexpected header lines {names}"
    message = email.message_from_bytes(raw, policy=default_policy)
    if len(message.get_all("To") or []) != 1 or len(message["To"].addresses) != 1:
        return f"not exactly one To: {message['To']!r}"
    domain = message["To"].addresses[0].domain
    if not all(HOST_LABEL.fullmatch(label) for label in domain.split(".")):
        return f"To is no address one can send to: {message['To']!r}"
    for name, value in message.items():
        if name.lower() != "subject" and "victim@" in str(value):  # a reply's subject may quote the sender
            return f"{name} names a third party: {value!r}"
    return None


class PipelineRunner:
    """The real worker on a temporary SQLite database; one inbox row per input."""

    def __init__(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="pbem-fuzz-")
        self.pipe = Pipeline(Path(self.tmp.name), PBEM_SERVER_ERROR_REPLIES_PER_HOUR="0")
        self.last_outbox = 0

    def close(self) -> None:
        self.pipe.close()
        self.tmp.cleanup()

    def run(self, raw: bytes, envelope: str, stats: Stats, record: Callable[[str, str], None]) -> None:
        pipe = self.pipe
        # A fresh Message-ID first, so no input is absorbed as a duplicate of an earlier one.
        raw = f"Message-ID: <{uuid.uuid4().hex}@fuzz.example>\r\n".encode() + raw
        stats.pipeline_runs += 1
        try:
            store_inbound(pipe.db, raw, envelope, [pipe.addresses.public], pipe.addresses.domain)
            pipe.worker.drain()
            with pipe.db.read() as session:
                item = session.exec(select(InboxItem).order_by(col(InboxItem.id).desc())).first()
                status, error = (item.status, item.error) if item else ("missing", "no inbox row")
                rows = [(row.id or 0, row.recipient, row.raw) for row in session.exec(
                    select(OutboxItem).where(col(OutboxItem.id) > self.last_outbox).order_by(col(OutboxItem.id)))]
            if rows:
                self.last_outbox = max(row_id for row_id, _, _ in rows)
        except Exception:
            stats.pipeline_exceptions += 1
            record("pipeline exception", traceback.format_exc()[-1500:])
            return
        if status != "done":
            stats.failed_rows += 1
            record(f"inbox row {status}", error[-1500:])
            return
        mail = parse_mail(raw, envelope)
        stats.replies += len(rows)
        if mail.automatic:
            stats.automatic += 1
            if rows:
                stats.replies_to_automatic += 1
                record("reply to automatic mail", mail.automatic)
            return
        expected = [mail.sender] if mail.sender else []
        recipients = [recipient for _, recipient, _ in rows]
        if recipients != expected:
            stats.wrong_reply_counts += 1
            record("not exactly one reply to the sender", f"{recipients} != {expected}")
            return
        for _, _, reply in rows:
            problem = unsafe_reply(reply)
            if problem:
                stats.unsafe_replies += 1
                record("unsafe reply", problem)


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def fuzz(count: int, seed: int, pipeline_every: int, slow: float, save: Path | None,
         progress: bool) -> tuple[Stats, float]:
    rng = random.Random(seed)
    seeds = load_seeds()
    stats = Stats()
    runner = PipelineRunner() if pipeline_every > 0 else None
    started = time.perf_counter()
    try:
        for index in range(count):
            raw, kind = make_input(rng, seeds)
            envelope = rng.choice(ENVELOPES)
            stats.inputs += 1
            stats.kinds[kind] += 1

            def record(what: str, detail: str, raw: bytes = raw, envelope: str = envelope,
                       index: int = index) -> None:
                entry = {"index": str(index), "finding": what, "detail": detail, "envelope": envelope}
                if save is not None:
                    save.mkdir(parents=True, exist_ok=True)
                    path = save / f"finding-{seed}-{index}.eml"
                    path.write_bytes(raw)
                    entry["input"] = str(path)
                if len(stats.findings) < 50:
                    stats.findings.append(entry)

            begin = time.perf_counter()
            try:
                mail = parse_mail(raw, envelope)
            except Exception:
                stats.parse_exceptions += 1
                record("parse_mail raised", traceback.format_exc()[-1500:])
                continue
            elapsed = time.perf_counter() - begin
            stats.parsed += 1
            stats.max_parse_seconds = max(stats.max_parse_seconds, elapsed)
            if elapsed > slow:
                stats.slow_parses += 1
                record("slow parse", f"{elapsed:.2f} s for {len(raw)} bytes")
            problem = malformed(mail)
            if problem:
                stats.malformed_results += 1
                record("malformed parse result", problem)
            if runner is not None and index % pipeline_every == 0:
                runner.run(raw, envelope, stats, record)
            if progress and (index + 1) % 10000 == 0:
                print(f"  {index + 1} inputs, {stats.finding_count} findings, "
                      f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    finally:
        if runner is not None:
            runner.close()
    return stats, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000, help="inputs to run (default 100000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed; a run is reproducible from it")
    parser.add_argument("--pipeline-every", type=int, default=50, metavar="K",
                        help="every K-th input also goes through the worker (0: never; default 50)")
    parser.add_argument("--slow", type=float, default=2.0, help="a parse slower than this many seconds is a finding")
    parser.add_argument("--save", type=Path, help="write the inputs of findings to this folder")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    stats, seconds = fuzz(args.count, args.seed, args.pipeline_every, args.slow, args.save, not args.quiet)
    summary = {
        "command": "bench/fuzz_mail.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "seed": args.seed, "seconds": round(seconds, 1), "inputs": stats.inputs, "parsed": stats.parsed,
        "kinds": dict(stats.kinds), "pipeline_runs": stats.pipeline_runs, "automatic": stats.automatic,
        "replies": stats.replies, "max_parse_seconds": round(stats.max_parse_seconds, 3),
        "parse_exceptions": stats.parse_exceptions, "malformed_results": stats.malformed_results,
        "slow_parses": stats.slow_parses, "pipeline_exceptions": stats.pipeline_exceptions,
        "failed_rows": stats.failed_rows, "replies_to_automatic": stats.replies_to_automatic,
        "wrong_reply_counts": stats.wrong_reply_counts, "unsafe_replies": stats.unsafe_replies,
        "findings": stats.finding_count, "first_findings": stats.findings,
    }
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        for key, value in summary.items():
            if key != "first_findings":
                print(f"{key:>22}: {value}")
        for finding in stats.findings[:10]:
            print(f"\n#{finding['index']} {finding['finding']} (envelope {finding['envelope']!r}):")
            print(finding["detail"])
    return 1 if stats.finding_count else 0


if __name__ == "__main__":
    sys.exit(main())
