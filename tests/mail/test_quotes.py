"""extract_commands: the reply-body corpus, the stop rules one by one, and its properties."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.inbound.parse import parse_mail
from pbem.mail.inbound.quotes import extract_commands
from tests.mail.helpers import LINE_BREAKS

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
COMMAND = "Pe2-e4"

# The reply-body corpus: per fixture, the lines expected above the quote (read from the
# fixture by hand) and text from the quote, signature or header block that must never appear.

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


# The stop rules one by one


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


# Properties

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


@settings(max_examples=200, deadline=None)
@given(st.lists(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 #=@.-]{0,20}", fullmatch=True), min_size=1, max_size=5),
       st.sampled_from(sorted(FIXTURES)))
def test_commands_above_any_fixture_survive(lines: list[str], name: str) -> None:
    # Whatever a player writes above a real quote is read back (unless it is itself a stop line).
    lines = [line.strip() for line in lines]
    text = "\n".join(lines) + "\n\n" + _fixture_text(name)
    expected_prefix = extract_commands("\n".join(lines))
    assert extract_commands(text)[:len(expected_prefix)] == expected_prefix


# Bottom and inline posting: read below the quotes only when nothing above them is a command


def _is_command(line: str) -> bool:
    return line.split()[0].lower() in {"board", "draw", "resign", "pe2-e4"}


def test_a_reply_below_the_quote_is_read() -> None:
    text = "On Mon, 6 May 2024 at 09:00, pbem <pbem@x.org> wrote:\n> Bob played.\n> resign\n\nPe2-e4\n"
    assert extract_commands(text, _is_command) == ["Pe2-e4"]
    assert extract_commands(text) == []  # without a way to tell commands, only the top is read


def test_inline_replies_between_quotes_are_read_in_order() -> None:
    text = ("Hello,\n> Your move.\nPe2-e4\n> Reply draw to accept.\n>resign\n\ndraw\n"
            "On Tue, 2011 at 7:07 PM, Someone <a@b.com>\nwrote:\n> > board\n")
    assert extract_commands(text, _is_command) == ["Hello,", "Pe2-e4", "draw"]


def test_a_command_above_the_quote_wins_over_lines_below() -> None:
    assert extract_commands("draw\n> quoted\nresign\n", _is_command) == ["draw"]


def test_prose_below_the_quote_is_not_read() -> None:
    assert extract_commands("Hi,\n> resign\nSee you soon\nBob\n", _is_command) == ["Hi,"]


@pytest.mark.parametrize("ending", ["-- \nBob\nresign", "Sent from my iPhone\nresign", "end\nresign",
                                    "-----Original Message-----\nresign"])
def test_below_the_quote_reading_stops_where_the_top_would(ending: str) -> None:
    assert extract_commands(f"> quoted\nboard\n{ending}\n", _is_command) == ["board"]


def test_nothing_is_read_below_a_signature_or_unquoted_header_block() -> None:
    assert extract_commands("Thanks\n-- \nBob\n> quoted\nresign\n", _is_command) == ["Thanks"]
    block = "From: pbem <pbem@x.org>\nSent: Monday\nTo: Bob\n\nresign\n"
    assert extract_commands(f"Thanks\n{block}", _is_command) == ["Thanks"]


def test_quoted_lines_never_act() -> None:
    text = "> resign\n>> resign\n  > resign\nOn 1 May, Bob wrote:\n> resign\n"
    assert extract_commands(text, _is_command) == []
