"""Inbound mail parsing: real reply bodies, real client mail shapes, automatic mail, and fuzzing."""

from __future__ import annotations

import base64
import email
import time
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail.inbound.automatic import automatic_reason
from pbem.mail.inbound.html_text import html_to_text
from pbem.mail.inbound.parse import InboundMail, parse_mail
from pbem.mail.inbound.quotes import extract_commands

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
SAMPLES = Path(__file__).resolve().parent / "samples"
COMMAND = "Pe2-e4"

# --------------------------------------------------------------------------------------------
# The reply-body corpus: per fixture, the lines expected above the quote (read from the
# fixture by hand) and text from the quote, signature or header block that must never appear.
# --------------------------------------------------------------------------------------------

RIAK_QUESTION = [
    "Hi folks",
    "What is the best way to clear a Riak bucket of all key, values after",
    "running a test?",
]
TEXTMATE_ANSWER = [
    "On your remote host you can run:",
    "telnet 127.0.0.1 52698",
    "This should connect to TextMate (on your Mac, via the tunnel). If that",
    "fails, the tunnel is not working.",
]

FIXTURES: dict[str, tuple[list[str], list[str]]] = {
    "reply-bodies/correct_sig.txt": (["this is an email with a correct -- signature."], ["rick"]),
    # An original post, no reply: only the list footer's underscores, not followed by From:, so
    # the footer is read as (unprocessed) lines.
    "reply-bodies/email_1_1.txt": (
        [*RIAK_QUESTION, "I am currently using the Java HTTP API.", "-Abhishek Kona",
         "_" * 47, "riak-users mailing list", "riak-users@lists.basho.com",
         "http://lists.basho.com/mailman/listinfo/riak-users_lists.basho.com"],
        [],
    ),
    "reply-bodies/email_1_2.txt": (
        ["Hi,"],
        ["Abhishek Kona wrote", "Hi folks", "You can list the keys", "riakClient", "would do it.",
         "mailing list"],
    ),
    "reply-bodies/email_1_3.txt": (
        ["Oh thanks.", "Having the function would be great.", "-Abhishek Kona"],
        ["Russell Brown", "Hi folks", "You can list the keys", "mailing list"],
    ),
    "reply-bodies/email_1_4.txt": (
        ["Awesome! I haven't had another problem with it."], ["defunkt", "Loader seems"]
    ),
    "reply-bodies/email_1_5.txt": (
        ["One: Here's what I've got.",
         "- This would be the first bullet point that wraps to the second line",
         "to the next",
         "- This is the second bullet point and it doesn't wrap",
         "- This is the third bullet point and I'm having trouble coming up with enough",
         "to say",
         "- This is the fourth bullet point",
         "Two:",
         "- Here is another bullet point",
         "- And another one",
         "This is a paragraph that talks about a bunch of stuff. It goes on and on",
         "for a while."],
        [],
    ),
    # A custom footer ("torch of pixels") cannot be known; the three-line attribution is cut.
    "reply-bodies/email_1_6.txt": (
        ["I get proper rendering as well.", "Sent from a magnificent torch of pixels"],
        ["Corey Donohoe", "reply@reply.github.com", "wrote:", "caching related", "Reply to this email"],
    ),
    "reply-bodies/email_1_7.txt": (
        [":+1:"], ["Chris Wanstrath", "notifications@github.com", "Steps 0-2", "Reply to this email"]
    ),
    "reply-bodies/email_1_8.txt": (
        [], ["Example Dev", "okay", "I will reply under this one", "and under this.", "Tim", "signature"]
    ),
    "reply-bodies/email_2_1.txt": (
        ["Outlook with a reply"],
        ["-----", "From:", "Google Apps Sync Team", "Sent:", "Subject:", "Dear Google Apps Sync user",
         "Sincerely"],
    ),
    "reply-bodies/email_2_2.txt": (
        ["Outlook with a reply directly above line"],
        ["____", "CRM Comments", "Sent:", "A new comment", "I am replying"],
    ),
    "reply-bodies/email_2_3.txt": (
        ["Outlook with a reply directly above line"],
        ["CRM Comments", "Sent:", "Subject:", "A new comment", "I am replying"],
    ),
    "reply-bodies/email_BlackBerry.txt": (["Here is another email"], ["Sent from my BlackBerry"]),
    "reply-bodies/email_bullets.txt": (
        ["test 2 this should list second", "and have spaces", "and retain this formatting",
         "- how about bullets", "- and another"],
        ["examples@email.goalengine.com", "Give us an example", "Joe Smith"],
    ),
    "reply-bodies/email_iPhone.txt": (["Here is another email"], ["Sent from my iPhone"]),
    "reply-bodies/email_long_quote.txt": (
        RIAK_QUESTION, [">>>", "I am currently using the Java HTTP API.", "Abhishek Kona", "mailing list"]
    ),
    "reply-bodies/email_multi_word_sent_from_my_mobile_device.txt": (
        ["Here is another email"], ["Sent from my Verizon Wireless BlackBerry"]
    ),
    "reply-bodies/email_one_is_not_on.txt": (
        ["Thank, this is really helpful.", "One outstanding question I had:",
         "Locally (on development), when I run..."],
        ["Dave Tapley", "lastLocation"],
    ),
    # "Sent from my desk, ..." is prose, not a footer: it stays.
    "reply-bodies/email_sent_from_my_not_signature.txt": (
        ["Here is another email", "Sent from my desk, is much easier then my mobile phone."], []
    ),
    "reply-bodies/email_sig_delimiter_in_middle_of_line.txt": (
        ["Hi there!", "Stuff happened.", "And here is a fix -- this is not a signature.", "kthxbai"], []
    ),
    # "On your remote host you can run:" starts with "On" but is no attribution.
    "reply-bodies/greedy_on.txt": (
        TEXTMATE_ANSWER, ["George Plymale", "port forwarding", "Reply to this email", "rmate"]
    ),
    "reply-bodies/pathological.txt": (
        ["I think you're onto something. I will try to fix the problem as soon as I",
         "get back to a computer."],
        ["John Sullivan", "shortening", "organism.sequence", "ATGGAG", "query_alignment"],
    ),
    "reply-bodies-zapier/email_2_3.txt": (
        ["Outlook with a reply above headers using unusual format"],
        ["Kim via Site", "Sent:", "Subject:", "Respond to Kim", "Ei tale aliquam"],
    ),
    "reply-bodies-zapier/email_gmail.txt": (
        ["This is a test for inbox replying to a github message."],
        ["Steven Scott", "notifications@github.com", "wrote:", "That way people", "subscribed"],
    ),
    "reply-bodies-zapier/email_headers_no_delimiter.txt": (
        ["And another reply!"],
        ["Dan Watson", "Sent:", "A reply", "Sent from my iPhone", "This is a message.", "second line"],
    ),
    "reply-bodies-zapier/email_partial_quote_header.txt": (
        TEXTMATE_ANSWER, ["George Plymale", "port forwarding"]
    ),
}


