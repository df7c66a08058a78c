"""The public face: read-only web pages, a JSON API and Atom feeds, served beside the SMTP listener."""
