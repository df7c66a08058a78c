"""Automatic mail (auto-replies, bounces, lists, mail-system senders): why it must never be answered."""

from __future__ import annotations

import re
from email.message import Message

from pbem.mail.inbound.headers import first, parse_from, raw_headers, strip_envelope
from pbem.mail.inbound.mime import content_type_of
from pbem.mail.inbound.sanitise import clean

__all__ = ["automatic_reason", "automatic_reason_from", "null_sender_reason"]

_NULL_SENDERS = frozenset({"", "<>"})
_AUTOREPLY_HEADERS = ("x-autoreply", "x-autorespond", "x-autoreply-from", "x-mail-autoreply")
_COMMENT = re.compile(r"\([^()]*\)")
_SUPPRESS_TOKENS = frozenset({"all", "oof", "autoreply"})
_BULK_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply", "auto-reply"})
_DAEMON_LOCAL_PARTS = frozenset({
    "mailer-daemon", "mailer_daemon", "maildaemon", "mail-daemon", "postmaster",
    "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply",
})


def automatic_reason(msg: Message, envelope_sender: str | None = None) -> str | None:
    """Why this mail is automatic and must never be answered, or None for a person's mail."""
    try:
        headers = raw_headers(msg)
        return automatic_reason_from(msg, headers, envelope_sender, parse_from(first(headers, "from"))[1])
    except Exception:
        return null_sender_reason(envelope_sender)


def null_sender_reason(envelope_sender: str | None) -> str | None:
    """The reason when the envelope sender is the null sender; None when it is unknown or a person's."""
    if envelope_sender is not None and envelope_sender.strip() in _NULL_SENDERS:
        return "null envelope sender (a bounce or an auto-reply)"
    return None


def automatic_reason_from(
    msg: Message, headers: dict[str, list[str]], envelope_sender: str | None, from_addr: str, content_type: str = ""
) -> str | None:
    """:func:`automatic_reason` on headers already read (see headers.raw_headers) and the From address (and
    ``msg``'s content type, if the caller has read it: content_type_of)."""
    reason = null_sender_reason(envelope_sender)
    if reason:
        return reason

    def value(name: str) -> str | None:
        raw = first(headers, name)
        return None if raw is None else clean(raw)

    return_path = value("return-path")
    if return_path is not None and return_path.replace(" ", "") == "<>":
        return "Return-Path: <> (null sender)"
    auto_submitted = value("auto-submitted")
    if auto_submitted is not None:
        # RFC 3834 allows comments around the keyword: "no (sent by a person)" is "no".
        token = _COMMENT.sub(" ", auto_submitted).split(";", 1)[0].strip().lower()
        if token != "no":
            return f"Auto-Submitted: {token or '(empty)'}"
    for name in _AUTOREPLY_HEADERS:
        if name in headers:
            return f"{_HEADER_TITLES.get(name, name)} header (an auto-reply)"
    suppress = value("x-auto-response-suppress")
    if suppress is not None:
        tokens = {token.lower() for token in re.split(r"[\s,;]+", suppress) if token}
        if tokens & _SUPPRESS_TOKENS:
            return f"X-Auto-Response-Suppress: {suppress[:80]}"
    precedence = value("precedence")
    if precedence is not None and precedence.strip().lower() in _BULK_PRECEDENCE:
        return f"Precedence: {precedence.strip().lower()}"
    for name in ("list-id", "list-unsubscribe"):
        if name in headers:
            return f"{_HEADER_TITLES[name]} header (mailing-list mail)"
    if (content_type or content_type_of(msg)) == "multipart/report":
        return "delivery or disposition report (multipart/report)"
    if "x-failed-recipients" in headers:
        return "X-Failed-Recipients header (a bounce)"
    for addr in (from_addr, strip_envelope(envelope_sender)):
        local = addr.rpartition("@")[0] if "@" in addr else addr
        if local.strip('"').lower() in _DAEMON_LOCAL_PARTS:
            return f"sent by a mail-system address ({clean(addr)[:80]})"
    return None


_HEADER_TITLES = {
    "x-autoreply": "X-Autoreply",
    "x-autorespond": "X-Autorespond",
    "x-autoreply-from": "X-Autoreply-From",
    "x-mail-autoreply": "X-Mail-Autoreply",
    "list-id": "List-Id",
    "list-unsubscribe": "List-Unsubscribe",
}
