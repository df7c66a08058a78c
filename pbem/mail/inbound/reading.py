"""A received mail's reading (``InboundMail``) kept as text beside it: made by the listener, used by the worker."""

from __future__ import annotations

import dataclasses
from typing import Any

import pbem
from pbem.mail.inbound.parse import InboundMail
from pbem.store import json_text

__all__ = ["READING_FORMAT", "reading_from_text", "reading_text"]

#: Stamped on every kept reading; one made by another format or release is not used (the mail is read again), so
#: a mail stored before an upgrade is read by the parser that handles it.
READING_FORMAT = f"1/{pbem.__version__}"

_FIELDS = tuple(field.name for field in dataclasses.fields(InboundMail))
_TUPLES = frozenset({"references", "commands", "problems"})  # JSON gives lists: the parser gives tuples of strings
_OPTIONAL = frozenset({"automatic"})  # a string or None; every other field a string


def reading_text(mail: InboundMail) -> str:
    """``mail`` as JSON text, stamped with :data:`READING_FORMAT`; "" when it cannot be written so (a lone
    surrogate, which JSON's UTF-8 cannot hold: the worker then reads the mail itself)."""
    try:
        return json_text.dumps({"format": READING_FORMAT, **{name: getattr(mail, name) for name in _FIELDS}})
    except TypeError:  # orjson's JSONEncodeError
        return ""


def reading_from_text(text: str) -> InboundMail | None:
    """The reading kept in ``text``; None when there is none, or it is of another format, or it cannot be read
    (the caller then reads the mail itself)."""
    if not text:
        return None
    try:
        kept: Any = json_text.loads(text)
        if not isinstance(kept, dict) or kept.get("format") != READING_FORMAT:
            return None
        values: dict[str, Any] = {name: tuple(kept[name]) if name in _TUPLES else kept[name] for name in _FIELDS}
        mail = InboundMail(**values)
    except (ValueError, TypeError, KeyError):
        return None
    return mail if _well_typed(mail) else None


def _well_typed(mail: InboundMail) -> bool:
    """Every field of the type the parser gives it: a kept reading is data from the database, not trusted code."""
    for name in _FIELDS:
        value = getattr(mail, name)
        if name in _TUPLES:
            if not all(isinstance(item, str) for item in value):
                return False
        elif not (isinstance(value, str) or (value is None and name in _OPTIONAL)):
            return False
    return True
