"""Inbound mail: raw bytes to what the worker needs (start at pbem.mail.inbound.parse)."""
