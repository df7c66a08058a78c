"""Mail in and out: reply-address tokens, inbound parsing, the SMTP listener and outbound delivery."""
