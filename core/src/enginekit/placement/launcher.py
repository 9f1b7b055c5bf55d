"""A launcher for Python engines that hands secrets and generated files over inside the process.

Some engines take their API key only as a flag, and some take options only from a file.
A flag is visible to every local user in ``/proc/PID/cmdline``; a file needs a
supervisor to write it first. The launcher avoids both: it is a short program given to
the engine's own interpreter with ``-c`` that reads each secret or file body from the
environment (visible only to root and the same user), removes it from the
environment so the engine's children do not inherit it, writes files into a private
``0700`` directory (removed at exit), appends the corresponding flags to ``sys.argv``
*inside* the process, and runs the engine's module as ``__main__`` — exactly what
``python -m module`` would. The engine's interpreter needs nothing of enginekit's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

# The program is one line of ``;``-separated statements: an argv element never holds a
# newline, so ``ps``, logs and the plan show each process on one line, and the registry
# can refuse any command that carries a line break.
_TAKE = (
    "import os, runpy, sys",
    "take = lambda v: os.environ.pop(v) if v in os.environ else "
    "sys.exit('enginekit launcher: ' + v + ' is not set')",
    "a = sys.argv[1:]",
)
_PUT = (
    "import atexit, shutil, tempfile",
    "d = tempfile.mkdtemp(prefix='enginekit-')",
    "atexit.register(shutil.rmtree, d, True)",
    # Mode 0600 and O_EXCL: the file is created here, by this process, for its owner only.
    "write = lambda p, t: (lambda h: (h.write(t), h.close(), p)[2])(os.fdopen(os.open(p, "
    "os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), 'w', encoding='utf-8'))",
    "put = lambda f, v, n: [f, write(os.path.join(d, n), take(v))]",
)
_RUN = (
    "sys.argv = [{module!r}] + a",
    "runpy.run_module({module!r}, run_name='__main__', alter_sys=True)",
)


@attrs.frozen
class FileArg:
    """A flag whose value is the path of a file the launcher writes from an env variable."""

    flag: str
    env: str
    filename: str


def launcher_args(
    module: str,
    args: Sequence[str],
    *,
    secret_args: Mapping[str, str] | None = None,
    file_args: Sequence[FileArg] = (),
    isolated: bool = True,
) -> tuple[str, ...]:
    """The interpreter arguments that start ``module`` with ``args`` through the launcher.

    With nothing to hand over, this is plain ``-m module``.

    :param secret_args: ``{flag: ENV_VAR}``: the flag is appended with the variable's
        value inside the process, never on the command line.
    :param file_args: Flags appended with the path of a private file holding the
        variable's value.
    :param isolated: Start the interpreter with ``-I``: every ``PYTHON*`` variable and the
        user site-packages are ignored, so nothing in the environment picks the code run.
    """
    isolation = ("-I",) if isolated else ()
    if not secret_args and not file_args:
        return (*isolation, "-m", module, *args)  # nothing to hand over: plain ``python -m``
    lines = list(_TAKE)
    lines += [f"a += [{flag!r}, take({env!r})]" for flag, env in (secret_args or {}).items()]
    if file_args:
        lines += [*_PUT, *(f"a += put({f.flag!r}, {f.env!r}, {f.filename!r})" for f in file_args)]
    lines += [line.format(module=module) for line in _RUN]
    code = "; ".join(lines)
    return (*isolation, "-c", code, *args)
