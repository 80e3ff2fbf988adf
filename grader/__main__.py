"""`python -m grader`: the catalogue's command line."""

from grader.commands import main

raise SystemExit(main())
