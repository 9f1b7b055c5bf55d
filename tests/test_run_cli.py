"""``enginekit run``'s input: fields from named variables, refused with one clear message each, never the key."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from enginekit.cli import main

from tests.conftest import EXAMPLES

WORKER = str(EXAMPLES / "sim-two-node-worker.toml")
KEY = "sk-cli-run-0123456789abcdef"


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "node.toml"
    path.write_text(f"[engines.sim]\npython = {json.dumps(sys.executable)}\n")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str, **environ: str) -> tuple[int, str, str]:
    code = main(["run", *argv], environ)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_rank_variable_that_is_not_a_decimal_is_unusable_input(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    code, out, err = run(
        capsys, WORKER, "--config", config, "--rank-from-env", "LWS_WORKER_INDEX", LWS_WORKER_INDEX="x"
    )
    assert (code, out) == (2, "")
    assert (
        err
        == "enginekit: error: rank from $LWS_WORKER_INDEX: expected a plain decimal such as 0 or 3, got 'x'\n"
    )


@pytest.mark.parametrize("option", ["--rank-from-env", "--leader-addr-from-env", "--api-key-from-env"])
def test_an_empty_variable_name_is_refused_not_read_as_not_given(
    capsys: pytest.CaptureFixture[str], config: str, option: str
) -> None:
    code, out, err = run(capsys, WORKER, "--config", config, option, "")
    assert (code, out) == (2, "")
    assert (
        f"argument {option}: expected a variable name (letters, digits and '_', not starting with a digit), got ''"
        in err
    )


@pytest.mark.parametrize(
    ("option", "variable", "why"),
    [
        ("--api-key-from-env", "spec_dir", "the key's variable must be upper case"),
        (
            "--api-key-from-env",
            "SLURM_JOB_ID",
            "a scheduler or Kubernetes sets, whose value anybody can guess",
        ),
        ("--api-key-from-env", "HOSTNAME", "the shell, the runtime or enginekit reads itself"),
        ("--api-key-from-env", "ENGINEKIT_CONFIG", "the shell, the runtime or enginekit reads itself"),
        ("--rank-from-env", "BASH_ENV", "the shell, the runtime or enginekit reads itself"),
        ("--leader-addr-from-env", "IFS", "the shell, the runtime or enginekit reads itself"),
        ("--bind-addr-from-env", "LD_PRELOAD", "the shell, the runtime or enginekit reads itself"),
        ("--bind-addr-from-env", "ENGINEKIT_API_KEY", "carries api_key, not bind_addr"),
    ],
)
def test_a_variable_the_shell_slurm_or_enginekit_owns_carries_nothing(
    capsys: pytest.CaptureFixture[str], config: str, option: str, variable: str, why: str
) -> None:
    code, out, err = run(capsys, WORKER, "--config", config, option, variable, **{variable: "10.0.0.7"})
    assert (code, out) == (2, "")
    assert f"argument {option}: " in err
    assert why in err


def test_the_key_and_the_rank_cannot_share_a_variable(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    options = ["--rank-from-env", "SHARED", "--api-key-from-env", "SHARED"]
    code, out, err = run(capsys, WORKER, "--config", config, *options, SHARED="1")
    assert (code, out) == (2, "")
    assert err == "enginekit: error: rank from $SHARED: the API key's variable too; one cannot be both\n"


def test_a_missing_variable_and_a_bad_address_are_listed_together(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    options = ["--rank-from-env", "IDX", "--leader-addr-from-env", "LEADER", "--bind-addr-from-env", "POD_IP"]
    code, _, err = run(capsys, WORKER, "--config", config, *options, LEADER="-leader", POD_IP="10.0.0.7")
    assert code == 2
    assert err == (
        "enginekit: error: 2 problems:\n"
        "  - rank from $IDX: not set\n"
        "  - leader_addr from $LEADER: expected a host name or IP address, got '-leader'\n"
    )


def test_an_empty_key_variable_is_named_and_a_short_key_is_never_shown(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    code, _, err = run(capsys, WORKER, "--config", config, "--api-key-from-env", "SECRET", SECRET="")
    assert (code, err) == (2, "enginekit: error: api_key from $SECRET: empty\n")
    code, _, err = run(
        capsys, WORKER, "--config", config, "--api-key-from-env", "SECRET", SECRET="tiny-key-1"
    )
    assert code == 2
    assert err == (
        "enginekit: error: api_key from $SECRET: shorter than 16 characters, so guessable (the value is not shown)\n"
    )
    assert "tiny-key-1" not in err


def test_a_rank_the_spec_cannot_have_is_named_with_its_variable(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    code, _, err = run(capsys, WORKER, "--config", config, "--rank-from-env", "IDX", IDX="2")
    assert (code, err) == (2, "enginekit: error: rank from $IDX: must be in 0..1 for 2 node(s), got 2\n")


def test_a_spec_that_breaks_a_rule_is_exit_1_as_for_render(
    capsys: pytest.CaptureFixture[str], config: str, tmp_path: Path
) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text(
        (EXAMPLES / "sim-single.toml").read_text().replace('"--max-num-seqs", "64"', '"--max-num-seqs", "0"')
    )
    code, out, err = run(capsys, str(spec), "--config", config)
    assert (code, out) == (1, "")
    assert err.startswith("enginekit: invalid: ")
    assert "--max-num-seqs" in err


def test_dry_run_takes_the_fields_from_the_environment_and_masks_the_key(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    options = ["--rank-from-env", "IDX", "--leader-addr-from-env", "LEADER", "--api-key-from-env", "SECRET"]
    code, out, err = run(
        capsys,
        WORKER,
        "--config",
        config,
        "--dry-run",
        *options,
        IDX="1",
        LEADER="leader.example",
        SECRET=KEY,
    )
    assert (code, err) == (0, "")
    assert "rank 1 of 2 (worker)" in out
    assert (
        "wait until the leader at leader.example:29600 accepts connections, at most 900 s (exit 82 after)"
        in out
    )
    assert "over the inherited environment (less $SECRET)" in out
    assert "report running once started: this rank serves no HTTP and has no health URL" in out
    assert "when the leader goes, this rank exits by itself: exit with its status" in out
    assert KEY not in out


def test_the_node_config_sets_the_waits_and_the_command_line_wins(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    with open(config, "a", encoding="utf-8") as node:
        node.write("[run]\nleader_timeout = 1234\nstop_grace = 7.5\n")
    code, out, _ = run(capsys, WORKER, "--config", config, "--dry-run")
    assert code == 0
    assert "accepts connections, at most 1234 s (exit 82 after)" in out
    code, out, _ = run(capsys, WORKER, "--config", config, "--dry-run", "--leader-timeout", "60")
    assert code == 0
    assert "accepts connections, at most 60 s (exit 82 after)" in out


def test_a_bad_run_section_is_unusable_input_naming_every_key(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    with open(config, "a", encoding="utf-8") as node:
        node.write('[run]\nstop_grace = -1\nstartup_timeout = "1h"\nleader_timeout = true\ngrace = 3\n')
    code, out, err = run(capsys, WORKER, "--config", config, "--dry-run")
    assert (code, out) == (2, "")
    assert err == (
        "enginekit: error: node config [run]: unknown key 'grace'; expected one of leader_timeout, "
        "startup_timeout, stop_grace, leader_gone_grace; "
        "node config [run] leader_timeout: expected a positive number of seconds, got bool; "
        "node config [run] startup_timeout: expected a positive number of seconds, got str; "
        "node config [run] stop_grace: expected a positive number of seconds, got -1\n"
    )


def test_timings_are_positive_numbers_of_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, WORKER, "--stop-grace", "-1")
    assert code == 2
    assert (
        "argument --stop-grace: expected a number of seconds in plain digits (such as 30 or 2.5), got '-1'"
        in err
    )


def test_a_device_listing_that_cannot_run_is_unusable_input_and_nothing_starts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "node.toml"
    config.write_text('[engines.sim]\npython = "/nonexistent/python3"\n')
    status = tmp_path / "status.json"
    spec = str(EXAMPLES / "sim-single.toml")
    code, out, err = run(capsys, spec, "--config", str(config), "--status-file", str(status))
    assert (code, out) == (2, "")
    assert (
        "enginekit run: error: cannot check the devices: the device listing of engine 'sim' cannot run: "
        "/nonexistent/python3 not found: /nonexistent/python3 -I -m enginekit_sim devices"
    ) in err
    document = json.loads(status.read_text())
    assert (document["state"], document["exit_code"], document["processes"]) == ("exited", 2, [])


def test_the_console_script_runs_without_the_cycle_collector_and_run_turns_it_back_on(
    capsys: pytest.CaptureFixture[str], config: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command is a moment long: no collector. A supervisor lives as long as its shard: it has one."""
    import gc

    from enginekit.cli import app, supervise

    seen: list[bool] = []
    monkeypatch.setattr(app, "main", lambda: seen.append(gc.isenabled()) or 0)
    try:
        with pytest.raises(SystemExit) as exited:
            app.run()
        assert (exited.value.code, seen, gc.isenabled()) == (0, [False], False)

        class Supervisor:
            def __init__(self, *args: object, **kwargs: object) -> None:
                pass

            def run(self) -> int:
                seen.append(gc.isenabled())
                return 0

        monkeypatch.setattr(supervise, "Supervisor", Supervisor)
        leader = str(EXAMPLES / "sim-single.toml")
        code, _, err = run(capsys, leader, "--config", config)
        assert (code, seen) == (0, [False, True]), err
    finally:
        gc.enable()


