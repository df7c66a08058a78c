"""Hostile and odd mail through the real worker: every shape gets one clear, clean reply, or none if automatic."""

from __future__ import annotations

import email
import smtplib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlmodel import col, select

from pbem.commands.registry import looks_like_command
from pbem.mail.delivery import Deliverer
from pbem.mail.inbound.parse import parse_mail
from pbem.mail.later_pictures import finished
from pbem.mail.smtpd import store_inbound
from pbem.store.models import InboxItem, OutboxItem
from tests.helpers.harness import Harness, body_of
from tests.helpers.pipeline import Pipeline

SAMPLES = Path(__file__).resolve().parents[1] / "mail" / "samples"
SAMPLE_NAMES = sorted(path.name for path in SAMPLES.glob("*.eml"))
AUTOMATIC = {
    "auto_list_id.eml", "auto_precedence_bulk.eml", "auto_precedence_junk.eml", "auto_precedence_list.eml",
    "auto_submitted_vacation.eml", "auto_x_autoreply.eml", "bounce_dsn.eml",
}
ENVELOPE = "envelope.sender@players.example"
# The header lines compose() writes; a reply carrying any other came from the input.
REPLY_HEADERS = {"content-type", "mime-version", "content-transfer-encoding", "from", "to", "reply-to", "subject",
                 "date", "message-id", "in-reply-to", "references", "auto-submitted", "x-auto-response-suppress",
                 "precedence"}
VICTIMS = ("victim", "v2@example.com")


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


# Error replies are rate-limited per recipient; these tests send many mails from few senders.
SETTINGS = {"PBEM_SERVER_ERROR_REPLIES_PER_HOUR": "0"}


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path, **SETTINGS)
    yield p
    p.close()


@dataclass
class Outcome:
    """What the worker made of one stored mail: the inbox row and the mails it queued."""

    stored: bool
    status: str
    error: str
    mails: list[tuple[str, bytes]]

    def to(self, recipient: str) -> list[bytes]:
        return [raw for to, raw in self.mails if to == recipient]


def deliver(pipe: Pipeline, raw: bytes, envelope: str, to: str) -> Outcome:
    """Store ``raw`` as the listener would, run the worker, and collect what it queued."""
    with pipe.db.read() as session:
        last_out = session.exec(select(OutboxItem.id).order_by(col(OutboxItem.id).desc())).first() or 0
    stored = store_inbound(pipe.db, raw, envelope, [to], pipe.addresses.domain)
    pipe.worker.drain()
    with pipe.db.read() as session:
        item = session.exec(select(InboxItem).order_by(col(InboxItem.id).desc())).first()
        rows = session.exec(select(OutboxItem).where(col(OutboxItem.id) > last_out)
                            .order_by(col(OutboxItem.id))).all()
        assert item is not None
        queued = [(row.recipient, finished(row.raw, row.pictures)) for row in rows]
        return Outcome(stored, item.status, item.error, queued)


def register(pipe: Pipeline, address: str) -> str:
    """An account for ``address`` (any address the parser accepts); returns its personal address."""
    handle = "p" + uuid.uuid4().hex[:10]
    raw = (f"From: {address}\r\nMessage-ID: <{uuid.uuid4().hex}@players.example>\r\nSubject: hi\r\n\r\n"
           f"register {handle}\r\n").encode()
    outcome = deliver(pipe, raw, address, pipe.addresses.public)
    (reply,) = outcome.to(address)
    return str(email.message_from_bytes(reply, policy=default_policy)["Reply-To"])


def _idna(address: str) -> str:
    local, _, domain = address.rpartition("@")
    try:
        return f"{local}@{domain.encode('idna').decode('ascii')}"
    except UnicodeError:
        return address


