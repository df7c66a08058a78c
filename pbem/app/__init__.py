"""The application core: games, clocks, conditional moves and secrecy, under the email commands."""