def _fixture_text(name: str) -> str:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"reply-body corpus not found at {path} (the shared checkout beside the repo)")
    # Bytes decoded by hand: read_text() would turn email_1_7's CRLF into LF, and the fixtures
    # are meant to be used as their authors wrote them.
    return path.read_bytes().decode("utf-8")


def _assert_absent(commands: list[str] | tuple[str, ...], absent: list[str]) -> None:
    for fragment in absent:
        assert not any(fragment in line for line in commands), f"{fragment!r} leaked into {commands!r}"


def test_every_corpus_fixture_has_expectations() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"reply-body corpus not found at {CORPUS}")
    on_disk = {str(path.relative_to(CORPUS)) for path in CORPUS.glob("reply-bodies*/*.txt")}
    assert on_disk == set(FIXTURES)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_alone(name: str) -> None:
    expected, absent = FIXTURES[name]
    commands = extract_commands(_fixture_text(name))
    assert commands == expected
    _assert_absent(commands, absent)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_below_a_command(name: str) -> None:
    expected, absent = FIXTURES[name]
    commands = extract_commands(f"{COMMAND}\n\n{_fixture_text(name)}")
    assert commands == [COMMAND, *expected]
    _assert_absent(commands, absent)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_as_a_whole_mail(name: str) -> None:
    expected, absent = FIXTURES[name]
    body = f"{COMMAND}\r\n\r\n{_fixture_text(name)}".encode()
    raw = (b"From: Player <player@example.org>\r\nSubject: Re: [pbem #1] Your move\r\n"
           b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body)
    mail = parse_mail(raw, "player@example.org")
    assert mail.commands == (COMMAND, *expected)
    assert mail.problems == ()
    assert mail.automatic is None
    _assert_absent(mail.commands, absent)


def test_pathological_fixture_is_fast() -> None:
    text = _fixture_text("reply-bodies/pathological.txt") + _fixture_text("reply-bodies/email_long_quote.txt")
    start = time.perf_counter()
    extract_commands(text)
    # Generous: the real figure is well under a millisecond; only super-linear work could fail it.
    assert time.perf_counter() - start < 0.5


# --------------------------------------------------------------------------------------------
# extract_commands: the stop rules one by one
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attribution",
    [
        "On Tue, 7 May 2024 at 10:00, Bob Smith <bob@example.org> wrote:",
        "On Tue, May 7, 2024 at 10:00\u202fAM Bob Smith <bob@example.org> wrote:",  # Gmail
        "On 7 May 2024, at 10:00, Bob Smith <bob@example.org> wrote:",  # Apple Mail
        "On 07/05/2024 10:00, Bob Smith wrote:",  # Thunderbird
        "On Tuesday, May 7, 2024, 10:00:00 AM GMT+2, Bob Smith <bob@example.org> wrote:",  # Yahoo
        "Bob Smith wrote:",  # Thunderbird, older default
        "Bob Smith <bob@example.org> writes:",  # Gnus
        "Am Di., 7. Mai 2024 um 10:00 Uhr schrieb Bob Smith <bob@example.org>:",  # Gmail, German
        "Am 07.05.2024 um 10:00 schrieb Bob Smith:",  # Thunderbird, German
        "Bob Smith schrieb:",
        "Le mar. 7 mai 2024 à 10:00, Bob Smith <bob@example.org> a écrit :",  # Gmail, French
        "Le 7 mai 2024 à 10:00, Bob Smith <bob@example.org> a\u00a0écrit\u00a0:",  # Apple Mail, French
        "El mar, 7 may 2024 a las 10:00, Bob Smith (<bob@example.org>) escribió:",  # Gmail, Spanish
        "Op di 7 mei 2024 om 10:00 schreef Bob Smith <bob@example.org>:",  # Gmail, Dutch
        "Il giorno mar 7 mag 2024 alle ore 10:00 Bob Smith <bob@example.org> ha scritto:",  # Italian
        "Em ter., 7 de mai. de 2024 às 10:00, Bob Smith <bob@example.org> escreveu:",  # Portuguese
        "Den tis 7 maj 2024 kl 10:00 skrev Bob Smith <bob@example.org>:",  # Swedish
        "W dniu 7.05.2024 o 10:00, Bob Smith pisze:",  # Thunderbird, Polish
        "wt., 7 maj 2024 o 10:00 Bob Smith <bob@example.org> napisał(a):",  # Gmail, Polish
        "ti 7.5.2024 klo 10.00 Bob Smith (bob@example.org) kirjoitti:",  # Finnish
        "2024年5月7日(火) 10:00 Bob Smith <bob@example.org>:",  # Gmail, Japanese: no verb
        "вт, 7 мая 2024 г. в 10:00, Bob Smith <bob@example.org>:",  # Gmail, Russian: no verb
        "在 2024年5月7日 10:00，Bob Smith <bob@example.org> 写道：",  # Chinese
    ],
)
def test_attribution_lines_stop_reading(attribution: str) -> None:
    text = f"Pe2-e4\n\n{attribution}\n\nresign\n> board\n"
    assert extract_commands(text) == ["Pe2-e4"]


@pytest.mark.parametrize(
    "wrapped",
    [
        "On Tue, 2011 at 7:07 PM, Someone <a@b.com>\nwrote:",
        "On Tue, Sep 25, 2012 at 8:59 AM, Chris Wanstrath\n<notifications@github.com>wrote:",
        "On Dec 16, 2011, at 12:47 PM, Corey Donohoe\n<reply@reply.github.com>\nwrote:",
        "Le mar. 7 mai 2024 à 10:00, Bob Smith <bob@example.org> a\nécrit :",
        "Am Di., 7. Mai 2024 um 10:00 Uhr schrieb Bob Smith <\nbob@example.org>:",
    ],
)
def test_attributions_wrapped_over_lines_stop_reading(wrapped: str) -> None:
    assert extract_commands(f"draw\n{wrapped}\nresign\n") == ["draw"]


