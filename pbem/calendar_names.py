"""The English abbreviations of weekdays and months, as the C locale writes them, whatever the server's locale."""

from __future__ import annotations

__all__ = ["DAY_NAMES", "MONTH_NAMES"]

#: Monday first, as ``datetime.weekday`` counts.
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
