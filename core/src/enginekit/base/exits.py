"""The exit statuses of the ``enginekit`` command, one meaning each, as the help text lists them."""

from __future__ import annotations

EXIT_OK = 0
#: Validation failed (every problem listed); for ``engines``, an engine asked about failed;
#: for ``probe``, the engine's build would run on the CPU.
EXIT_INVALID = 1
#: Unusable input, or a program enginekit was asked to run that could not run.
EXIT_UNUSABLE = 2
#: A bug in enginekit itself (sysexits' EX_SOFTWARE): one line, and the traceback only
#: when ``ENGINEKIT_TRACEBACK=1`` asks for it.
EXIT_BUG = 70
#: Interrupted from the terminal (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130
#: The reader of stdout went away (``render --json | head``), as a shell reports SIGPIPE.
EXIT_CLOSED_PIPE = 141