@pytest.mark.parametrize(
    "prose",
    [
        "On your remote host you can run:",
        "On second thought, I resign",
        "One more thing:",
        "Once upon a time",
        "Le fou est pris",
    ],
)
def test_lines_starting_like_attributions_are_kept(prose: str) -> None:
    assert extract_commands(f"{prose}\nnext line\n\nresign\n") == [prose, "next line", "resign"]


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----",
        "----- Original Message -----",
        "--Original Message--",
        "---original message---",
        "Original Message",
        "-----Ursprüngliche Nachricht-----",
        "-------- Message d'origine --------",
        "---------- Forwarded message ---------",
        "Begin forwarded message:",
    ],
)
def test_original_message_lines_stop_reading(separator: str) -> None:
    text = f"Pe2-e4\n{separator}\nFrom: pbem\nresign\n"
    assert extract_commands(text) == ["Pe2-e4"]


@pytest.mark.parametrize("line", ["_" * 32, "_" * 40, "-" * 30, " " + "-" * 30 + " "])
def test_a_rule_followed_by_from_stops_reading(line: str) -> None:
    assert extract_commands(f"draw\n{line}\n\nFrom: pbem <pbem@x.org>\nresign\n") == ["draw"]


def test_a_rule_without_from_is_read() -> None:
    assert extract_commands("draw\n" + "_" * 32 + "\nmailing list\n") == ["draw", "_" * 32, "mailing list"]


@pytest.mark.parametrize(
    "block",
    [
        "From: pbem <pbem@x.org>\nSent: Monday, May 6, 2024 9:00 PM\nTo: Bob",
        "From: pbem <pbem@x.org>\nDate: Mon, 6 May 2024 21:00:00 +0200\nSubject: Your move",
        "*From:* pbem [mailto:pbem@x.org]\n*Sent:* Monday, May 6, 2024 9:00 PM",
        "From: pbem\n\nTo: Bob\n\nSubject: Your move",
        "Von: pbem <pbem@x.org>\nGesendet: Montag, 6. Mai 2024 21:00\nAn: Bob",
        "De : pbem <pbem@x.org>\nEnvoyé : lundi 6 mai 2024 21:00\nÀ : Bob",
        "Van: pbem <pbem@x.org>\nVerzonden: maandag 6 mei 2024 21:00\nAan: Bob",
        "De: pbem <pbem@x.org>\nEnviado: lunes, 6 de mayo de 2024 21:00\nPara: Bob",
    ],
)
def test_outlook_header_blocks_stop_reading(block: str) -> None:
    assert extract_commands(f"resign\n\n{block}\n\nPe2-e4\n") == ["resign"]


def test_a_lone_from_line_is_read() -> None:
    assert extract_commands("From: my phone\ndraw\n") == ["From: my phone", "draw"]


@pytest.mark.parametrize("separator", ["-- ", "--", "  --  ", "--\t"])
def test_signature_separator_stops_reading(separator: str) -> None:
    assert extract_commands(f"Pe2-e4\n{separator}\nBob\nresign\n") == ["Pe2-e4"]


@pytest.mark.parametrize("line", ["-- Bob", "---", "Pe2-e4 -- the best move"])
def test_dashes_that_are_no_separator_are_read(line: str) -> None:
    assert extract_commands(f"{line}\ndraw\n") == [line, "draw"]


@pytest.mark.parametrize(
    "footer",
    [
        "Sent from my iPhone",
        "Sent from my iPad",
        "Sent from my BlackBerry",
        "Sent from my BlackBerry 10 smartphone.",
        "Sent from my Verizon Wireless BlackBerry",
        "Sent from my mobile device",
        "Sent from my Android phone",
        "Sent from my Samsung Galaxy smartphone.",
        "Sent from my phone",
        "Get Outlook for iOS",
        "Get Outlook for Android<https://aka.ms/ghei36>",
        "Sent from Outlook for iOS",
        "Sent from Mail for Windows",
        "Sent from Yahoo Mail for iPhone",
        "Von meinem iPhone gesendet",
        "Envoyé de mon iPhone",
        "Enviado desde mi iPhone",
        "Verzonden vanaf mijn iPhone",
        "Inviato da iPhone",
    ],
)
def test_mobile_footers_stop_reading(footer: str) -> None:
    assert extract_commands(f"Pe2-e4\n\n{footer}\n\nresign\n") == ["Pe2-e4"]


@pytest.mark.parametrize(
    "line",
    [
        "Sent from my desk, is much easier then my mobile phone.",
        "Sent from a magnificent torch of pixels",
        "I sent from my iPhone yesterday",
        "Get Outlook for iOS, they said",
    ],
)
def test_footer_like_prose_is_read(line: str) -> None:
    assert extract_commands(f"{line}\ndraw\n") == [line, "draw"]


@pytest.mark.parametrize("end", ["end", "END", "  End  ", "\ufeffend"])
def test_end_stops_reading(end: str) -> None:
    assert extract_commands(f"Pe2-e4\n{end}\nresign\n") == ["Pe2-e4"]


def test_end_must_be_the_whole_line() -> None:
    assert extract_commands("endgame\nthe end\nend.\n") == ["endgame", "the end", "end."]


def test_quotes_stop_reading_even_indented() -> None:
    assert extract_commands("draw\n   > quoted\nresign\n") == ["draw"]
    assert extract_commands(">first line quoted\nresign\n") == []


def test_blank_and_comment_lines_are_skipped_and_lines_stripped() -> None:
    text = ("\ufeff  Pe2-e4  \r\n\r\n// a comment\r\n\u00a0\u00a0draw\u00a0\r\n   \t\r\n"
            "  // indented comment\r\nresign")
    assert extract_commands(text) == ["Pe2-e4", "draw", "resign"]


def test_unicode_line_separators_split_lines() -> None:
    assert extract_commands("Pe2-e4\u2028draw\x85resign\rboard") == ["Pe2-e4", "draw", "resign", "board"]