def check_reply(raw: bytes, recipient: str) -> EmailMessage:
    """The reply's header block is exactly what compose() writes: one recipient, nothing from the input."""
    head, separator, _ = raw.partition(b"\r\n\r\n")
    assert separator, "no header/body separator"
    lines = head.split(b"\r\n")
    assert all(b"\r" not in line and b"\n" not in line for line in lines), "bare CR or LF in the header block"
    assert all(len(line) <= 998 for line in lines)
    names = [line.split(b":", 1)[0].decode("ascii").lower() for line in lines if line[:1] not in (b" ", b"\t")]
    assert set(names) <= REPLY_HEADERS, names
    assert len(names) == len(set(names)), names
    message = email.message_from_bytes(raw, policy=default_policy)
    assert isinstance(message, EmailMessage)
    assert not message.defects, message.defects
    # RFC 6532: a non-ASCII mailbox is written as UTF-8, which the parser hands back surrogate-escaped.
    to = [address.addr_spec.encode("utf-8", "surrogateescape").decode("utf-8") for address in message["To"].addresses]
    assert to == [_idna(recipient)]
    assert message["Auto-Submitted"] == "auto-replied"
    for name, value in message.items():
        if name.lower() != "subject":  # a reply's subject may quote the sender's words, encoded
            assert not any(victim in str(value) for victim in VICTIMS), (name, value)
    return message


def check_clear(message: EmailMessage, commands: tuple[str, ...]) -> str:
    """The reply lists a result per command line, or says that nothing was found."""
    body = body_of(message)
    if commands:
        assert "Results:" in body or "Unprocessed" in body, body
        for command in commands:
            assert command in body, (command, body)
    else:
        assert "No commands were found in your mail" in body, body
    return body


# --------------------------------------------------------------------------------------------
# Every sample, to the public address and to the personal address of its registered sender
# --------------------------------------------------------------------------------------------


def test_samples_are_all_classified() -> None:
    assert set(SAMPLE_NAMES) >= AUTOMATIC
    assert len(SAMPLE_NAMES) >= 30


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_sample_to_the_public_address(pipe: Pipeline, name: str) -> None:
    raw = sample(name)
    parsed = parse_mail(raw, ENVELOPE, looks_like_command)  # as the worker reads it
    outcome = deliver(pipe, raw, ENVELOPE, pipe.addresses.public)
    assert outcome.stored and outcome.status == "done", outcome.error
    if name in AUTOMATIC:
        assert outcome.mails == []
        assert outcome.error.startswith("not answered: automatic mail")
        return
    assert [to for to, _ in outcome.mails] == [parsed.sender]
    message = check_reply(outcome.mails[0][1], parsed.sender)
    check_clear(message, parsed.commands)


@pytest.mark.parametrize("name", [name for name in SAMPLE_NAMES if name not in AUTOMATIC])
def test_sample_from_a_registered_sender(pipe: Pipeline, name: str) -> None:
    raw = sample(name)
    sender = parse_mail(raw, ENVELOPE).sender
    personal = register(pipe, sender)
    outcome = deliver(pipe, raw, ENVELOPE, personal)
    assert outcome.status == "done", outcome.error
    assert [to for to, _ in outcome.mails] == [sender]
    message = check_reply(outcome.mails[0][1], sender)
    assert str(message["Reply-To"]) == personal
    check_clear(message, parse_mail(raw, ENVELOPE, looks_like_command).commands)


@pytest.mark.parametrize("name", sorted(AUTOMATIC))
def test_automatic_sample_to_a_personal_address_is_not_answered(pipe: Pipeline, name: str) -> None:
    personal = register(pipe, "someone@players.example")
    outcome = deliver(pipe, sample(name), "someone@players.example", personal)
    assert (outcome.status, outcome.mails) == ("done", [])


@pytest.mark.parametrize("envelope", ["", "<>"])
def test_null_envelope_sender_is_never_answered(pipe: Pipeline, envelope: str) -> None:
    outcome = deliver(pipe, sample("gmail_reply.eml"), envelope, pipe.addresses.public)
    assert (outcome.status, outcome.mails) == ("done", [])


def test_out_of_office_subject_alone_is_answered(pipe: Pipeline) -> None:
    outcome = deliver(pipe, sample("out_of_office_subject_by_person.eml"), ENVELOPE, pipe.addresses.public)
    assert [to for to, _ in outcome.mails] == ["xena@example.org"]


def test_injected_recipients_never_get_mail(pipe: Pipeline) -> None:
    # From: "Tom<CRLF>Bcc: victim@..." is a From without address plus a Bcc line; Cc and
    # Reply-To name more victims. Only the account's own address may be answered.
    personal = register(pipe, "tom@example.org")
    outcome = deliver(pipe, sample("injection_name_raw_crlf.eml"), "tom@example.org", personal)
    assert [to for to, _ in outcome.mails] == ["tom@example.org"]
    message = check_reply(outcome.mails[0][1], "tom@example.org")
    assert "Bcc" not in message and "Cc" not in message
    assert message["Subject"] == "Re: hi"  # a bare CR ends a header line: the Bcc was a header of its own


