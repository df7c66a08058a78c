"""Run the command line as `python -m pbem`."""

from pbem.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