def test_control_characters_are_dropped_from_commands() -> None:
    assert extract_commands("Pe2\x00-e4\x1b\nre\ud800sign") == ["Pe2-e4", "re\ufffdsign"]


@pytest.mark.parametrize(
    "text",
    [
        "On " + "x " * 200_000,
        "schrieb " * 100_000,
        "<a@b" * 200_000,
        "*" * 500_000,
        ("On a\nb\nc\n") * 50_000,
        ("-----\n\n\n") * 50_000,
        ("From: x\n") * 50_000,
        "Sent from my " + "a " * 200_000,
    ],
    ids=["on", "schrieb", "angle", "stars", "wrapped", "rules", "from", "footer"],
)
def test_adversarial_text_is_linear(text: str) -> None:
    start = time.perf_counter()
    extract_commands(text)
    assert time.perf_counter() - start < 5  # quadratic work on ~400 KB would take minutes


# --------------------------------------------------------------------------------------------
# html_to_text
# --------------------------------------------------------------------------------------------


def test_html_to_text_drops_invisible_parts_and_marks_quotes() -> None:
    markup = (
        "<!DOCTYPE html><html><head><title>ignored title</title><style>p { color: red }</style>"
        "<script>alert('x')</script></head><body><!-- a comment --><p>Ke1-e2</p>"
        "<div>draw&nbsp;<b>now</b></div><ul><li>one</li><li>two</li></ul>"
        "<blockquote>old &gt; stuff<br>more<blockquote>older</blockquote></blockquote>"
        "<pre>a  b\nc</pre>x &lt; y &amp; z &#8211; &eacute;</body></html>"
    )
    assert html_to_text(markup) == (
        "Ke1-e2\ndraw now\none\ntwo\n> old > stuff\n> more\n> > older\na  b\nc\nx < y & z – é"
    )


def test_html_to_text_survives_a_missing_head_end() -> None:
    assert html_to_text("<html><head><meta charset=utf-8><body>resign</body>") == "resign"


def test_html_to_text_tag_attributes_may_hold_angle_brackets() -> None:
    assert html_to_text('<p title="a > b" class=\'x>y\'>draw</p>') == "draw"


def test_html_to_text_drops_unterminated_constructs() -> None:
    assert html_to_text("draw<!-- never closed") == "draw"
    assert html_to_text("draw<p class=\"never closed") == "draw"
    assert html_to_text("draw<script>alert(1)") == "draw"
    assert html_to_text("a < b <3") == "a < b <3"


@pytest.mark.parametrize(
    "markup",
    ["<a" * 100_000, "</" * 100_000, "<![" * 70_000, "<" * 200_000, "<a " + 'b="' * 70_000,
     "<!--" * 50_000, "&#" * 100_000, "<blockquote>" * 20_000 + "x", '<a b="x">' * 25_000],
    ids=["tags", "end-tags", "cdata", "lt", "quotes", "comments", "charrefs", "nesting", "attributes"],
)
def test_html_to_text_is_linear_on_hostile_markup(markup: str) -> None:
    # html.parser took 28 s on 200 KB of "<a<a<a" and raised on "<![<![": both must be harmless.
    start = time.perf_counter()
    html_to_text(markup)
    assert time.perf_counter() - start < 5


# --------------------------------------------------------------------------------------------
# Whole mails as clients send them (tests/mail/samples/*.eml, and CRLF versions of them)
# --------------------------------------------------------------------------------------------


def _sample(name: str, crlf: bool = False) -> bytes:
    raw = (SAMPLES / name).read_bytes()
    return raw.replace(b"\n", b"\r\n") if crlf else raw


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_gmail_reply(crlf: bool) -> None:
    mail = parse_mail(_sample("gmail_reply.eml", crlf), "alice.player@gmail.com")
    assert mail == InboundMail(
        message_id="<CAJ7x2Lz9q_Fv3=Kp0wX+7b@mail.gmail.com>",
        sender="alice.player@gmail.com",
        sender_name="Alice Player",
        subject="Re: [pbem #17] Bob played 1c2-1c3",
        in_reply_to="<game-17-move-13@pbem.localhost>",
        references=("<game-17-move-12@pbem.localhost>", "<game-17-move-13@pbem.localhost>"),
        automatic=None,
        body=(
            "Pe2-e4 #14\ndraw\n\nOn Mon, May 6, 2024 at 9:00\u202fAM pbem "
            "<pbem+g17w4.0123456789abcdef0123@pbem.localhost> wrote:\n\n"
            "> Bob played 1c2-1c3.\n>\n> resign\n>\n"
        ),
        commands=("Pe2-e4 #14", "draw"),
        problems=(),
    )


def _html_part(raw: bytes) -> str:
    message = email.message_from_bytes(raw, policy=policy.default)
    for part in message.walk():
        if part.get_content_type() == "text/html":
            return str(part.get_content())
    raise AssertionError("no HTML part")


def test_gmail_reply_html_part_reads_the_same() -> None:
    assert extract_commands(html_to_text(_html_part(_sample("gmail_reply.eml")))) == ["Pe2-e4 #14", "draw"]


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_outlook_reply_windows_1252(crlf: bool) -> None:
    mail = parse_mail(_sample("outlook_reply.eml", crlf), "bjorn.muller@contoso.com")
    assert mail.message_id == "<AM0PR07MB1234ABCD5678EF90@AM0PR07MB1234.eurprd07.prod.outlook.com>"
    assert mail.sender == "bjorn.muller@contoso.com"
    assert mail.sender_name == "Björn Müller"
    assert mail.subject == "RE: [pbem #5] Your move"
    assert mail.in_reply_to == "<game-5-move-3@pbem.localhost>"
    assert mail.references == ("<game-5-move-3@pbem.localhost>",)
    assert mail.automatic is None
    assert mail.body.startswith("Nf3xe5\n\nGrüße – Björn\n\n-----Original Message-----\n")
    assert mail.commands == ("Nf3xe5", "Grüße – Björn")
    assert mail.problems == ()


