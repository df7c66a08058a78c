"""Mail in and out: reply-address tokens, inbound parsing, the SMTP listener, composing and delivering replies."""
