"""The ``enginekit`` command: outputs, exit codes, and one readable message for any bad input."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pytest
from enginekit.cli import main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

KEY = "sk-cli-0123456789abcdef"
SPEC = f"""
replica_id = "r1"
shard_id = "r1-0"
http_port = 8000
bind_addr = "10.0.0.5"
gpu_indices = [0, 1]
hcas = ["mlx5_0:1"]
gid_index = 3
mgmt_interface = "eth0"
api_key = "{KEY}"

[profile]
name = "fake-tp2"
engine = "fake"
model_path = "/models/llama"
tp = 2
env = {{ NCCL_DEBUG = "WARN" }}
"""
NO_CONFIG = {"ENGINEKIT_CONFIG": ""}


@pytest.fixture
def spec(tmp_path: Path, fake_dists: Path) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


def run(
    capsys: pytest.CaptureFixture[str], *argv: str, environ: dict[str, str] | None = None
) -> tuple[int, str, str]:
    code = main(list(argv), {**NO_CONFIG, **(environ or {})})
    out, err = capsys.readouterr()
    return code, out, err


def test_render_shows_the_plan_with_the_key_masked(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "render", str(spec))
    assert code == 0, err
    assert "engine fake, profile fake-tp2, rank 0 of 1 (leader)" in out
    assert "argv: fake-server /models/llama --host 10.0.0.5 --port 8000" in out
    assert "    NCCL_IB_HCA=mlx5_0:1" in out
    assert "    FAKE_API_KEY=<secret>" in out
    assert "health:  http://10.0.0.5:8000/health" in out
    assert KEY not in out + err
    assert "fake_pkgs.ok" in sys.modules
    assert "fake_pkgs.broken" not in sys.modules


def test_render_explain_and_show_secrets(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "render", str(spec), "--explain", "--show-secrets")
    assert code == 0
    assert f"FAKE_API_KEY={KEY}" in out
    assert "# RoCE: the routable RoCE v2 GID entry" in out
    assert "# set by the profile" in out


def test_render_json(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "render", str(spec), "--json")
    plan = json.loads(out)
    assert code == 0
    assert plan["serves_http"] is True
    assert plan["commands"][0]["env"]["FAKE_API_KEY"] == "<secret>"
    assert plan["commands"][0]["args"] == ["/models/llama", "--host", "10.0.0.5", "--port", "8000"]
    assert plan["notes"] == ["fake engines serve nothing"]


def test_env_shows_the_shared_environment(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "env", str(spec))
    assert code == 0
    assert out.splitlines()[:4] == [
        "# note: fake engines serve nothing",
        "# FAKE_API_KEY: a secret, left out (--show-secrets includes it)",
        "export CUDA_DEVICE_ORDER=PCI_BUS_ID",
        "export CUDA_VISIBLE_DEVICES=0,1",
    ]
    assert KEY not in out
    code, out, _ = run(capsys, "env", str(spec), "--format", "dotenv", "--show-secrets")
    assert code == 0
    assert out.splitlines() == [
        "# note: fake engines serve nothing",
        "CUDA_DEVICE_ORDER=PCI_BUS_ID",
        "CUDA_VISIBLE_DEVICES=0,1",
        f"FAKE_API_KEY={KEY}",
        "GLOO_SOCKET_IFNAME=eth0",
        "NCCL_DEBUG=WARN",
        "NCCL_IB_DISABLE=0",
        "NCCL_IB_GID_INDEX=3",
        "NCCL_IB_HCA=mlx5_0:1",
        "NCCL_SOCKET_IFNAME=eth0",
    ]


def test_engines_lists_every_status(fake_dists: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "engines", environ={"ENGINEKIT_DISABLE_ENGINES": "modular"})
    assert code == 1  # some engines failed
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert lines["fake"].split()[1] == "ok"
    assert "fake-ok 1.0" in lines["fake"]
    assert lines["modular"].split()[1] == "disabled"
    assert lines["broken"].split()[1] == "failed"
    assert "ModuleNotFoundError" in lines["broken"]
    assert lines["offline"].split()[1] == "unavailable"


def test_validate_lists_every_problem_and_exits_1(
    tmp_path: Path, fake_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(
        json.dumps(
            {"name": "bad", "engine": "fake", "model_path": "", "tp": 3, "env": {"LD_PRELOAD": "/x.so"}}
        )
    )
    gpus = tmp_path / "gpus.toml"
    gpus.write_text('[[gpus]]\nindex = 0\nname = "NVIDIA H100"\ncompute_capability = "9.0"\n')
    code, _, err = run(capsys, "validate", str(profile), "--gpus", str(gpus))
    assert code == 1
    assert err.splitlines() == [
        "enginekit: invalid: 4 problems:",
        "  - profile 'bad': model path is empty",
        "  - profile 'bad': needs 3 GPUs per node, node has 1",
        "  - profile 'bad': env LD_PRELOAD: denied: the dynamic loader or libc would load code or data from it",
        "  - profile 'bad': fake refuses tp 3",
    ]


def test_validate_accepts_a_spec_file(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "validate", str(spec))
    assert code == 0
    assert out == "profile 'fake-tp2': valid for engine 'fake'\n"


def test_render_of_an_invalid_shard_exits_1(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec.write_text(SPEC.replace("http_port = 8000", "http_port = 0"))
    code, _, err = run(capsys, "render", str(spec))
    assert (code, err) == (
        1,
        "enginekit: invalid: shard spec r1-0: http_port: expected a port in 1-65535, got 0\n",
    )


@pytest.mark.parametrize(
    ("text", "environ", "expected"),
    [
        ("a = ", {}, "enginekit: error: {path}: not valid TOML: "),
        (
            SPEC.replace("[profile]", "[profile]\nadpaters = []"),
            {},
            "enginekit: error: spec.profile.adpaters: unknown field",
        ),
        (
            SPEC.replace('engine = "fake"', 'engine = "nope"'),
            {},
            "enginekit: error: unknown engine 'nope' (installed: ",
        ),
        (
            SPEC,
            {"ENGINEKIT_DISABLE_ENGINES": "fake"},
            "enginekit: error: engine 'fake' is disabled on this node",
        ),
        (SPEC, {"ENGINEKIT_ENGINES": "modular"}, "enginekit: error: engine 'fake' is disabled on this node"),
        (
            SPEC.replace('engine = "fake"', 'engine = "broken"'),
            {},
            "enginekit: error: engine 'broken' failed to load",
        ),
    ],
)
def test_unusable_input_exits_2_with_one_message(
    tmp_path: Path,
    fake_dists: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    environ: dict[str, str],
    expected: str,
) -> None:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    code, _, err = run(capsys, "render", str(path), environ=environ)
    assert code == 2
    assert err.startswith(expected.format(path=path)), err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_missing_file_and_bad_config(
    tmp_path: Path, fake_dists: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "render", str(tmp_path / "nope.toml"))
    assert code == 2
    assert err == f"enginekit: error: {tmp_path / 'nope.toml'}: cannot read: No such file or directory\n"
    config = tmp_path / "config.toml"
    config.write_text("disabeld = ['x']\n")
    code, _, err = run(capsys, "engines", environ={"ENGINEKIT_CONFIG": str(config)})
    assert code == 2
    assert err == "enginekit: error: config.disabeld: unknown field\n"


def test_config_file_disables_configures_and_points_at_builds(
    tmp_path: Path, spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'disabled = ["broken"]\n[installed]\nfake = "/opt/fake-2"\n[env_policy]\ndeny = ["NCCL_DEBUG"]\n'
    )
    code, _, err = run(capsys, "--config", str(config), "render", str(spec))
    assert code == 1
    assert "env NCCL_DEBUG: denied by this site's policy" in err
    spec.write_text(SPEC.replace('env = { NCCL_DEBUG = "WARN" }', ""))
    code, out, _ = run(capsys, "--config", str(config), "render", str(spec))
    assert code == 0
    assert "argv: /opt/fake-2/bin/fake-server" in out


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "profile",
                        "http_port",
                        "engine",
                        "name",
                        "model_path",
                        "gpu_indices",
                        "tp",
                        "env",
                        "api_key",
                        "x",
                    ]
                ),
                inner,
                max_size=5,
            )
        ),
        max_leaves=12,
    )
)
def test_no_input_gives_a_traceback(
    tmp_path: Path, fake_dists: Path, capsys: pytest.CaptureFixture[str], doc: object
) -> None:
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "render", str(path))
    assert code in (0, 1, 2)
    assert "Traceback" not in err


# --- arguments, help and the subcommand table ---------------------------------------------


@pytest.mark.parametrize(
    ("argv", "code", "expected"),
    [
        (
            [],
            2,
            "enginekit: error: a command is required: engines, render, env, validate, probe, help-options, spec, schema",
        ),
        (["render"], 2, "enginekit render: error: the following arguments are required: SPEC"),
        (["frobnicate"], 2, "enginekit: error: argument COMMAND: invalid choice: 'frobnicate'"),
        (["probe", "x.toml", "--timeout", "0"], 2, "error: argument --timeout: expected a positive number"),
        (
            ["probe", "x.toml", "--timeout", "nan"],
            2,
            "error: argument --timeout: expected a number of seconds",
        ),
        (["help-options", "x", "--timeout", "soon"], 2, "expected a number of seconds in plain digits"),
    ],
)
def test_arguments_argparse_refuses_return_2_with_its_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], code: int, expected: str
) -> None:
    assert main(argv, NO_CONFIG) == code  # returned, not raised: main() is embeddable
    out, err = capsys.readouterr()
    assert out == ""
    assert expected in err


def test_help_lists_every_subcommand_and_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"], NO_CONFIG) == 0
    out = capsys.readouterr().out
    for name in ("engines", "render", "env", "validate", "probe", "help-options", "--version"):
        assert name in out
    assert "exit status:" in out
    assert "probe: the engine's build would run on the CPU" in " ".join(out.split())
    assert main(["engines", "--help"], NO_CONFIG) == 0
    engines_help = " ".join(capsys.readouterr().out.split())
    assert "1 one of them failed (listed as failed, with why)" in engines_help
    assert "2 a named engine is not installed here" in engines_help
    assert main(["probe", "--help"], NO_CONFIG) == 0
    probe_help = " ".join(capsys.readouterr().out.split())
    assert "1 the build sees no GPU: the shard would run on the CPU" in probe_help
    assert "(default: 60)" in probe_help
    assert main(["render", "--help"], NO_CONFIG) == 0
    assert "'-' reads it from stdin" in " ".join(capsys.readouterr().out.split())


def test_the_default_config_path_in_the_help_is_the_one_read() -> None:
    from enginekit.cli.parser import DEFAULT_CONFIG
    from enginekit.platform.config import DEFAULT_CONFIG_PATH

    assert Path(DEFAULT_CONFIG) == DEFAULT_CONFIG_PATH


def test_every_subcommand_names_a_handler_that_exists() -> None:
    import importlib

    from enginekit.cli.parser import SUBCOMMANDS

    for command in SUBCOMMANDS:
        module, _, function = command.handler.partition(":")
        assert callable(getattr(importlib.import_module(f"enginekit.cli.{module}"), function)), command


def test_a_subcommand_is_a_table_entry_and_a_handler(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # What the next subcommand costs: one entry (its arguments) and one function (Run -> int).
    import enginekit.cli.parser as parser
    import enginekit.cli.version as version_module

    def hello(run: object) -> int:
        print(f"hello {run.args.who}", file=run.out)  # type: ignore[attr-defined]
        return 0

    def arguments(p: argparse.ArgumentParser) -> None:
        p.add_argument("who")

    monkeypatch.setattr(version_module, "hello", hello, raising=False)
    entry = parser.Subcommand("hello", "say hello", "version:hello", arguments)
    monkeypatch.setattr(parser, "SUBCOMMANDS", (*parser.SUBCOMMANDS, entry))
    assert main(["hello", "world"], NO_CONFIG) == 0
    assert capsys.readouterr().out == "hello world\n"


def test_a_bug_is_exit_70_in_one_line(
    spec: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import enginekit.cli.plans as plans

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError

    monkeypatch.setattr(plans, "load_gpus", broken)
    code, out, err = run(capsys, "render", str(spec))
    assert (code, out) == (70, "")
    assert err == (
        "enginekit: error: internal error, a bug in enginekit (ZeroDivisionError); "
        "ENGINEKIT_TRACEBACK=1 shows where\n"
    )
    with pytest.raises(ZeroDivisionError):
        run(capsys, "render", str(spec), environ={"ENGINEKIT_TRACEBACK": "1"})


def test_what_a_plugin_prints_has_the_key_masked(capsys: pytest.CaptureFixture[str]) -> None:
    from enginekit.cli import output

    key = "sk-printed-0123456789abcdef"
    secrets: list[str] = []
    with output.stdout_to_stderr(secrets):
        secrets.append(key)  # read from a spec after the redirection began
        print(f"debug: key {key}")
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "debug: key <secret>\n"


@pytest.mark.parametrize(
    ("columns", "width"),
    [("120", 118), (" 100", 98), ("+100", 98), ("²", 78), ("0", 78), ("-5", 78), ("x", 78)],
)
def test_the_help_is_as_wide_as_shutil_says_whatever_columns_holds(
    columns: str, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from enginekit.cli import parser

    monkeypatch.setenv("COLUMNS", columns)

    def no_terminal(*_: object) -> os.terminal_size:
        raise OSError("no terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert parser._Formatter("enginekit")._width == width
    assert shutil.get_terminal_size().columns - 2 == width
    assert parser.build_parser().format_help()
