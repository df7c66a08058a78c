"""Email commands, one per module; registry.py lists them."""
