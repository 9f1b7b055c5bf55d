"""``enginekit run``'s fixed parts: its exit statuses and defaults as the help shows them, and its imports."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from enginekit.cli.parser import RUN_EPILOG, RUN_TIMINGS
from enginekit.run import RunOptions, exits
from enginekit.run.exits import describe_end, exit_status

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vllm-single-node-tp8.toml"


def test_the_help_lists_every_exit_status_the_runner_chooses() -> None:
    listed = {int(code) for code in re.findall(r"^  (\d+) ", RUN_EPILOG, re.MULTILINE)}
    chosen = {value for name, value in vars(exits).items() if name.startswith("EXIT_") and name != "EXIT_OK"}
    assert listed == chosen
    assert "129, 130, 143  stopped by SIGHUP, SIGINT or SIGTERM" in RUN_EPILOG


def test_the_help_shows_the_defaults_the_runner_uses() -> None:
    defaults = {field.name: field.default for field in attrs.fields(RunOptions)}
    assert {option: default for option, default, _ in RUN_TIMINGS} == {
        f"--{name.replace('_', '-')}": defaults[name]
        for name in ("leader_timeout", "startup_timeout", "stop_grace", "leader_gone_grace")
    }


def test_a_child_s_end_reads_as_a_shell_reports_it() -> None:
    assert [exit_status(code) for code in (0, 3, -9, -15)] == [0, 3, 137, 143]
    assert describe_end(-15) == "killed by SIGTERM (status 143)"
    assert describe_end(7) == "exit status 7"


def loaded_by(code: str) -> set[str]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"{code}\nimport json, sys; sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ENGINEKIT_CONFIG": ""},
    )
    return set(json.loads(out.stderr.rsplit("MODULES ", 1)[1]))


def test_planning_never_imports_the_runner() -> None:
    for code in (
        "import enginekit",
        f"from enginekit.cli import main; main(['render', {str(EXAMPLE)!r}], {{'ENGINEKIT_CONFIG': ''}})",
        "from enginekit.cli import main; main(['run', '--help'], {})",
    ):
        loaded = loaded_by(code)
        assert not {
            name for name in loaded if name == "enginekit.run" or name.startswith("enginekit.run.")
        }, code
        assert "enginekit.cli.supervise" not in loaded


def test_the_runner_s_subcommand_loads_it() -> None:
    code = "from enginekit.cli import main; main(['run', '/nonexistent.toml'], {})"
    assert {"enginekit.run", "enginekit.run.supervisor", "enginekit.cli.supervise"} <= loaded_by(code)


def test_every_timeout_has_one_bound_wherever_it_is_set() -> None:
    # The command line, the node config's [run] and an export's --startup-timeout: a value
    # one accepts is one the others take, so no export writes what `run` refuses at start.
    from enginekit.cli.values import MAX_TIMEOUT
    from enginekit.run.options import MAX_SECONDS, RunConfigError, options_from

    assert MAX_TIMEOUT == MAX_SECONDS
    assert options_from({"startup_timeout": MAX_SECONDS}, {}).startup_timeout == MAX_SECONDS
    with pytest.raises(RunConfigError, match="at most 86400 \\(a day\\), got 172800"):
        options_from({"startup_timeout": 172800}, {})
