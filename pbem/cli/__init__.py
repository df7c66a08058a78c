"""The `pbem` command line: main.py parses and dispatches; event commands in events.py, admin commands in admin.py."""
