"""The odd and hostile samples (tests/mail/samples/*.eml) as the parser reads them, field by field."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.commands.registry import looks_like_command
from pbem.mail.inbound.parse import parse_mail

SAMPLES = Path(__file__).resolve().parent / "samples"
ENVELOPE = "envelope@players.example"

# name: (sender, sender name, subject, commands, automatic reason or None, problems)
EXPECTED: dict[str, tuple[str, str, str, tuple[str, ...], str | None, tuple[str, ...]]] = {
    "apple_mail_macos_reply.eml": (
        "eve@me.com", "Eve Example", "Re: Welcome to pbem",
        # Apple Mail writes no '-- ' before a signature: its lines are read (and reported unprocessed).
        ("games", "variants", "Eve", "—", "Eve Example", "Sent with love from my Mac"), None, ()),
    "thunderbird_reply_signature.eml": (
        "frank.mueller@web.de", "Frank Müller", "Re: [pbem] Your game has started", ("variants",), None, ()),
    "html_only_outlook_web.eml": (
        "grace.hopper@outlook.com", "Grace Hopper", "RE: [pbem] Challenge 4", ("games", "variants"), None,
        ("the mail had no text part; read the HTML part",)),
    "quoted_printable_soft_breaks.eml": (
        "heidi@example.ch", "Heidi", "Züg",
        ("games", "variants", "== a line that starts with encoded equals signs", "trailing soft break at the end"),
        None, ()),
    "base64_utf8_reply.eml": ("ivan@example.ru", "Ivan", "Re: Привет", ("games",), None, ()),
    "charset_unknown.eml": (
        "judy@example.net", "Judy", "unknown charset", ("games",), None,
        ("unknown charset 'x-unknown' and the text is not UTF-8; decoded as Windows-1252",)),
    "charset_utf8_invalid_bytes.eml": (
        "karl@example.net", "Karl", "invalid utf-8", ("games",), None,
        ("the text is not valid utf-8; undecodable bytes were replaced",)),
    "charset_bogus_in_headers.eml": (
        "lena@example.net", "Lena Müller", "café and caf\ufffd", ("games",), None, ()),
    "name_rfc2047_utf8.eml": ("taro.yamada@example.jp", "山田太郎", "こんにちは", ("games",), None, ()),
    "name_raw_8bit_utf8.eml": (
        "juergen@example.de", "Jürgen Groß", "Zug für Spiel #3 – Läufer", ("games",), None, ()),
    "name_raw_8bit_latin1.eml": ("bjork@example.is", "Björk Guðmundsdóttir", "áfram", ("games",), None, ()),
    "address_non_ascii.eml": ("josé@exämple.es", "José Núñez", "Re: ñ", ("games",), None, ()),
    "message_id_odd.eml": ("mallory@example.org", "Mallory", "odd threading headers", ("games",), None, ()),
    "broken_missing_boundary.eml": (
        "mike@example.org", "Mike", "missing boundary", ("games",), None,
        ("the mail's MIME structure was broken (multipart boundary missing or wrong); its parts were read anyway",)),
    "broken_unterminated_multipart.eml": ("nina@example.org", "Nina", "cut off", ("games", "variants"), None, ()),
    # Deeper than any client nests: not read, and the reply says why.
    "broken_nested_50.eml": (
        "oscar@example.org", "Oscar", "nested 50 deep", (), None,
        ("the mail had too many parts or '--' lines; only its beginning was read",
         "the mail had no readable text part")),
    "broken_base64_not_base64.eml": (
        "pat@example.org", "Pat", "declared base64", ("games", "variants!"), None,
        ("the text was declared base64 but is not; it was read as it came",)),
    # A line without a colon ends the header block: the rest is body, as the stdlib reads it.
    "broken_header_block.eml": (
        "quinn@example.org", "Quinn", "",
        ("this line is no header", "Subject: header block with junk", ": continuation of nothing",
         "Message-ID: <broken-header-block-1@example.org>", "Content-Type: text/plain; charset=",
         "Content-Transfer-Encoding: x-uuencode-of-sorts", "games"), None, ()),
    "injection_subject_encoded_crlf.eml": (
        "rita@example.org", "Rita", "hi Bcc: victim@example.com", ("games",), None, ()),
    "injection_name_encoded_crlf.eml": (
        "sam@example.org", "Sam Bcc: victim@example.com", "x Bcc: victim@example.com Cc: v2@example.com",
        ("games",), None, ()),
    # From: "Tom<CRLF>Bcc: ..." has no address left: the envelope sender is used.
    "injection_name_raw_crlf.eml": (ENVELOPE, "", "hi", ("games",), None, ()),
    "auto_submitted_vacation.eml": (
        "uma@example.org", "Uma", "Automatic reply: [pbem #3] Your move", ("I am away until Monday.", "resign"),
        "Auto-Submitted: auto-replied", ()),
    "auto_x_autoreply.eml": (
        "victor@example.org", "Victor", "Re: [pbem #3] Your move", ("Thanks for your mail. resign", "resign"),
        "X-Autoreply header (an auto-reply)", ()),
    "auto_precedence_bulk.eml": ("news@example.org", "News", "Weekly digest", ("resign",), "Precedence: bulk", ()),
    "auto_precedence_junk.eml": ("news@example.org", "News", "Weekly digest", ("resign",), "Precedence: junk", ()),
    "auto_precedence_list.eml": ("news@example.org", "News", "Weekly digest", ("resign",), "Precedence: list", ()),
    "auto_list_id.eml": (
        "walter@example.org", "Walter", "Re: [chess-list] pbem server", ("resign",),
        "List-Id header (mailing-list mail)", ()),
    # An out-of-office subject alone is no evidence: a person may write it.
    "out_of_office_subject_by_person.eml": (
        "xena@example.org", "Xena", "Out of Office: back on Monday, Automatic reply", ("games",), None, ()),
    # Replies written below or between the quotes, as the worker reads them (quoted lines never act).
    "gmail_bottom_posted.eml": (
        "alice.player@gmail.com", "Alice Player", "Re: [pbem #17] alice vs bob (Hyperspace Chess)", ("Pg1-f3",),
        None, ()),
    "thunderbird_inline.eml": (
        "frank@web.de", "Frank", "Re: [pbem #21] frank vs gina (Tri-D Chess)",
        ("No thanks, I play on:", "Pd2(2)-d4(2)"), None, ()),
    "apple_mail_bottom_quoted_resign.eml": (
        "carol@icloud.com", "Carol", "Re: [pbem #9] carol vs dave (Space Chess)",
        ("Thanks, lovely game so far.", "board"), None, ()),
    # Only prose below the quote: the top is read as ever, and the quoted 'resign' stays quoted.
    "apple_mail_prose_below_quoted_resign.eml": (
        "carol@icloud.com", "Carol", "Re: [pbem #9] carol vs dave (Space Chess)", ("Hi dave,",), None, ()),
}


def test_every_new_sample_has_expectations() -> None:
    older = {"apple_mail_iphone.eml", "bounce_dsn.eml", "gmail_reply.eml", "outlook_reply.eml",
             "thunderbird_flowed.eml"}  # read field by field in test_parse.py
    assert {path.name for path in SAMPLES.glob("*.eml")} == set(EXPECTED) | older


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample(name: str, crlf: bool) -> None:
    raw = (SAMPLES / name).read_bytes()
    if crlf:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    mail = parse_mail(raw, ENVELOPE, looks_like_command)
    sender, sender_name, subject, commands, automatic, problems = EXPECTED[name]
    assert (mail.sender, mail.sender_name, mail.subject) == (sender, sender_name, subject)
    assert mail.commands == commands
    assert mail.automatic == automatic
    assert mail.problems == problems


def test_odd_threading_headers_are_read_as_written() -> None:
    mail = parse_mail((SAMPLES / "message_id_odd.eml").read_bytes())
    assert mail.message_id.startswith("<größe-ünd-")
    # No id in In-Reply-To: it is kept cleaned (one line); the composer drops it.
    assert mail.in_reply_to == "not a message id at all =?utf-8?q?=0D=0ABcc:_victim@example.com?="
    assert mail.references[0] == "<ok.1@example.org>" and "<ok.2@example.org>" in mail.references