def test_encoded_crlf_in_subject_stays_inside_the_subject(pipe: Pipeline) -> None:
    outcome = deliver(pipe, sample("injection_subject_encoded_crlf.eml"), ENVELOPE, pipe.addresses.public)
    message = check_reply(outcome.mails[0][1], "rita@example.org")
    assert message["Subject"] == "Re: hi Bcc: victim@example.com"
    assert b"\r\nBcc" not in outcome.mails[0][1]


def test_reply_goes_to_the_registered_address_whatever_the_from(pipe: Pipeline) -> None:
    # Bob's personal address used in a mail From alice: nothing goes to alice or to an
    # address from the mail; bob gets the answer (or the request to confirm the mail).
    personal = register(pipe, "bob@players.example")
    outcome = deliver(pipe, sample("gmail_reply.eml"), "alice.player@gmail.com", personal)
    assert outcome.status in ("done", "held"), outcome.error
    assert [to for to, _ in outcome.mails] == ["bob@players.example"]
    check_reply(outcome.mails[0][1], "bob@players.example")


def test_odd_threading_headers_keep_only_well_formed_ids(pipe: Pipeline) -> None:
    outcome = deliver(pipe, sample("message_id_odd.eml"), ENVELOPE, pipe.addresses.public)
    message = check_reply(outcome.mails[0][1], "mallory@example.org")
    assert "In-Reply-To" not in message  # neither the In-Reply-To junk nor the non-ASCII Message-ID
    assert str(message["References"]).split() == ["<ok.1@example.org>", "<ok.2@example.org>"]


def test_long_message_ids_thread_unencoded(pipe: Pipeline) -> None:
    # Exchange ids are longer than a folded line; encoded words would break the thread.
    long_id = "<DM6PR11MB4107B8C7E1F5D5B4E8A4F0C8DC0A2A3B4C5@DM6PR11MB4107.namprd11.prod.outlook.com>"
    raw = f"From: amy@example.org\r\nMessage-ID: {long_id}\r\nSubject: hi\r\n\r\nvariants\r\n".encode()
    outcome = deliver(pipe, raw, ENVELOPE, pipe.addresses.public)
    message = check_reply(outcome.mails[0][1], "amy@example.org")
    assert str(message["In-Reply-To"]).strip() == long_id
    assert str(message["References"]).split() == [long_id]


def test_non_ascii_subject_and_address_are_answered(pipe: Pipeline) -> None:
    # Both made the worker fail ('failed' row, no answer) before compose() folded headers itself.
    outcome = deliver(pipe, sample("address_non_ascii.eml"), ENVELOPE, pipe.addresses.public)
    assert outcome.status == "done", outcome.error
    message = check_reply(outcome.mails[0][1], "josé@exämple.es")
    assert message["Subject"] == "Re: ñ"
    assert outcome.mails[0][0] == "josé@exämple.es"


def test_declared_base64_that_is_not_is_read_as_text(pipe: Pipeline) -> None:
    outcome = deliver(pipe, sample("broken_base64_not_base64.eml"), ENVELOPE, pipe.addresses.public)
    body = body_of(check_reply(outcome.mails[0][1], "pat@example.org"))
    assert "> games" in body
    assert "declared base64 but is not" in body


# --------------------------------------------------------------------------------------------
# Over real SMTP: the listener, the worker and delivery to a sink
# --------------------------------------------------------------------------------------------


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(tmp_path, **SETTINGS)
    yield h
    h.close()


