"""``enginekit probe`` and ``enginekit help-options``: the engine's own programs, run carefully and read.

A fake engine distribution is written to tmp_path (its listing and help are shell scripts
there, named by its node-config section); the simulated engine, when it is installed,
is probed as it is.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from enginekit.cli import main
from enginekit.run.process import MAX_OUTPUT_BYTES, CannotRun, run_program

KEY = "sk-probe-0123456789abcdef"
PLUGIN = """
from typing import ClassVar

import attrs
from enginekit.plugin import Command, CommandBuilder, EngineError, EnginePolicy, hookimpl


@attrs.frozen(kw_only=True)
class Config:
    listing: str = ""
    help: str = ""


class Engine:
    config_type: ClassVar[type] = Config

    def __init__(self, config: Config) -> None:
        self.config = config

    @hookimpl
    def policy(self):
        return EnginePolicy(secret_env="PROBE_API_KEY")

    @hookimpl
    def validate(self):
        return []

    @hookimpl
    def commands(self, shard):
        build = CommandBuilder(shard)
        build.put_secret("PROBE_API_KEY", shard.api_key, "the API key")
        return [build.command("probe-server", [shard.profile.model_path], name="probe")]

    @hookimpl
    def device_listing(self):
        return Command(path=self.config.listing, args=("--list",)) if self.config.listing else None

    @hookimpl
    def parse_devices(self, output):
        lines = output.splitlines()
        if not lines or lines[0] != "LIST":
            raise EngineError(f"not a device listing: {output[:40]!r}")
        return [line[4:] for line in lines[1:] if line.startswith("GPU ")]

    @hookimpl
    def help_command(self, command):
        # A careless engine: the main command's whole environment, its key included.
        return Command(path=self.config.help, args=("--help",), env=dict(command.env))
