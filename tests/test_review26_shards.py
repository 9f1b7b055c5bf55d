"""REVIEW-26 (hostile review): `enginekit layout --shards DIR` into a folder someone else
prepared. Both failed before the fix in the same commit (write_shards wrote into an existing
file in place; it now writes a new file and renames it over the name).

The docs' own example is `--shards /tmp/sim-dp`: another local user can make /tmp/sim-dp
first (mode 0777), plant `sim-dp-0.json` as a 0666 file and keep it open for reading, or as
a FIFO. The fchmod to 0600 does not revoke a descriptor opened before it (and as root, the
usual case for `enginekit run`, the fchmod succeeds on another user's file), so the key
written afterwards is read through the planted descriptor. A FIFO makes the write block
until a reader comes, who then gets the key.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES

SIM_DP = EXAMPLES / "replicas/sim-dp.toml"
CONFIG = EXAMPLES / "node-config.toml"
KEY = "sim-demo-key-0123456789abcdef"


def _layout(folder: Path, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    code = "import sys; from enginekit.cli import main; sys.exit(main(sys.argv[1:], {}))"
    return subprocess.run(
        [sys.executable, "-c", code, "--config", str(CONFIG), "layout", str(SIM_DP), "--shards", str(folder)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_review26_a_descriptor_opened_on_a_planted_file_before_the_write_never_reads_the_key(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o777)
    planted = folder / "sim-dp-0.json"
    planted.write_text("")
    planted.chmod(0o666)
    with planted.open() as watcher:  # the other user's descriptor, opened while it was 0666
        result = _layout(folder)
        leaked = watcher.read()
    assert result.returncode in (0, 1), result.stderr
    assert KEY not in leaked, "the key was read through a descriptor opened before the write"


def test_review26_a_planted_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    os.mkfifo(folder / "sim-dp-0.json")
    try:
        result = _layout(folder, timeout=20)
    except subprocess.TimeoutExpired:
        raise AssertionError(
            "enginekit layout --shards blocked on a FIFO (a reader would get the key)"
        ) from None
    assert result.returncode == 1
    assert "--shards" in result.stderr
