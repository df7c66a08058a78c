"""Run the command line as `python -m pbem`."""

from pbem.cli import main

raise SystemExit(main())