"""
SPEC = {
    "replica_id": "r1",
    "shard_id": "r1-0",
    "http_port": 8000,
    "gpu_indices": [0, 1],
    "api_key": KEY,
    "profile": {"name": "p", "engine": "probe", "model_path": "/models/m", "tp": 2},
}


@pytest.fixture
def probe_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A distribution providing engine ``probe`` (module ``ek_probe_fake``), on sys.path."""
    site = tmp_path / "site"
    info = site / "ek_probe-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ek-probe\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[enginekit.engines]\nprobe = ek_probe_fake:Engine\n")
    (site / "ek_probe_fake.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield tmp_path
    sys.modules.pop("ek_probe_fake", None)


def script(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def configure(directory: Path, **section: str) -> Path:
    config = directory / "config.toml"
    config.write_text("[engines.probe]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in section.items()))
    return config


def spec_file(directory: Path, **changes: object) -> Path:
    path = directory / "spec.json"
    path.write_text(json.dumps({**SPEC, **changes}))
    return path


def run(
    capsys: pytest.CaptureFixture[str], config: Path | None, *argv: str, **environ: str
) -> tuple[int, str, str]:
    env = {"ENGINEKIT_CONFIG": str(config or ""), "PATH": os.environ.get("PATH", ""), **environ}
    code = main(list(argv), env)
    out, err = capsys.readouterr()
    return code, out, err


# --- probe ------------------------------------------------------------------------------------

LISTING = """\
[ "$PROBE_MARK" = inherited ] || { echo "the inherited environment is missing" >&2; exit 9; }
if read line; then echo "stdin was open" >&2; exit 8; fi
echo LIST
[ -n "$CUDA_VISIBLE_DEVICES" ] && for d in $(echo "$CUDA_VISIBLE_DEVICES" | tr , ' '); do echo "GPU $d"; done
exit 0
"""


def test_probe_runs_the_listing_with_the_shards_placement_over_the_inherited_environment(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = configure(probe_dist, listing=str(script(probe_dist, "list", LISTING)))
    # The inherited CUDA_VISIBLE_DEVICES is the agent's, not the shard's: placement wins.
    code, out, err = run(
        capsys, config, "probe", str(spec_file(probe_dist)), PROBE_MARK="inherited", CUDA_VISIBLE_DEVICES="7"
    )
    assert (code, err) == (0, "")
    assert out == (
        "shard r1-0 of replica r1: engine probe, placed on GPUs 0, 1\n"
        f"device listing: {probe_dist}/list --list\n"
        "the build sees 2 devices:\n"
        "  - 0\n"
        "  - 1\n"
    )


def test_probe_json(probe_dist: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listing = script(probe_dist, "list", LISTING)
    config = configure(probe_dist, listing=str(listing))
    code, out, _ = run(capsys, config, "probe", str(spec_file(probe_dist)), "--json", PROBE_MARK="inherited")
    assert code == 0
    assert json.loads(out) == {
        "engine": "probe",
        "replica": "r1",
        "shard": "r1-0",
        "placed_on": ["0", "1"],
        "listing": [str(listing), "--list"],
        "devices": ["0", "1"],
        "verdict": "gpu",
    }


def test_a_build_that_sees_fewer_gpus_than_placed_says_so_and_still_runs_on_gpu(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = configure(probe_dist, listing=str(script(probe_dist, "list", "echo LIST; echo 'GPU 0'\n")))
    code, out, _ = run(capsys, config, "probe", str(spec_file(probe_dist)))
    assert code == 0
    assert "the build sees 1 device, the shard is placed on 2:\n  - 0\n" in out


def test_a_build_that_sees_no_gpu_exits_1(probe_dist: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = configure(probe_dist, listing=str(script(probe_dist, "list", "echo LIST\n")))
    code, out, err = run(capsys, config, "probe", str(spec_file(probe_dist)))
    assert (code, err) == (1, "")
    assert out.endswith("the build sees no GPU: the shard would run on the CPU\n")
    code, out, _ = run(capsys, config, "probe", str(spec_file(probe_dist)), "--json")
    assert code == 1
    assert (json.loads(out)["devices"], json.loads(out)["verdict"]) == ([], "cpu")


def test_an_engine_without_a_listing_never_falls_back(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, None, "probe", str(spec_file(probe_dist)))
    assert (code, err) == (0, "")
    assert out == (
        "shard r1-0 of replica r1: engine probe, placed on GPUs 0, 1\n"
        "engine probe never falls back to the CPU: it has no device listing to run\n"
    )
    code, out, _ = run(capsys, None, "probe", str(spec_file(probe_dist)), "--json")
    assert (code, json.loads(out)["verdict"], json.loads(out)["listing"]) == (0, "no-listing", None)


def test_a_cpu_shard_is_not_probed(probe_dist: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = configure(probe_dist, listing=str(script(probe_dist, "list", "exit 3\n")))
    code, out, _ = run(capsys, config, "probe", str(spec_file(probe_dist, gpu_indices=[])))
    assert code == 0
    assert out.endswith("placed on no GPU: it runs on the CPU by design, there is no fallback to detect\n")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            f"echo starting; echo 'cuda init failed, key {KEY}' >&2; echo '\x1b[31mred' >&2; exit 3\n",
            "enginekit: error: the device listing of engine 'probe' failed (exit status 3): {listing} --list\n"
            "  stderr:\n"
            "  | cuda init failed, key <secret>\n"
            "  | \\u{{001B}}[31mred\n",
        ),
        (
            "kill -9 $$\n",
            "enginekit: error: the device listing of engine 'probe' failed (killed by SIGKILL): {listing} --list\n"
            "  (nothing on stderr)\n",
        ),
        (
            "echo 'no header'\n",
            "enginekit: error: the device listing of engine 'probe' wrote what the engine cannot read "
            "(not a device listing: 'no header\\n'): {listing} --list\n",
        ),
    ],
)
def test_a_listing_that_fails_or_cannot_be_read_exits_2_with_the_end_of_its_stderr(
    probe_dist: Path, capsys: pytest.CaptureFixture[str], body: str, expected: str
) -> None:
    listing = script(probe_dist, "list", body)
    code, out, err = run(
        capsys, configure(probe_dist, listing=str(listing)), "probe", str(spec_file(probe_dist))
    )
    assert (code, out) == (2, "")
    assert err == expected.format(listing=listing)


def test_only_the_last_lines_of_stderr_are_shown(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = script(probe_dist, "list", "for i in $(seq 1 50); do echo line $i >&2; done; exit 1\n")
    code, _, err = run(
        capsys, configure(probe_dist, listing=str(listing)), "probe", str(spec_file(probe_dist))
    )
    assert code == 2
    assert err.splitlines()[1:] == ["  stderr, last 10 lines:", *(f"  | line {i}" for i in range(41, 51))]


def test_a_missing_listing_exits_2(probe_dist: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = probe_dist / "nowhere" / "llama-server"
    code, _, err = run(
        capsys, configure(probe_dist, listing=str(missing)), "probe", str(spec_file(probe_dist))
    )
    assert (code, err) == (
        2,
        f"enginekit: error: the device listing of engine 'probe' cannot run: {missing} not found: {missing} --list\n",
    )
    code, _, err = run(
        capsys, configure(probe_dist, listing="no-such-lister"), "probe", str(spec_file(probe_dist))
    )
    assert err == (
        "enginekit: error: the device listing of engine 'probe' cannot run: no-such-lister not found on PATH: "
        "no-such-lister --list\n"
    )
    not_executable = probe_dist / "plain"
    not_executable.write_text("echo LIST\n")
    code, _, err = run(
        capsys, configure(probe_dist, listing=str(not_executable)), "probe", str(spec_file(probe_dist))
    )
    assert (code, err) == (
        2,
        f"enginekit: error: the device listing of engine 'probe' cannot run: {not_executable}: permission denied: "
        f"{not_executable} --list\n",
    )


def test_a_listing_that_hangs_is_stopped_with_what_it_started(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pids = probe_dist / "pids"
    listing = script(probe_dist, "list", f"echo 'loading' >&2; sleep 60 & echo $! > {pids}; wait\n")
    start = time.monotonic()
    code, _, err = run(
        capsys,
        configure(probe_dist, listing=str(listing)),
        "probe",
        str(spec_file(probe_dist)),
        "--timeout",
        "0.5",
    )
    assert time.monotonic() - start < 20
    assert (code, err) == (
        2,
        "enginekit: error: the device listing of engine 'probe' did not finish within 0.5 s and was stopped: "
        f"{listing} --list\n  stderr:\n  | loading\n",
    )
    _assert_gone(int(pids.read_text()))


def _assert_gone(pid: int) -> None:
    """The process no longer runs: gone, or a zombie left to an init that does not reap."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still runs")


def test_a_listing_that_floods_stdout_is_stopped(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = script(probe_dist, "list", "echo LIST; yes 'GPU 0'\n")
    code, _, err = run(
        capsys, configure(probe_dist, listing=str(listing)), "probe", str(spec_file(probe_dist))
    )
    assert (code, err.splitlines()[0]) == (
        2,
        f"enginekit: error: the device listing of engine 'probe' wrote more than {MAX_OUTPUT_BYTES} bytes "
        f"and was stopped: {listing} --list",
    )


def test_an_invalid_spec_cannot_be_probed(probe_dist: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 1 would read as "runs on the CPU": a spec that cannot be probed is unusable input.
    config = configure(probe_dist, listing=str(script(probe_dist, "list", "echo LIST\n")))
    code, out, err = run(capsys, config, "probe", str(spec_file(probe_dist, http_port=0)))
    assert (code, out) == (2, "")
    assert err == "enginekit: invalid: shard spec r1-0: http_port: expected a port in 1-65535, got 0\n"


# --- help-options -------------------------------------------------------------------------------


def test_help_options_prints_the_engines_help_without_the_key_in_its_environment(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    helper = script(
        probe_dist,
        "help",
        'printf "usage: probe-server [--flag]\\n\\t--flag  does things\\n"\n'
        'echo "key: ${PROBE_API_KEY:-absent} mark: ${PROBE_MARK:-absent} gpus: $CUDA_VISIBLE_DEVICES"\n',
    )
    config = configure(probe_dist, help=str(helper))
    code, out, err = run(
        capsys, config, "help-options", str(spec_file(probe_dist)), PROBE_MARK="kept", PROBE_API_KEY=KEY
    )
    assert (code, err) == (0, "")
    assert (
        out == "usage: probe-server [--flag]\n        --flag  does things\nkey: absent mark: kept gpus: 0,1\n"
    )


def test_help_options_escapes_what_would_drive_the_terminal_and_masks_the_key(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    helper = script(probe_dist, "help", f"printf '\\033]0;title\\007--opt\\n{KEY}\\n'\n")
    code, out, _ = run(
        capsys, configure(probe_dist, help=str(helper)), "help-options", str(spec_file(probe_dist))
    )
    assert code == 0
    assert out == "\\u{001B}]0;title\\u{0007}--opt\n<secret>\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "echo 'bad option' >&2; exit 2\n",
            "failed (exit status 2): {helper} --help\n  stderr:\n  | bad option\n",
        ),
        ("exit 0\n", "printed nothing: {helper} --help\n"),
    ],
)
def test_a_help_command_that_fails_or_prints_nothing_exits_2(
    probe_dist: Path, capsys: pytest.CaptureFixture[str], body: str, expected: str
) -> None:
    helper = script(probe_dist, "help", body)
    code, out, err = run(
        capsys, configure(probe_dist, help=str(helper)), "help-options", str(spec_file(probe_dist))
    )
    assert (code, out) == (2, "")
    assert err == "enginekit: error: the help command of engine 'probe' " + expected.format(helper=helper)


def test_help_options_of_an_invalid_spec_exits_1(
    probe_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    helper = script(probe_dist, "help", "echo usage\n")
    code, out, err = run(
        capsys,
        configure(probe_dist, help=str(helper)),
        "help-options",
        str(spec_file(probe_dist, http_port=0)),
    )
    assert (code, out) == (1, "")
    assert err == "enginekit: invalid: shard spec r1-0: http_port: expected a port in 1-65535, got 0\n"


# --- the runner itself ------------------------------------------------------------------------


def test_the_runner_passes_exactly_the_environment_given_and_no_shell(tmp_path: Path) -> None:
    show = script(tmp_path, "show", 'echo "$#:$1:${ONLY:-unset}:${HOME:-nohome}"\n')
    finished = run_program([str(show), "$(touch pwned); *"], {"ONLY": "x"}, timeout=10, what="show")
    assert finished.stdout == "1:$(touch pwned); *:x:nohome\n"
    assert not (tmp_path / "pwned").exists()


def test_the_runner_refuses_a_non_positive_deadline_by_stopping_the_program(tmp_path: Path) -> None:
    slow = script(tmp_path, "slow", "exec sleep 30\n")
    with pytest.raises(CannotRun, match=r"^slow did not finish within 0\.2 s and was stopped: "):
        run_program([str(slow)], {}, timeout=0.2, what="slow")


# --- the simulated engine, when it is installed -------------------------------------------------


@pytest.fixture
def sim(tmp_path: Path) -> Path:
    pytest.importorskip("enginekit_sim")
    spec = tmp_path / "sim.toml"
    spec.write_text(
        'replica_id = "s"\nshard_id = "s-0"\nhttp_port = 8100\ngpu_indices = [0, 3]\n'
        '[profile]\nname = "tiny"\nengine = "sim"\nmodel_path = "/models/tiny"\ntp = 2\n'
    )
    return spec


def sim_config(directory: Path, faults: str = "") -> Path:
    config = directory / "sim-config.toml"
    config.write_text(f"[engines.sim]\npython = {json.dumps(sys.executable)}\n{faults}")
    return config


def test_probe_of_the_simulated_engine_sees_the_shards_gpus(
    sim: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, sim_config(tmp_path), "probe", str(sim))
    assert (code, err) == (0, "")
    assert out == (
        "shard s-0 of replica s: engine sim, placed on GPUs 0, 3\n"
        f"device listing: {sys.executable} -I -m enginekit_sim devices\n"
        "the build sees 2 devices:\n"
        "  - 0\n"
        "  - 3\n"
    )


def test_probe_of_the_simulated_engine_with_a_cpu_fallback_exits_1(
    sim: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, sim_config(tmp_path, 'faults = ["cpu-fallback"]\n'), "probe", str(sim), "--json"
    )
    assert code == 1
    report = json.loads(out)
    assert (report["devices"], report["verdict"]) == ([], "cpu")
    assert report["listing"][-2:] == ["--fault", "cpu-fallback"]


def test_help_options_of_the_simulated_engine(
    sim: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, sim_config(tmp_path), "help-options", str(sim))
    assert (code, err) == (0, "")
    assert out.startswith("usage: python -m enginekit_sim serve")
    assert "--ttft-ms" in out


def test_a_simulated_engine_whose_interpreter_is_missing_cannot_be_probed(
    sim: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "missing.toml"
    config.write_text('[engines.sim]\npython = "/nonexistent/python3"\n')
    code, _, err = run(capsys, config, "probe", str(sim))
    assert (code, err) == (
        2,
        "enginekit: error: the device listing of engine 'sim' cannot run: /nonexistent/python3 not found: "
        "/nonexistent/python3 -I -m enginekit_sim devices\n",
    )