def test_samples_over_smtp(harness: Harness) -> None:
    answered = ["html_only_outlook_web.eml", "name_raw_8bit_utf8.eml", "injection_subject_encoded_crlf.eml",
                "broken_missing_boundary.eml", "charset_unknown.eml"]
    for name in [*answered, "auto_precedence_bulk.eml", "auto_submitted_vacation.eml"]:
        harness.send_raw(ENVELOPE, [harness.public], sample(name).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    for name in answered:
        sender = parse_mail(sample(name)).sender
        (reply,) = harness.wait_for(sender, 1)
        assert "> games" in body_of(reply)
        assert "Bcc" not in reply
    harness.settle()
    assert harness.total_received() == len(answered)  # nothing to the automatic senders


def test_size_limit_over_smtp(harness: Harness) -> None:
    limit = harness.config.smtp.max_message_bytes

    def huge(size: int, sender: str) -> bytes:
        head = f"From: {sender}\r\nSubject: huge\r\nMessage-ID: <{uuid.uuid4().hex}@x>\r\n\r\nvariants\r\n\r\n"
        filler = b"> " + b"q" * 70 + b"\r\n"
        data = head.encode() + filler * ((size - len(head)) // len(filler))
        return data + b"x" * (size - len(data))

    harness.send_raw("small@players.example", [harness.public], huge(limit - 4096, "small@players.example"))
    (reply,) = harness.wait_for("small@players.example", 1)
    assert "> variants" in body_of(reply)
    with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as refused:
        harness.send_raw("big@players.example", [harness.public], huge(limit + 4096, "big@players.example"))
    assert "552" in str(refused.value)
    harness.settle()
    assert harness.mails_to("big@players.example") == []


# --------------------------------------------------------------------------------------------
# Properties: whatever arrives, the worker answers once (or never, if automatic) and never fails
# --------------------------------------------------------------------------------------------

SAMPLE_BYTES = [sample(name) for name in SAMPLE_NAMES]
CHUNKS = [b"\r\n", b"\n\n", b"--", b"=?", b"?=", b":", b";", b'"', b"<", b">", b"\x00", b"\xff", b"\xc3",
          b"=?utf-8?q?=0D=0ABcc:_victim@example.com?=", b"\r\nBcc: victim@example.com\r\n",
          b"boundary=", b"charset=x-bogus", b"Content-Transfer-Encoding: base64\r\n",
          b"Content-Type: multipart/mixed; boundary=z\r\n", b"\r\n--z\r\n", b"Precedence: bulk\r\n",
          b"Subject: =?utf-8?b?4oCo?=\r\n", "Ünïcödé".encode(), b"Message-ID: <\xc3\xa9@x>\r\n"]


@st.composite
def mutated_samples(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SAMPLE_BYTES)))
    for _ in range(draw(st.integers(0, 6))):
        position = draw(st.integers(0, len(data)))
        operation = draw(st.sampled_from(["insert", "delete", "truncate", "splice"]))
        if operation == "insert":
            data[position:position] = draw(st.sampled_from(CHUNKS) | st.binary(max_size=8))
        elif operation == "delete":
            del data[position:position + draw(st.integers(1, 64))]
        elif operation == "truncate":
            del data[position:]
        else:
            other = draw(st.sampled_from(SAMPLE_BYTES))
            start = draw(st.integers(0, len(other)))
            data[position:position] = other[start:start + draw(st.integers(1, 300))]
    return bytes(data)


@pytest.fixture(scope="module")
def shared_pipe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path_factory.mktemp("hostile"), **SETTINGS)
    yield p
    p.close()


def _answers_once(pipe: Pipeline, raw: bytes, envelope: str) -> None:
    # A fresh Message-ID first, so that no example is absorbed as a duplicate of another.
    raw = f"Message-ID: <{uuid.uuid4().hex}@fuzz.example>\r\n".encode() + raw
    outcome = deliver(pipe, raw, envelope, pipe.addresses.public)
    assert outcome.status == "done", outcome.error
    parsed = parse_mail(raw, envelope, looks_like_command)  # as the worker reads it
    if parsed.automatic or not parsed.sender:
        assert outcome.mails == []
        return
    assert [to for to, _ in outcome.mails] == [parsed.sender]
    body = body_of(check_reply(outcome.mails[0][1], parsed.sender))
    if parsed.commands:
        assert "Results:" in body or "Unprocessed" in body, body
    else:
        assert "No commands were found in your mail" in body, body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(raw=mutated_samples(), envelope=st.sampled_from([ENVELOPE, "", "<>", "odd sender"]))
# Found by this test: a From that parses as a group naming "_victim@example.com?=", and a
# domain that is one raw byte; neither is an address to answer.
@example(raw=b"From:?utf-8?q?hi=0D=0ABcc:_victim@example.com?=\nMIME-Version: 1.0\n"
             b"Content-Type: text/plain; charset=utf-8\n\ngames\n", envelope=ENVELOPE)
