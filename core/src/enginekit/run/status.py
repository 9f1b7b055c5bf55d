"""The status file a node agent reads: the shard's state, processes and end, as JSON, written atomically."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from enginekit.base.text import printable

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


#: What each kind of file that is not a regular one is called in a refusal.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


class StatusPathRefused(ValueError):
    """The status file's path holds something that is not a regular file; it is never replaced."""


def refusal(path: Path, dir_fd: int | None = None) -> str | None:
    """Why the status file may not be written at ``path`` as it is now, or None when it may.

    Each write renames a new file over ``path``: whatever is there is replaced, so only
    a regular file (or nothing) may be. Run as root, ``/dev/null`` would become a JSON
    file and ``/dev/stdout`` a dangling name. A symbolic link is refused too, whatever it
    points to: replacing it breaks what whoever made it meant, and following it would
    let whoever can change the link (or its directory) pick which file the runner
    replaces. A path whose directory is missing or unreadable is not judged here: the
    write fails and the runner says so, as for a full disk. With ``dir_fd``, ``path``'s
    name is looked up in that directory.
    """
    try:
        found = os.lstat(path.name if dir_fd is not None else path, dir_fd=dir_fd)
    except OSError:
        return None
    if stat.S_ISREG(found.st_mode):
        return None
    shown = printable(str(path), 500)
    if stat.S_ISLNK(found.st_mode):
        return (
            f"{shown} is a symbolic link: each status write would replace the link itself, not the "
            "file it points to, and following it would let whoever can change the link pick the file "
            "replaced; give the path of the file itself"
        )
    kind = next((name for test, name in _KINDS if test(found.st_mode)), "not a regular file")
    return (
        f"{shown} is {kind}, not a regular file: each status write replaces the path with a new file; "
        "give the path of a regular file, or of nothing yet"
    )


class StatusFile:
    """Writes the status document to ``path``: a new file renamed over the old; no reader sees half."""

    def __init__(self, path: Path) -> None:
        self.path = path
        # The directory, held open from the first time it is there: a parent re-pointed
        # later (a link in the path, changed by whoever owns it) moves no write elsewhere.
        self._dir: int | None = None

    def _directory(self) -> int:
        if self._dir is None:
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
            self._dir = os.open(self.path.parent, flags)
        return self._dir

    def write(self, document: dict[str, Any]) -> None:
        """Replace the file with ``document``.

        :raises StatusPathRefused: when ``path`` now holds something else than a regular
            file (it may have been swapped since the runner started): left as it is.
        :raises OSError: when the file cannot be written.
        """
        text = json.dumps(document, indent=2, sort_keys=False) + "\n"
        # A fresh name, created only if nothing is there: a name known in advance (the
        # pid's) lets another user plant a file or link there first, whose opening
        # would then truncate or write through it.
        directory = self._directory()
        temporary = f".{self.path.name}.{os.urandom(8).hex()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temporary, flags, 0o644, dir_fd=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            # Judged again at each write, as late as can be: the path may have been
            # swapped for a device or a link since the runner started.
            why = refusal(self.path, directory)
            if why is not None:
                raise StatusPathRefused(why)
            os.replace(temporary, self.path.name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=directory)
            raise
