"""`python -m grader`: the catalogue's command line."""

import signal

from grader.commands import main

# Piped into `head`, the command ends quietly when the reader stops, as Unix tools do.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
raise SystemExit(main())