def test_outlook_reply_html_part_reads_the_same() -> None:
    text = html_to_text(_html_part(_sample("outlook_reply.eml")))
    assert extract_commands(text) == ["Nf3xe5", "Grüße – Björn"]


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_apple_mail_from_an_iphone(crlf: bool) -> None:
    mail = parse_mail(_sample("apple_mail_iphone.eml", crlf), "carol@icloud.com")
    assert mail == InboundMail(
        message_id="<6F1E2D3C-4B5A-6978-8190-A1B2C3D4E5F6@icloud.com>",
        sender="carol@icloud.com",
        sender_name="Carol",
        subject="Re: [pbem #9] Black to move",
        in_reply_to="<game-9-move-20@pbem.localhost>",
        references=("<game-9-move-20@pbem.localhost>",),
        automatic=None,
        body=(
            "Qd8-h4\u00a0\n\nSent from my iPhone\n\n> On 6 May 2024, at 21:00, pbem "
            "<pbem+g9b7.00112233445566778899@pbem.localhost> wrote:\n> \n"
            "> \ufeffBlack to move. Your opponent played Bf1-c4.\n> resign\n"
        ),
        commands=("Qd8-h4",),
        problems=(),
    )


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_thunderbird_format_flowed(crlf: bool) -> None:
    mail = parse_mail(_sample("thunderbird_flowed.eml", crlf), "dave@posteo.de")
    # Unflowing joins the soft-wrapped comment into one '//' line; read raw, its second half
    # would have been taken for a command.
    assert mail.body == (
        "1c2-1c3 #8\n// next time I will bring the attack board over, this remark is long enough for the "
        "client to wrap it\n\nOn 07/05/2024 18:00, pbem wrote:\n> White to move.\n> \n> resign\n"
    )
    assert mail.commands == ("1c2-1c3 #8",)
    assert (mail.sender, mail.sender_name) == ("dave@posteo.de", "Dave Example")
    assert mail.message_id == "<3b0d1c2e-5f6a-4b7c-8d9e-0f1a2b3c4d5e@posteo.de>"
    assert mail.problems == ()


def test_format_flowed_delsp_and_space_stuffing() -> None:
    raw = (b"From: a@example.org\r\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\r\n\r\n"
           b" From the start \r\nof a line\r\nPe2- \r\ne4\r\n")
    mail = parse_mail(raw)
    assert mail.body == "From the startof a line\nPe2-e4\n"  # delsp=yes: the soft-break space goes


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_bounce(crlf: bool) -> None:
    mail = parse_mail(_sample("bounce_dsn.eml", crlf), "")
    assert mail.automatic == "null envelope sender (a bounce or an auto-reply)"
    assert mail.sender == "mailer-daemon@mail.example.net"
    assert mail.subject == "Undelivered Mail Returned to Sender"
    # The returned original (message/rfc822) is never read: its "resign" is not the sender's.
    assert "resign" not in mail.commands
    assert mail.commands[0] == "This is the mail system at host mail.example.net."


def test_bounce_without_envelope_is_still_automatic() -> None:
    assert parse_mail(_sample("bounce_dsn.eml")).automatic == "Return-Path: <> (null sender)"


# --------------------------------------------------------------------------------------------
# Whole mails built here: encodings, charsets, broken structure, hostile headers
# --------------------------------------------------------------------------------------------


def _mail(headers: str, body: bytes, *, sender: str | None = "From: Bob <bob@example.org>") -> bytes:
    lines = [sender] if sender else []
    lines += [line for line in headers.strip().splitlines() if line]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


def test_html_only_mail() -> None:
    raw = _mail(
        "Subject: move\nContent-Type: text/html; charset=utf-8",
        b"<html><head><title>Re: move</title></head><body><p>Ke1-e2</p><p>draw&nbsp;</p>"
        b"<blockquote>resign</blockquote></body></html>",
    )
    mail = parse_mail(raw)
    assert mail.body == "Ke1-e2\ndraw\n> resign"
    assert mail.commands == ("Ke1-e2", "draw")
    assert mail.problems == ("the mail had no text part; read the HTML part",)


def test_empty_text_part_falls_back_to_html() -> None:
    raw = _mail(
        'Content-Type: multipart/alternative; boundary="b"',
        b"--b\r\nContent-Type: text/plain\r\n\r\n\r\n"
        b"--b\r\nContent-Type: text/html\r\n\r\n<p>draw</p>\r\n--b--\r\n",
    )
    mail = parse_mail(raw)
    assert mail.commands == ("draw",)
    assert mail.problems == ("the text part was empty; read the HTML part",)


def test_base64_body() -> None:
    body = base64.encodebytes("resign\r\n\r\n-- \r\nBöb\r\n".encode())
    raw = _mail("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64", body)
    mail = parse_mail(raw)
    assert mail.body == "resign\n\n-- \nBöb\n"
    assert mail.commands == ("resign",)
    assert mail.problems == ()


def test_quoted_printable_latin_1() -> None:
    raw = _mail("Content-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: quoted-printable",
                b"Pe2-e4\r\nMerci, =E0 bient=F4t\r\n")
    assert parse_mail(raw).commands == ("Pe2-e4", "Merci, à bientôt")


def test_unknown_charset_utf8_text() -> None:
    raw = _mail('Content-Type: text/plain; charset="x-unknown"\nContent-Transfer-Encoding: 8bit',
                "Pe2-e4 ✓\r\n".encode())
    mail = parse_mail(raw)
    assert mail.commands == ("Pe2-e4 ✓",)
    assert mail.problems == ("unknown charset 'x-unknown'; decoded as UTF-8",)


def test_unknown_charset_8bit_text() -> None:
    raw = _mail('Content-Type: text/plain; charset="x-unknown"\nContent-Transfer-Encoding: 8bit',
                b"Pe2-e4\r\nGr\xfc\xdfe\r\n")
    mail = parse_mail(raw)
    assert mail.commands == ("Pe2-e4", "Grüße")
    assert mail.problems == (
        "unknown charset 'x-unknown' and the text is not UTF-8; decoded as Windows-1252",
    )


@pytest.mark.parametrize("charset", ["zlib", "base64", "punycode", "idna", "unicode_escape", "bogus\x00"])
def test_codecs_that_are_no_charsets_are_refused(charset: str) -> None:
    raw = _mail(f'Content-Type: text/plain; charset="{charset}"', b"draw\r\n")
    mail = parse_mail(raw)
    assert mail.commands == ("draw",)
    assert len(mail.problems) == 1 and mail.problems[0].startswith("unknown charset")


