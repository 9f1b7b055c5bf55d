"""``forbid_side_effects``: while hooks run, any read of the host (env, files, processes, network) fails."""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import pathlib
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import Any

#: Functions a hook may not call, as (module, attribute, how a message names it). Each
#: is a way a launch plan would come to depend on the machine that renders it, rather
#: than on the shard spec and the engine's config alone.
_FUNCTIONS: tuple[tuple[object, str, str], ...] = (
    *(
        (os, name, f"os.{name}")
        for name in (
            "getenv",
            "putenv",
            "unsetenv",
            "system",
            "popen",
            "fork",
            "execv",
            "execve",
            "execvp",
            "execvpe",
            "spawnv",
            "spawnve",
            "posix_spawn",
            "posix_spawnp",
            "open",
            "stat",
            "lstat",
            "access",
            "listdir",
            "scandir",
            "walk",
            "readlink",
            "getcwd",
        )
        if hasattr(os, name)
    ),
    *(
        (os.path, name, f"os.path.{name}")
        for name in ("exists", "lexists", "isfile", "isdir", "islink", "getsize", "getmtime", "realpath")
    ),
    (builtins, "open", "open"),
    (io, "open", "io.open"),
    *(
        (subprocess, name, f"subprocess.{name}")
        for name in ("run", "call", "check_call", "check_output", "getoutput", "getstatusoutput")
    ),
    (shutil, "which", "shutil.which"),
    *(
        (socket, name, f"socket.{name}")
        for name in ("create_connection", "getaddrinfo", "gethostbyname", "gethostname", "getfqdn")
    ),
)

#: Methods, patched on their class: so an alias (``from os import environ``) is caught
#: too, and a class stays a class for ``isinstance`` in other threads. As (class,
#: method, how a message names it, whether the message shows the instance). A label
#: with ``{}`` gets the arguments there; any other is followed by them in brackets.
_ENVIRON = type(os.environ)
_METHODS: tuple[tuple[type, str, str, bool], ...] = (
    (_ENVIRON, "__getitem__", "os.environ[{}]", False),
    (_ENVIRON, "__iter__", "iter(os.environ){}", False),
    (_ENVIRON, "__len__", "len(os.environ){}", False),
    (_ENVIRON, "__setitem__", "os.environ[{}] =", False),
    (_ENVIRON, "__delitem__", "del os.environ[{}]", False),
    (subprocess.Popen, "__init__", "subprocess.Popen", False),
    (socket.socket, "__init__", "socket.socket", False),
    *(
        (pathlib.Path, name, f"pathlib.Path.{name}", True)
        for name in (
            "exists",
            "is_file",
            "is_dir",
            "is_symlink",
            "stat",
            "lstat",
            "open",
            "read_text",
            "read_bytes",
            "write_text",
            "write_bytes",
            "iterdir",
            "glob",
            "rglob",
            "resolve",
            "samefile",
            "expanduser",
        )
    ),
)

#: Where a class only inherited a patched method: restored by deleting the patch.
_INHERITED = object()

#: What a hook should do instead, said once in every failure.
ADVICE = (
    "hooks must be pure: functions of their arguments and the engine's frozen config "
    "(read the machine in the plugin's config or the agent, never while planning)"
)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _guard(label: str, original: Any, touched: list[str], owner: int, *, skip: int) -> Callable[..., Any]:
    """``original``, except in the thread under test, where the call is noted and refused.

    ``skip`` leading arguments (an instance not worth showing) are left out of the message.
    """

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() != owner:
            # Another thread (pytest-xdist's channel, a logging thread) is not the hook.
            return original(*args, **kwargs)
        text = ", ".join(_shown(arg) for arg in args[skip:])
        what = label.format(text) if "{}" in label else f"{label}({text})"
        touched.append(what)
        raise AssertionError(f"a hook touched {what}: {ADVICE}")

    return guarded


@contextlib.contextmanager
def forbid_side_effects() -> Iterator[list[str]]:
    """Within the block, reading the environment, the filesystem, processes or the network fails.

    Yields the list of what was touched, filled as it happens: a hook that catches the
    :class:`AssertionError` raised at the touch (or whose error the core wraps) is still
    caught by checking the list after the block. Only the calling thread is refused.
    """
    touched: list[str] = []
    owner = threading.get_ident()
    saved: list[tuple[object, str, object]] = []
    try:
        for module, name, label in _FUNCTIONS:
            original = getattr(module, name)
            saved.append((module, name, original))
            setattr(module, name, _guard(label, original, touched, owner, skip=0))
        for cls, name, label, show_self in _METHODS:
            saved.append((cls, name, cls.__dict__.get(name, _INHERITED)))
            guard = _guard(label, getattr(cls, name), touched, owner, skip=0 if show_self else 1)
            setattr(cls, name, guard)
        yield touched
    finally:
        for target, name, original in reversed(saved):
            if original is _INHERITED:
                delattr(target, name)
            else:
                setattr(target, name, original)
