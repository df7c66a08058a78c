"""A value that refuses to be formatted, so a secret cannot leak by accident."""

from __future__ import annotations

from dataclasses import dataclass


class SecretFormatError(RuntimeError):
    """Raised when code tries to turn a secret into text without opening it."""


@dataclass(frozen=True, slots=True)
class Secret:
    """Holds one secret string; only :meth:`reveal` gives it back.

    ``str()`` and ``format()`` raise, ``repr()`` is redacted: a secret that
    reaches a template or a log line by mistake fails loudly instead of
    being mailed to the wrong person.
    """

    _value: str

    def reveal(self) -> str:
        return self._value

    def __str__(self) -> str:
        raise SecretFormatError("a secret must be opened with reveal()")

    def __format__(self, spec: str) -> str:
        raise SecretFormatError("a secret must be opened with reveal()")

    def __repr__(self) -> str:
        return "Secret(<redacted>)"