def test_wrong_charset_is_replaced_and_noted() -> None:
    raw = _mail("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit",
                b"draw\r\nGr\xfc\xdfe\r\n")
    mail = parse_mail(raw)
    assert mail.commands == ("draw", "Gr\ufffd\ufffde")
    assert mail.problems == ("the text is not valid utf-8; undecodable bytes were replaced",)


def test_undeclared_8bit_is_read_as_windows_1252() -> None:
    mail = parse_mail(_mail("", b"draw \x96 Gr\xfc\xdfe\r\n"))
    assert mail.commands == ("draw – Grüße",)
    assert mail.problems == (
        "the text was without a declared charset but is not UTF-8; decoded as Windows-1252",
    )


def test_iso_8859_1_encoded_word_display_name() -> None:
    # The RFC 2047 example: adjacent encoded words in two charsets join without the space.
    subject = ("Subject: =?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?=\n"
               " =?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?=")
    raw = _mail(subject,
                b"draw\r\n", sender="From: =?ISO-8859-1?Q?Andr=E9?= Pirard <PIRARD@vm1.ulg.ac.be>")
    mail = parse_mail(raw)
    assert mail.sender_name == "André Pirard"
    assert mail.sender == "pirard@vm1.ulg.ac.be"
    assert mail.subject == "If you can read this you understand the example."


def test_raw_utf8_and_latin1_header_bytes() -> None:
    utf8 = parse_mail("From: José Müller <jose@example.org>\r\nSubject: café\r\n\r\ndraw\r\n".encode())
    assert (utf8.sender_name, utf8.subject) == ("José Müller", "café")
    latin1 = parse_mail("From: José <jose@example.org>\r\nSubject: café\r\n\r\ndraw\r\n".encode("latin-1"))
    assert (latin1.sender, latin1.sender_name, latin1.subject) == ("jose@example.org", "José", "café")


def test_header_injection_in_name_and_subject() -> None:
    raw = _mail("Subject: =?utf-8?q?Bob=0D=0ABcc:_evil@x?=\nMessage-ID: <id@x>\r\n", b"draw\r\n",
                sender="From: =?utf-8?q?Bob=0D=0ABcc:_evil@x?= <bob@example.org>")
    mail = parse_mail(raw)
    assert mail.sender == "bob@example.org"
    assert mail.sender_name == "Bob Bcc: evil@x"
    assert mail.subject == "Bob Bcc: evil@x"
    assert mail.commands == ("draw",)


def test_header_injection_with_unicode_separators() -> None:
    raw = _mail("Subject: =?utf-8?b?" + base64.b64encode("a\u2028Bcc: x@y\x85z\x00".encode()).decode() + "?=",
                b"draw\r\n")
    assert parse_mail(raw).subject == "a Bcc: x@y z"


def test_mail_without_from_uses_the_envelope_sender() -> None:
    raw = _mail("Subject: hi", b"resign\r\n", sender=None)
    assert parse_mail(raw, "<Player@Example.ORG>").sender == "player@example.org"
    assert parse_mail(raw, "player@example.org").sender_name == ""
    assert parse_mail(raw).sender == ""


@pytest.mark.parametrize(
    "from_line",
    ["From: Bob", "From: <<<@@>>", "From:", "From: Bob <bob at example.org>", "From: =?",
     'From: "Bob Smith"@example.org'],
)
def test_unparseable_from_falls_back_to_the_envelope(from_line: str) -> None:
    raw = _mail("", b"draw\r\n", sender=from_line)
    assert parse_mail(raw, "bob@example.org").sender == "bob@example.org"
    assert parse_mail(raw).sender == ""


def test_display_name_with_comma_and_quotes() -> None:
    mail = parse_mail(_mail("", b"draw\r\n", sender='From: "Smith, Bob" <Bob.Smith@Example.org>'))
    assert (mail.sender, mail.sender_name) == ("bob.smith@example.org", "Smith, Bob")


def test_empty_body() -> None:
    mail = parse_mail(b"From: bob@example.org\r\nSubject: nothing\r\n\r\n")
    assert (mail.body, mail.commands, mail.problems) == ("", (), ())


def test_no_text_at_all() -> None:
    raw = _mail("Content-Type: application/pdf\nContent-Disposition: attachment; filename=a.pdf",
                b"%PDF-1.4\r\n")
    mail = parse_mail(raw)
    assert (mail.body, mail.commands) == ("", ())
    assert mail.problems == ("the mail had no readable text part",)


def test_text_attachments_are_not_read() -> None:
    raw = _mail(
        'Content-Type: multipart/mixed; boundary="b"',
        b"--b\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename=game.pgn\r\n\r\n"
        b"resign\r\n"
        b"--b\r\nContent-Type: text/plain\r\n\r\ndraw\r\n--b--\r\n",
    )
    assert parse_mail(raw).commands == ("draw",)


def test_forwarded_mail_inside_is_not_read() -> None:
    raw = _mail(
        'Content-Type: multipart/mixed; boundary="b"',
        b"--b\r\nContent-Type: message/rfc822\r\n\r\nFrom: x@y\r\n\r\nresign\r\n--b--\r\n",
    )
    mail = parse_mail(raw)
    assert mail.commands == ()
    assert mail.problems == ("the mail had no readable text part",)


def test_broken_mime_missing_boundary_is_recovered() -> None:
    raw = _mail(
        "Content-Type: multipart/alternative",
        b"--XYZ\r\nContent-Type: text/plain\r\n\r\nPe2-e4\r\n--XYZ\r\nContent-Type: text/html\r\n\r\n"
        b"<p>draw</p>\r\n--XYZ--\r\n",
    )
    mail = parse_mail(raw)
    assert mail.commands == ("Pe2-e4",)
    assert mail.problems == (
        "the mail's MIME structure was broken (multipart boundary missing or wrong); "
        "its parts were read anyway",
    )


def test_broken_mime_wrong_boundary_is_recovered() -> None:
    raw = _mail('Content-Type: multipart/mixed; boundary="abc"',
                b"--XYZ\r\nContent-Type: text/plain\r\n\r\nresign\r\n--XYZ--\r\n")
    assert parse_mail(raw).commands == ("resign",)


def test_broken_mime_without_any_boundary_is_read_as_text() -> None:
    raw = _mail("Content-Type: multipart/mixed", b"resign\r\n-----Original Message-----\r\ndraw\r\n")
    mail = parse_mail(raw)
    assert mail.commands == ("resign",)
    assert mail.problems == ("the mail's MIME structure was broken; its text was read as it came",)


