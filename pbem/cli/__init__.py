"""The `pbem` command line: main.py parses and dispatches; the organiser's event commands are in events.py."""
