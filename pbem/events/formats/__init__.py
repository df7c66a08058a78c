"""Event formats, one module each behind the Format protocol (formats.base); formats.registry finds them."""
