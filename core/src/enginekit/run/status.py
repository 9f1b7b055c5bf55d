"""The status file a node agent reads: the shard's state, processes and end, as JSON, written atomically."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

#: The status file's format; a minor version only adds fields.
STATUS_FORMAT = "1.0"
#: The shard is being started: device check, leader wait, processes starting, not ready yet.
STARTING = "starting"
#: The health URL answers 200.
READY = "ready"
#: It answered 200 before and does not now.
UNREADY = "unready"
#: Started, on a rank with no health URL (a worker): nothing more to know.
RUNNING = "running"
#: Its processes are being stopped.
STOPPING = "stopping"
#: Over: ``exit_code`` is what ``enginekit run`` exits with.
EXITED = "exited"
STATES = (STARTING, READY, UNREADY, RUNNING, STOPPING, EXITED)
#: The most state changes kept in the file: a flapping endpoint must not grow it for ever.
MAX_TRANSITIONS = 50


class StatusFile:
    """Writes the status document to ``path``: a new file renamed over the old; no reader sees half."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, document: dict[str, Any]) -> None:
        """Replace the file with ``document``.

        :raises OSError: when the file cannot be written.
        """
        text = json.dumps(document, indent=2, sort_keys=False) + "\n"
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
