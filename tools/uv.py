"""Run uv with this script's arguments, first installing it into the clone's .uv/ if nothing provides it."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# pip --target writes here without touching the interpreter's own packages, so it works
# where PEP 668 refuses plain installs (Debian 12, Ubuntu 24.04) and needs no root.
LOCAL = ROOT / ".uv"
# uv 0.5 cannot read uv.lock (the core's version is dynamic); 0.6.0 runs, locks and builds
# this repository. An older uv found first is passed over, not used.
MINIMUM = (0, 6, 0)
WANTED = "uv>=" + ".".join(map(str, MINIMUM))


def version(uv: str) -> tuple[int, ...] | None:
    """The version ``uv --version`` reports, or None when it does not run."""
    try:
        out = subprocess.run([uv, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.match(r"uv (\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(part) for part in found.groups()) if found else None


def packaged() -> str | None:
    """The binary of the uv package this Python imports, if it has one."""
    if importlib.util.find_spec("uv") is None:
        return None
    try:
        return str(importlib.import_module("uv").find_uv_bin())
    except (ImportError, OSError, AttributeError):  # a package without its binary
        return None


def candidates() -> list[str]:
    """Where uv may already be: this Python's uv package, then PATH, then .uv/."""
    return [uv for uv in (packaged(), shutil.which("uv"), str(LOCAL / "bin" / "uv")) if uv]


def found() -> str | None:
    """The first uv that runs and is recent enough."""
    for uv in candidates():
        seen = version(uv)
        if seen is not None and seen >= MINIMUM:
            return uv
    return None


def install() -> str:
    """Install uv into .uv/ with this Python's pip, or exit saying what is missing."""
    if importlib.util.find_spec("pip") is None:
        sys.exit(
            f"tools/uv.py: uv is not installed and {sys.executable} has no pip: "
            "install pip (Debian, Ubuntu: apt install python3-pip) or uv, then run this again"
        )
    print(f"tools/uv.py: installing {WANTED} into {LOCAL} (once)", file=sys.stderr)
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--upgrade", "--target", str(LOCAL), WANTED]
    if subprocess.run(command).returncode != 0:
        sys.exit(f"tools/uv.py: pip could not install uv into {LOCAL} (its message is above)")
    uv = found()
    if uv is None:
        sys.exit(f"tools/uv.py: pip ran, but no working uv is in {LOCAL / 'bin'}")
    return uv


def main() -> None:
    uv = found() or install()
    os.execv(uv, [uv, *sys.argv[1:]])  # uv replaces this process: its exit status is the command's


if __name__ == "__main__":
    main()
