"""The command keeps secrets out of the programs it runs and off stdout, whatever the streams."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from enginekit.cli import main

from tests.conftest import EXAMPLES

INHERITED = "inherited-key-0123456789"


def test_probe_keeps_an_inherited_key_out_of_the_device_listing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "llama-server"
    listing.write_text('#!/bin/sh\necho "key=[$LLAMA_API_KEY]" >&2\nexit 3\n')
    listing.chmod(0o755)
    environ = {"PATH": f"{tmp_path}:/usr/bin:/bin", "LLAMA_API_KEY": INHERITED, "ENGINEKIT_CONFIG": ""}
    code = main(["probe", str(EXAMPLES / "llamacpp-gpu.toml")], environ)
    out, err = capsys.readouterr()
    assert code == 2
    assert "key=[]" in err  # the listing ran, without the engine's key variable
    assert INHERITED not in out + err


def test_a_timeout_beyond_a_day_is_refused_by_the_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["probe", str(EXAMPLES / "llamacpp-gpu.toml"), "--timeout", "99999999999"], {})
    _, err = capsys.readouterr()
    assert code == 2
    assert "expected at most 86400 seconds (a day), got '99999999999'" in err


def test_with_stderr_closed_nothing_but_the_output_reaches_stdout(tmp_path: Path) -> None:
    script = f'exec "{sys.executable}" -m enginekit render "{tmp_path / "missing.toml"}" 2>&-'
    result = subprocess.run(
        ["/bin/sh", "-c", script], capture_output=True, text=True, timeout=60, env={"ENGINEKIT_CONFIG": ""}
    )
    assert result.returncode == 2
    assert result.stdout == ""
