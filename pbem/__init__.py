"""pbem: a play-by-email correspondence server for space chess variants."""

__version__ = "0.1.0"
