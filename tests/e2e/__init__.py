"""End-to-end tests: real SMTP, real processes, Postfix, crashes and several instances."""