def test_threading_headers() -> None:
    ids = [f"<m{i}@x>" for i in range(40)]
    raw = _mail(
        "Message-ID:   <Orig.ID@Host>  \nIn-Reply-To: <m39@x> (Bob's message of Monday)\n"
        "References: " + "\n ".join(ids),
        b"draw\r\n",
    )
    mail = parse_mail(raw)
    assert mail.message_id == "<Orig.ID@Host>"
    assert mail.in_reply_to == "<m39@x>"
    assert mail.references == (ids[0], *ids[-29:])


def test_message_id_is_kept_as_written() -> None:
    # policy.default's parser would have truncated this to "<a"; the header is kept whole.
    assert parse_mail(_mail("Message-ID: <a b@x>", b"")).message_id == "<a b@x>"
    assert parse_mail(_mail("", b"")).message_id == ""


def test_huge_mail() -> None:
    body = b"Pe2-e4\r\n" + b"> " + b"x" * 2_000_000 + b"\r\n" + b"filler line\r\n" * 100_000
    start = time.perf_counter()
    mail = parse_mail(_mail("Subject: " + "s" * 100_000, body))
    assert time.perf_counter() - start < 10
    assert mail.commands == ("Pe2-e4",)
    assert mail.subject == "s" * 100_000


def _timed_parse(raw: bytes, envelope: str | None = None) -> InboundMail:
    start = time.perf_counter()
    mail = parse_mail(raw, envelope)
    # Generous; unbounded, the stdlib's parsers took from 6 s to minutes on these mails.
    assert time.perf_counter() - start < 5
    return mail


def test_many_mime_parts_are_bounded() -> None:
    part = b"--b\r\n\r\nx\r\n"
    raw = _mail('Content-Type: multipart/mixed; boundary="b"',
                b"--b\r\nContent-Type: text/plain\r\n\r\nPe2-e4\r\n" + part * 100_000 + b"--b--\r\n")
    mail = _timed_parse(raw)
    assert mail.commands == ("Pe2-e4",)
    assert mail.problems == ("the mail had too many parts or '--' lines; only its beginning was read",)


@pytest.mark.parametrize("unit", ['"', "(a)", ";", "a,"])
def test_hostile_mime_headers_are_bounded(unit: str) -> None:
    hostile = unit * 20_000
    part = (f"--b\r\nContent-Type: text/plain{hostile}\r\nContent-Disposition: {hostile}\r\n"
            f"Content-Transfer-Encoding: {hostile}\r\n\r\nx\r\n").encode()
    raw = _mail('Content-Type: multipart/mixed; boundary="b"',
                b"--b\r\nContent-Type: text/plain\r\n\r\nPe2-e4\r\n" + part * 15 + b"--b--\r\n")
    assert _timed_parse(raw).commands == ("Pe2-e4",)


@pytest.mark.parametrize("unit", ['"', "(a)", ";", "a,"])
def test_hostile_from_is_bounded(unit: str) -> None:
    raw = _mail("", b"draw\r\n", sender="From: " + unit * 300_000)
    mail = _timed_parse(raw, "bob@example.org")
    assert (mail.sender, mail.sender_name, mail.commands) == ("bob@example.org", "", ("draw",))


def test_long_from_is_read_by_the_lenient_parser() -> None:
    mail = parse_mail(_mail("", b"draw\r\n", sender='From: "' + "x" * 300 + '" <Bob@Example.org>'))
    assert (mail.sender, mail.sender_name) == ("bob@example.org", "x" * 300)


def test_nested_multiparts_are_bounded() -> None:
    depth = 500
    opening = b"".join(b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (i, i + 1)
                       for i in range(depth))
    raw = _mail("Content-Type: multipart/mixed; boundary=b0", opening + b"--b500\r\n\r\ndraw\r\n")
    assert isinstance(parse_mail(raw), InboundMail)


def test_non_bytes_input_does_not_raise() -> None:
    assert parse_mail("From: a@b.org\n\ndraw\n").commands == ("draw",)  # type: ignore[arg-type]
    assert parse_mail(bytearray(b"From: a@b.org\n\ndraw\n")).commands == ("draw",)  # type: ignore[arg-type]
    assert parse_mail(None).commands == ()  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Automatic mail
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ("Auto-Submitted: auto-replied", "Auto-Submitted: auto-replied"),
        ("Auto-Submitted: Auto-Generated; owner-email=\"x@y\"", "Auto-Submitted: auto-generated"),
        ("Auto-Submitted: auto-notified", "Auto-Submitted: auto-notified"),
        ("Auto-Submitted:", "Auto-Submitted: (empty)"),
        ("Auto-Submitted: no", None),
        ("Auto-Submitted: No (a person)", None),
        ("X-Autoreply: yes", "X-Autoreply header (an auto-reply)"),
        ("X-Autorespond: Vacation", "X-Autorespond header (an auto-reply)"),
        ("X-Auto-Response-Suppress: All", "X-Auto-Response-Suppress: All"),
        ("X-Auto-Response-Suppress: DR, OOF, AutoReply", "X-Auto-Response-Suppress: DR, OOF, AutoReply"),
        ("X-Auto-Response-Suppress: oof", "X-Auto-Response-Suppress: oof"),
        ("X-Auto-Response-Suppress: DR, RN, NRN", None),
        ("Precedence: bulk", "Precedence: bulk"),
        ("Precedence: Junk", "Precedence: junk"),
        ("Precedence: list", "Precedence: list"),
        ("Precedence: auto_reply", "Precedence: auto_reply"),
        ("Precedence: first-class", None),
        ("List-Id: Space chess players <players.lists.example.org>", "List-Id header (mailing-list mail)"),
        ("List-Unsubscribe: <mailto:leave@lists.example.org>", "List-Unsubscribe header (mailing-list mail)"),
        ("Return-Path: <>", "Return-Path: <> (null sender)"),
        ("Return-Path: < >", "Return-Path: <> (null sender)"),
        ("Return-Path: <bob@example.org>", None),
        ("X-Failed-Recipients: carol@example.org", "X-Failed-Recipients header (a bounce)"),
    ],
)
def test_automatic_headers(header: str, reason: str | None) -> None:
    assert parse_mail(_mail(header, b"draw\r\n"), "bob@example.org").automatic == reason