#: What float() alone reads as a number: an underscore (``1_0`` is ten), other scripts'
#: digits, spaces around, an exponent, a sign, infinity.
LOOSE = [
    "1_0",
    "\u0661\u0660",
    "\u0661\u0660.5",
    " 10",
    "10 ",
    "1e3",
    "+10",
    "inf",
    "0x10",
    "10.",
    ".5",
    "1.5.0",
    "",
]
TIMED = [
    ["run", WORKER, "--startup-timeout"],
    ["run", WORKER, "--leader-timeout"],
    ["run", WORKER, "--stop-grace"],
    ["run", WORKER, "--leader-gone-grace"],
    ["probe", WORKER, "--timeout"],
    ["help-options", "sim", "--timeout"],
    ["export", "slurm", "r.toml", "--startup-timeout"],
    ["export", "lws", "r.toml", "--image", "i", "--startup-timeout"],
]


@pytest.mark.parametrize("value", LOOSE)
@pytest.mark.parametrize("argv", TIMED, ids=lambda a: f"{a[0]}{a[-1]}")
def test_every_number_of_seconds_is_plain_digits(
    capsys: pytest.CaptureFixture[str], argv: list[str], value: str
) -> None:
    code = main([*argv, value], {})
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert (
        f"argument {argv[-1]}: expected a number of seconds in plain digits (such as 30 or 2.5), got {value!r}"
        in err
    )


