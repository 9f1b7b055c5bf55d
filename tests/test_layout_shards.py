"""`enginekit layout --shards DIR` into a folder someone else prepared, or could change.

Another local user could make the folder first, plant `sim-dp-0.json` as a 0666 file and
keep it open for reading, or as a FIFO: a spec written into that file in place would be
read through the planted descriptor (an fchmod to 0600 revokes no descriptor opened
before it), and a FIFO would block the write until a reader came. Each spec is written to
a new file and renamed over the name; a folder that is not the user's own, or that others
may write in, is refused (its owner could swap a spec before `enginekit run` reads it).
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


def test_a_descriptor_opened_on_a_planted_file_before_the_write_never_reads_the_key(
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


def test_a_planted_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
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


def test_a_folder_others_may_write_in_or_someone_else_owns_is_refused(tmp_path: Path) -> None:
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)
    result = _layout(open_folder)
    assert result.returncode == 1
    assert "must be a folder of your own that no one else may write in (it is 0o777)" in result.stderr
    assert list(open_folder.iterdir()) == []
    if os.geteuid() == 0:  # only root can give a folder away
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o755)
        os.chown(theirs, 65534, -1)
        result = _layout(theirs)
        assert result.returncode == 1
        assert "owned by another user" in result.stderr
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    assert "cannot make" in _layout(not_a_folder).stderr