@pytest.mark.parametrize(
    ("from_line", "reason"),
    [
        ("From: MAILER-DAEMON@mx.example.org",
         "sent by a mail-system address (MAILER-DAEMON@mx.example.org)"),
        ("From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>",
         "sent by a mail-system address (mailer-daemon@googlemail.com)"),
        ("From: MAILER-DAEMON (Mail Delivery System)", "sent by a mail-system address (MAILER-DAEMON)"),
        ("From: postmaster@outlook.com", "sent by a mail-system address (postmaster@outlook.com)"),
        ("From: <noreply@example.org>", "sent by a mail-system address (noreply@example.org)"),
        ("From: Bob <bob@example.org>", None),
        ("From: Daemon Fan <daemon@example.org>", None),
    ],
)
def test_mail_system_senders_are_automatic(from_line: str, reason: str | None) -> None:
    assert parse_mail(_mail("", b"draw\r\n", sender=from_line)).automatic == reason


@pytest.mark.parametrize("envelope", ["", "<>", "  "])
def test_null_envelope_sender_is_automatic(envelope: str) -> None:
    mail = parse_mail(_mail("", b"draw\r\n"), envelope)
    assert mail.automatic == "null envelope sender (a bounce or an auto-reply)"
    assert mail.sender == "bob@example.org"


def test_unknown_envelope_sender_is_not_automatic() -> None:
    assert parse_mail(_mail("", b"draw\r\n"), None).automatic is None


def test_multipart_report_is_automatic() -> None:
    raw = _mail('Content-Type: multipart/report; report-type=disposition-notification; boundary="r"',
                b"--r\r\nContent-Type: text/plain\r\n\r\nRead receipt\r\n--r--\r\n")
    assert parse_mail(raw).automatic == "delivery or disposition report (multipart/report)"


def test_automatic_reason_on_a_message_object() -> None:
    message = EmailMessage()
    message["From"] = "bob@example.org"
    assert automatic_reason(message) is None
    assert automatic_reason(message, "") == "null envelope sender (a bounce or an auto-reply)"
    message["Auto-Submitted"] = "auto-generated"
    assert automatic_reason(message) == "Auto-Submitted: auto-generated"


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

LINE_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _assert_well_formed(mail: InboundMail) -> None:
    header_fields = (mail.message_id, mail.sender, mail.sender_name, mail.subject, mail.in_reply_to,
                     *mail.references, mail.automatic or "")
    for value in (*header_fields, *mail.commands, *mail.problems):
        assert not any(ch in value for ch in LINE_BREAKS), repr(value)
        value.encode("utf-8")  # no lone surrogates: a reply built from it can be sent
    mail.body.encode("utf-8")
    assert "\x00" not in mail.body
    for command in mail.commands:
        assert command and command == command.strip() and not command.startswith((">", "//"))


SAMPLE_MAILS = [path.read_bytes() for path in sorted(SAMPLES.glob("*.eml"))]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000))
def test_parse_mail_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    _assert_well_formed(parse_mail(raw))


@st.composite
def mutated_mails(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SAMPLE_MAILS)))
    for _ in range(draw(st.integers(1, 12))):
        position = draw(st.integers(0, len(data)))
        operation = draw(st.sampled_from(["insert", "delete", "replace", "splice"]))
        chunk = draw(st.sampled_from([b"\r\n", b"\n\n", b"--", b"=?", b"?=", b"=", b":", b";", b"\"", b"<",
                                      b">", b"\x00", b"\xff", b"\xc3", b"=?utf-8?q?=0D=0A?=", b"boundary=",
                                      b"Content-Type: multipart/mixed\r\n", b"charset=x-bogus"])
                     | st.binary(max_size=8))
        if operation == "insert":
            data[position:position] = chunk
        elif operation == "delete":
            del data[position:position + draw(st.integers(1, 64))]
        elif operation == "replace":
            data[position:position + len(chunk)] = chunk
        else:
            start = draw(st.integers(0, len(data)))
            data[position:position] = data[start:start + draw(st.integers(1, 200))]
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_mails(), st.one_of(st.none(), st.text(max_size=20)))
def test_parse_mail_never_raises_on_mutated_mails(raw: bytes, envelope: str | None) -> None:
    _assert_well_formed(parse_mail(raw, envelope))


HEADER_NAMES = ["From", "To", "Subject", "Message-ID", "In-Reply-To", "References", "Content-Type",
                "Content-Transfer-Encoding", "Content-Disposition", "Auto-Submitted", "Precedence",
                "Return-Path", "List-Id", "X-Auto-Response-Suppress", "MIME-Version"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(HEADER_NAMES), st.text(max_size=60)), max_size=10),
    st.text(max_size=300),
    st.sampled_from(["utf-8", "latin-1"]),
)
def test_parse_mail_never_raises_on_odd_headers(
    headers: list[tuple[str, str]], body: str, encoding: str
) -> None:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    raw = (head + "\r\n" + body).encode(encoding, "replace")
    _assert_well_formed(parse_mail(raw))


LINE_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list(">-_/ \t:@<>wroteOnFromSent\ufeff\u00a0end*") + list(LINE_BREAKS)),
        st.characters(),
    ),
    max_size=400,
)


@settings(max_examples=500, deadline=None)
@given(LINE_TEXT)
def test_extract_commands_properties(text: str) -> None:
    commands = extract_commands(text)
    for command in commands:
        assert command and not command.startswith((">", "//"))
        assert not any(ch in command for ch in LINE_BREAKS)
        command.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(list("<>/!-=\"' abp&#;")), st.characters()), max_size=400))
def test_html_to_text_never_raises(markup: str) -> None:
    assert isinstance(html_to_text(markup), str)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 #=@.-]{0,20}", fullmatch=True), min_size=1, max_size=5),
       st.sampled_from(sorted(FIXTURES)))
def test_commands_above_any_fixture_survive(lines: list[str], name: str) -> None:
    # Whatever a player writes above a real quote is read back (unless it is itself a stop line).
    lines = [line.strip() for line in lines]
    text = "\n".join(lines) + "\n\n" + _fixture_text(name)
    expected_prefix = extract_commands("\n".join(lines))
    assert extract_commands(text)[:len(expected_prefix)] == expected_prefix