@pytest.mark.parametrize("value", ["30", "2.5", "0.25", "86400"])
def test_a_plain_number_of_seconds_is_taken(value: str) -> None:
    from enginekit.cli.values import seconds

    assert seconds(value) == float(value)


@pytest.mark.parametrize("value", ["0", "0.0", "86401", "999999999"])
def test_seconds_out_of_range_are_refused(value: str) -> None:
    import argparse

    from enginekit.cli.values import seconds

    with pytest.raises(
        argparse.ArgumentTypeError, match=r"expected (a positive number of seconds|at most 86400)"
    ):
        seconds(value)


def test_a_count_is_plain_digits() -> None:
    from enginekit.cli.values import whole

    assert whole("0") == 0
    assert whole("123456789") == 123456789
    for loose in ["1_0", "\u0661", " 1", "1 ", "+1", "-1", "1234567890", "", "1.0"]:
        assert whole(loose) is None, loose


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "is a FIFO, not a regular file"


def _directory(path: Path) -> str:
    path.mkdir()
    return "is a directory, not a regular file"


def _link(path: Path) -> str:
    path.with_name("target.json").write_text("kept\n")
    path.symlink_to(path.with_name("target.json"))
    return "is a symbolic link: each status write would replace the link itself"


@pytest.mark.parametrize("make", [_fifo, _directory, _link], ids=["fifo", "directory", "symlink"])
def test_a_status_file_path_that_is_not_a_regular_file_is_refused_before_anything_starts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make: Callable[[Path], str]
) -> None:
    # The engine could not even be listed: an error about it would mean the run went on.
    config = tmp_path / "node.toml"
    config.write_text('[engines.sim]\npython = "/nonexistent/python3"\n')
    status = tmp_path / "status.json"
    said = make(status)
    before = os.lstat(status)
    spec = str(EXAMPLES / "sim-single.toml")
    code, out, err = run(capsys, spec, "--config", str(config), "--status-file", str(status))
    assert (code, out) == (2, "")
    assert f"enginekit run: error: argument --status-file: {status} {said}" in err
    assert "cannot check the devices" not in err, "nothing was checked or started"
    after = os.lstat(status)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)


def test_a_character_device_status_file_is_refused_even_for_a_dry_run(
    capsys: pytest.CaptureFixture[str], config: str
) -> None:
    spec = str(EXAMPLES / "sim-single.toml")
    code, out, err = run(capsys, spec, "--config", config, "--dry-run", "--status-file", "/dev/null")
    assert (code, out) == (2, "")
    assert (
        "enginekit run: error: argument --status-file: /dev/null is a character device, not a regular file: "
        "each status write replaces the path with a new file; give the path of a regular file, or of nothing yet"
    ) in err
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_an_empty_status_file_path_is_refused(capsys: pytest.CaptureFixture[str], config: str) -> None:
    code, out, err = run(capsys, WORKER, "--config", config, "--dry-run", "--status-file", "")
    assert (code, out) == (2, "")
    assert "argument --status-file: expected a file path, got ''" in err