@example(raw=b"From: News <news@\xb4", envelope=ENVELOPE)
# And an encoded word cut by a line break, leaving "=?utf-8?q?Sam=0D=0ABcc:_victim@e", a group again.
@example(raw=b"From: =?utf-8?q?Sam=0D=0ABcc:_victim@e\r\nxample.com=0D=0A?= <sam@example.org>\n"
             b"To: pbem+p3.5f0e1d2c3b4a59687766@pbem.localhost\nSubject: hi\n"
             b"Message-ID: <injection-name-1@example.org>\nMIME-Version: 1.0\n"
             b"Content-Type: text/plain; charset=utf-8\n\ngames\n", envelope=ENVELOPE)
# And a quote cut from a display name that looks like an address: the strict parser keeps
# "victim@example.com" and skips the rest as unreadable; a From it had to skip is answered at the envelope.
@example(raw=b'From: victim@example.com" <tom@example.org>\r\nTo: pbem+p3.5f0e1d2c3b4a59687766@pbem.localhost\r\n'
             b"Subject: hi\rBcc: victim2@example.com\r\nCc: victim3@example.com\r\nReply-To: victim4@example.com\r\n"
             b"Message-ID: <injection-raw-1@example.org>\r\n\r\ngames\r\n", envelope=ENVELOPE)
# And a References token holding an encoded word with a colon before its "@": no msg-id, not to be echoed.
@example(raw=b"From: 6@pbem.localhost\nSubject: odd threading headers\nMessage-ID: <x@example.org>\n"
             b"In-Reply-To: not a message id at all =?utf-8?q?=0D=0ABcc:_victim@example.com?=\n"
             b"References: <=?utf-8?q?Sam=0D=0ABcc:_victimsam@example.org>\n"
             b"To: pbem+p3.5f0e1d2c3b4a59687766@pbem.localhost\nMIME-Version: 1.0\n"
             b"Content-Type: text/plain; charset=utf-8\n\ngames\n", envelope="envelope.sender@players.example")
def test_mutated_samples_through_the_worker(shared_pipe: Pipeline, raw: bytes, envelope: str) -> None:
    _answers_once(shared_pipe, raw, envelope)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(
    headers=st.lists(st.tuples(st.sampled_from(["From", "Subject", "Message-ID", "In-Reply-To", "References",
                                                "Content-Type", "Reply-To", "Cc", "Bcc", "Auto-Submitted"]),
                               st.text(max_size=60)), max_size=6),
    body=st.text(max_size=200),
)
def test_arbitrary_header_values_through_the_worker(shared_pipe: Pipeline, headers: list[tuple[str, str]],
                                                    body: str) -> None:
    raw = "".join(f"{name}: {value}\r\n" for name, value in headers) + "\r\n" + body
    _answers_once(shared_pipe, raw.encode("utf-8", "surrogateescape"), ENVELOPE)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=2000))
def test_arbitrary_bytes_through_the_worker(shared_pipe: Pipeline, raw: bytes) -> None:
    _answers_once(shared_pipe, raw, ENVELOPE)


def test_internationalised_recipient_without_smtputf8_relay_fails_alone(tmp_path: Path) -> None:
    # The sink offers no SMTPUTF8: the reply to josé@exämple.es cannot be relayed. Before,
    # smtplib's UnicodeEncodeError escaped deliver_due() and the row blocked every round.
    sink = Harness(tmp_path, serve=False)
    pipe = Pipeline(tmp_path, **SETTINGS)
    try:
        deliver(pipe, sample("address_non_ascii.eml"), ENVELOPE, pipe.addresses.public)
        deliver(pipe, sample("name_raw_8bit_utf8.eml"), ENVELOPE, pipe.addresses.public)
        deliverer = Deliverer(pipe.db, "127.0.0.1", sink.sink_port, str(tmp_path / "unused"))
        try:
            assert deliverer.deliver_due() == 1
        finally:
            deliverer.close()
        assert [message["Subject"] for message in sink.mails_to("juergen@example.de")] == [
            "Re: Zug für Spiel #3 – Läufer"]
        with pipe.db.read() as session:
            rows = {row.recipient: (row.status, row.last_error) for row in session.exec(select(OutboxItem))}
        status, error = rows["josé@exämple.es"]
        assert status == "failed" and "SMTPUTF8" in error
    finally:
        pipe.close()
        sink.close()
