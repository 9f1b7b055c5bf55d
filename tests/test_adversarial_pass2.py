"""Adversarial pass 2: hostile input at every trust boundary, each case asserting the secure outcome.

Surfaces and how many collected cases each has (524 in all;
``pytest --collect-only -q tests/test_adversarial_pass2.py`` counts them):

- ``enginekit run`` options and ``--dry-run`` (in-process ``enginekit.cli.main``, and once as a
  process): 182 cases. Strict numbers for the four waits, key/rank/address carrier variables,
  hostile values in those variables, ``--status-file`` paths, unreadable specs and node
  configs, the key masked in every form. Refused input exits 2 (1 for a rule) with one
  message, never a traceback, never the key, and nothing is started: the node config's sim
  interpreter is a stand-in that writes a marker file if anything ever runs.
- ``enginekit export lws`` / ``enginekit export slurm``: 82 cases. Hostile option values,
  carrier names, the replica's key hidden in a written field or in an option's value.
- Plan reading (``LaunchPlan.from_dict``) and ``Registry.verify_plan``: 91 cases. Wrong
  types, huge values, unicode tricks, masked secrets, mismatched derived fields, things that
  are not plans, and tampered plans that agree with themselves (one finding, fixed: a plan
  with its key on a command line read back).
- ``probe`` / ``help-options`` with stand-in programs on ``PATH``: 36 cases. Key variables
  stripped in every form, the shard's key masked in the programs' output, hostile outputs,
  hangs.
- The simulator's HTTP server on loopback: 44 cases. Bad methods and request lines, wrong
  auth, huge heads, bad lengths, partial and drip-fed requests, traversal, non-UTF-8; every
  answer a 4xx without the key, and the server healthy, without a traceback, after each.
- The plugin boundary (``Registry().add``): 89 cases. Hooks answering garbage, keys in argv,
  names and env, floor variables, huge answers, exceptions, hooks that mutate their inputs.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from enginekit import (
    Command,
    EngineError,
    LaunchPlan,
    PlanMismatch,
    Profile,
    Registry,
    ShardSpec,
    SpecError,
    hookimpl,
    load_spec,
)
from enginekit.base.secrets import leaks
from enginekit.cli import main
from enginekit.placement.builder import CommandBuilder
from enginekit.policy.engine import EnginePolicy
from enginekit_sim.testing import free_port, poll, request

from tests.conftest import EXAMPLES

SIM_SINGLE = str(EXAMPLES / "sim-single.toml")
SIM_WORKER = str(EXAMPLES / "sim-two-node-worker.toml")
SIM_REPLICA = str(EXAMPLES / "replicas" / "sim-two-rank.toml")
SIM_KEY = "sim-demo-key-0123456789abcdef"  # examples/sim-single.toml's
KEY = "ekt.Adv2Q7vXr2Lm9ZpK4wTb8NcYs3Hd"


# ---------------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------------


def no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text
        assert 'File "' not in text, text


def key_forms(key: str) -> list[str]:
    """The forms the masking promises to catch, as a reader would search for them."""
    raw = key.encode()
    return [
        key,
        key.upper(),
        key.lower(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
        urllib.parse.quote(key, safe=""),
    ]


def assert_no_key(text: str, key: str = KEY) -> None:
    for form in key_forms(key):
        assert form not in text, f"a form of the key ({form[:4]}…) is in: {text[:500]}"
    assert not leaks(text, key), text[:500]


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A node config whose sim interpreter is a stand-in that leaves a marker when anything runs."""
    root = tmp_path_factory.mktemp("standin")
    marker = root / "marker"
    program = root / "fakepy"
    program.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\nexit 3\n')
    program.chmod(0o755)
    config = root / "node.toml"
    config.write_text(f"[engines.sim]\npython = {json.dumps(str(program))}\n")
    return config, marker


def cli(capsys: pytest.CaptureFixture[str], argv: list[str], environ: dict[str, str]) -> tuple[int, str, str]:
    code = main(argv, environ)
    out, err = capsys.readouterr()
    no_traceback(out, err)
    return code, out, err


# ---------------------------------------------------------------------------------------------
# Surface 1: enginekit run
# ---------------------------------------------------------------------------------------------

TIMING_OPTIONS = ["--leader-timeout", "--startup-timeout", "--stop-grace", "--leader-gone-grace"]
BAD_SECONDS = [
    "1_0",
    "\u0661\u0660",  # Arabic-Indic ten
    " 10",
    "10 ",
    "1e3",
    "+10",
    "inf",
    "nan",
    "-1",
    "0",
    "0.0",
    "86400.5",
    "9" * 40,
    "0x10",
    "\uff11\uff10",  # fullwidth ten
]


@pytest.mark.parametrize("value", BAD_SECONDS)
@pytest.mark.parametrize("option", TIMING_OPTIONS)
def test_run_refuses_a_wait_not_in_plain_digits_and_starts_nothing(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], option: str, value: str
) -> None:
    config, marker = stand_in
    code, out, err = cli(capsys, ["run", SIM_SINGLE, "--config", str(config), option, value], {})
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith(f"enginekit run: error: argument {option}: ")
    assert not marker.exists()


KEY_CARRIERS_REFUSED = [
    "A-B",
    "1X",
    "A B",
    "PATH",
    "LD_PRELOAD",
    "PYTHONPATH",
    "SLURM_JOB_ID",
    "SBATCH_ACCOUNT",
    "PMI_RANK",
    "OMPI_COMM_WORLD_RANK",
    "LWS_LEADER_ADDRESS",
    "KUBERNETES_SERVICE_HOST",
    "lower_key",
    "BASH_ENV",
    "IFS",
    "ENGINEKIT_CONFIG",
    "KEY\u0130",  # dotted capital I: upper() of nothing ASCII
    "K\u212a",  # Kelvin sign, which lower()s to 'k'
]


@pytest.mark.parametrize("name", KEY_CARRIERS_REFUSED)
def test_run_refuses_a_key_variable_anybody_else_writes(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], name: str
) -> None:
    config, marker = stand_in
    argv = ["run", SIM_SINGLE, "--config", str(config), "--api-key-from-env", name]
    code, out, err = cli(capsys, argv, {name: KEY})
    assert (code, out) == (2, "")
    assert "argument --api-key-from-env: " in err
    assert_no_key(err)
    assert not marker.exists()


FIELD_CARRIERS_REFUSED = [
    "A-B",
    "PATH",
    "LD_LIBRARY_PATH",
    "PYTHONHOME",
    "LC_ALL",
    "HOME",
    "ENGINEKIT_CONFIG",
]


@pytest.mark.parametrize("name", FIELD_CARRIERS_REFUSED)
@pytest.mark.parametrize("option", ["--rank-from-env", "--leader-addr-from-env", "--bind-addr-from-env"])
def test_run_refuses_a_field_variable_the_shell_or_runtime_reads(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], option: str, name: str
) -> None:
    config, marker = stand_in
    code, out, err = cli(capsys, ["run", SIM_WORKER, "--config", str(config), option, name], {name: "1"})
    assert (code, out) == (2, "")
    assert f"argument {option}: " in err
    assert not marker.exists()


BAD_KEYS = {
    "short": "short-key-1234",
    "space": "key with spaces 0123456789",
    "dash": "-key-0123456789abcdefgh",
    "cyrillic": "\u043a\u043b\u044e\u0447" * 6,
    "dollar": "$(id)-0123456789abcdefgh",
    "newline": "key-0123456789\nabcdefgh",
    "quote": "key-0123456789'abcdefgh",
    "huge": "k" * 4097,
    "nul": "key-0123456789\x00abcdefgh",
}


@pytest.mark.parametrize("value", list(BAD_KEYS.values()), ids=list(BAD_KEYS))
def test_run_refuses_an_unusable_key_from_its_variable_without_showing_it(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], value: str
) -> None:
    config, marker = stand_in
    argv = ["run", SIM_SINGLE, "--config", str(config), "--api-key-from-env", "ENGINE_KEY"]
    code, out, err = cli(capsys, argv, {"ENGINE_KEY": value})
    assert (code, out) == (2, "")
    assert err.startswith("enginekit: error: api_key from $ENGINE_KEY: ")
    assert value not in err
    assert value[:12] not in err or len(value) < 12
    assert not marker.exists()


@pytest.mark.parametrize("value", ["01", "-1", "1.0", " 1", "\u0661", "0x1", "9" * 30, "+1", "1\n", "2"])
def test_run_refuses_a_rank_that_is_not_a_plain_decimal_in_range(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], value: str
) -> None:
    config, marker = stand_in
    argv = ["run", SIM_WORKER, "--config", str(config), "--rank-from-env", "IDX"]
    code, out, err = cli(capsys, argv, {"IDX": value})
    assert (code, out) == (2, "")
    assert err.startswith("enginekit: error: rank from $IDX: ")
    assert "\n" not in err.rstrip("\n")
    assert not marker.exists()


BAD_ADDRESSES = {
    "short-ipv4": "127.1",
    "decimal-ipv4": "2130706433",
    "space": "a b",
    "dash": "-leader",
    "zone-traversal": "fe80::1%../x",
    "bidi": "lead\u202eer",
    "long": "a" * 300,
    "url": "http://x",
    "bracketed": "[::1]",
    "hex": "0x7f.1",
    "empty": "",
    "zero-width": "lead\u200ber",
}


@pytest.mark.parametrize("value", list(BAD_ADDRESSES.values()), ids=list(BAD_ADDRESSES))
@pytest.mark.parametrize(
    ("option", "field"), [("--leader-addr-from-env", "leader_addr"), ("--bind-addr-from-env", "bind_addr")]
)
def test_run_refuses_an_address_that_is_not_a_host_or_ip(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], option: str, field: str, value: str
) -> None:
    config, marker = stand_in
    argv = ["run", SIM_WORKER, "--config", str(config), option, "ADDR"]
    code, out, err = cli(capsys, argv, {"ADDR": value})
    assert (code, out) == (2, "")
    assert err.startswith("enginekit: error: ")
    assert f"{field} from $ADDR: " in err
    assert "\u202e" not in err
    assert "\u200b" not in err
    assert not marker.exists()


def _status_targets(root: Path) -> dict[str, tuple[str, Path | None]]:
    target = root / "target.json"
    target.write_text("precious")
    (root / "link").symlink_to(target)
    (root / "dangling").symlink_to(root / "nowhere.json")
    (root / "dir").mkdir()
    os.mkfifo(root / "fifo")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with contextlib.suppress(OSError):
        sock.bind(str(root / "sock"))
    sock.close()
    return {
        "symlink": (str(root / "link"), target),
        "dangling-symlink": (str(root / "dangling"), None),
        "directory": (str(root / "dir"), None),
        "dev-null": ("/dev/null", None),
        "fifo": (str(root / "fifo"), None),
        "socket": (str(root / "sock"), None),
        "empty": ("", None),
    }


@pytest.mark.parametrize(
    "which", ["symlink", "dangling-symlink", "directory", "dev-null", "fifo", "socket", "empty"]
)
def test_run_refuses_a_status_file_it_could_not_replace_safely(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], tmp_path: Path, which: str
) -> None:
    config, marker = stand_in
    path, target = _status_targets(tmp_path)[which]
    code, out, err = cli(capsys, ["run", SIM_SINGLE, "--config", str(config), "--status-file", path], {})
    assert (code, out) == (2, "")
    assert "argument --status-file: " in err
    assert not marker.exists()
    if target is not None:
        assert target.read_text() == "precious"
    assert not (tmp_path / "nowhere.json").exists()


def _hostile_spec_files(root: Path) -> dict[str, str]:
    text = (EXAMPLES / "sim-single.toml").read_text()
    files = {
        "nul-bytes": text.replace('name = "tiny-sim"', 'name = "tiny\x00sim"'),
        "deep": "a = " + "[" * 200 + "]" * 200 + "\n",
        "duplicate-table": text + '\n[profile]\nname = "x"\n',
        "unknown-field": text.replace("rank = 0", "rank = 0\nrnak = 1"),
        "rank-as-string": text.replace("rank = 0", 'rank = "0"'),
        "rank-as-bool": text.replace("rank = 0", "rank = true"),
        "port-huge": text.replace("http_port = 8100", "http_port = 99999999999999999999999"),
        "args-as-string": text.replace(
            'args = ["--ttft-ms", "40", "--itl-ms", "10", "--max-num-seqs", "64"]', 'args = "--ttft-ms"'
        ),
        "lookalike-api-key": text.replace("api_key =", "\u0430pi_key ="),
        "bidi-served-name": text.replace('served_model_name = "tiny"', 'served_model_name = "ti\u202eny"'),
    }
    paths = {}
    for name, body in files.items():
        path = root / f"{name}.toml"
        path.write_text(body, encoding="utf-8")
        paths[name] = str(path)
    (root / "latin1.toml").write_bytes(text.encode() + b"\n# caf\xe9\n")
    paths["non-utf8"] = str(root / "latin1.toml")
    (root / "big.toml").write_text("# " + "x" * (1024 * 1024 + 10) + "\n")
    paths["over-1mib"] = str(root / "big.toml")
    (root / "a-dir").mkdir()
    paths["directory"] = str(root / "a-dir")
    os.mkfifo(root / "spec-fifo")
    paths["fifo"] = str(root / "spec-fifo")
    paths["dev-zero"] = "/dev/zero"
    paths["missing"] = str(root / "missing.toml")
    return paths


SPEC_FILES = [
    "nul-bytes",
    "deep",
    "duplicate-table",
    "unknown-field",
    "rank-as-string",
    "rank-as-bool",
    "port-huge",
    "args-as-string",
    "lookalike-api-key",
    "bidi-served-name",
    "non-utf8",
    "over-1mib",
    "directory",
    "fifo",
    "dev-zero",
    "missing",
]


@pytest.mark.parametrize("which", SPEC_FILES)
def test_run_refuses_an_unusable_spec_with_one_message(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], tmp_path: Path, which: str
) -> None:
    config, marker = stand_in
    path = _hostile_spec_files(tmp_path)[which]
    code, out, err = cli(capsys, ["run", path, "--config", str(config)], {})
    assert code in (1, 2)
    assert out == ""
    assert err.startswith(("enginekit: error: ", "enginekit: invalid: "))
    assert "\u202e" not in err
    assert "\x00" not in err
    assert not marker.exists()


@pytest.mark.parametrize(
    "body",
    [
        "[engines.sim]\npython = 5\n",
        "[engines]\nsim = 1\n",
        "[run]\nstop_grace = inf\n",
        "[run]\nstop_grace = 1e400\n",
        "[run]\nleader_timeout = 86401\n",
        '[engines.sim]\npython = "relative/python"\n',
    ],
    ids=["python-int", "section-int", "grace-inf", "grace-overflow", "timeout-over-a-day", "relative-python"],
)
def test_run_refuses_a_hostile_node_config(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], tmp_path: Path, body: str
) -> None:
    _, marker = stand_in
    config = tmp_path / "node.toml"
    config.write_text(body)
    code, out, err = cli(capsys, ["run", SIM_SINGLE, "--config", str(config)], {})
    assert code == 2
    assert out == ""
    assert err.startswith("enginekit: error: ")
    assert not marker.exists()


@pytest.mark.parametrize("form", ["raw", "upper", "lower"])
def test_dry_run_never_shows_the_key_from_its_variable(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], form: str
) -> None:
    config, marker = stand_in
    key = {"raw": KEY, "upper": KEY.upper(), "lower": KEY.lower()}[form]
    argv = ["run", SIM_SINGLE, "--config", str(config), "--dry-run", "--api-key-from-env", "ENGINE_KEY"]
    code, out, err = cli(capsys, argv, {"ENGINE_KEY": key})
    assert code == 0
    assert "nothing was started (--dry-run)" in out
    assert "less $ENGINE_KEY" in out
    assert_no_key(out + err, key)
    assert not marker.exists()


def test_dry_run_with_the_spec_key_pasted_into_the_model_path_names_the_field(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], tmp_path: Path
) -> None:
    config, marker = stand_in
    spec = tmp_path / "spec.toml"
    spec.write_text(
        (EXAMPLES / "sim-single.toml")
        .read_text()
        .replace('model_path = "/models/tiny-llama"', f'model_path = "/models/{SIM_KEY.upper()}"')
    )
    code, out, err = cli(capsys, ["run", str(spec), "--config", str(config), "--dry-run"], {})
    assert (code, out) == (2, "")
    assert "profile.model_path holds the API key" in err
    assert_no_key(err, SIM_KEY)
    assert not marker.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["--dry-run=1"],
        ["--gpus", "/nonexistent/gpus.json"],
        ["--gpus", "/dev/zero"],
        ["--rank-from-env"],
        ["--bogus"],
        ["--status-file", "/proc/self/fd/0"],
    ],
    ids=["dry-run-value", "gpus-missing", "gpus-device", "option-without-value", "unknown-option", "proc-fd"],
)
def test_run_refuses_malformed_options(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], argv: list[str]
) -> None:
    config, marker = stand_in
    code, out, err = cli(capsys, ["run", SIM_SINGLE, "--config", str(config), *argv], {})
    assert code == 2
    assert out == ""
    assert err.strip()
    assert not marker.exists()


def test_run_as_a_process_prints_no_traceback_for_a_hostile_variable(stand_in: tuple[Path, Path]) -> None:
    config, marker = stand_in
    argv = [sys.executable, "-m", "enginekit", "run", SIM_SINGLE, "--config", str(config)]
    argv += ["--api-key-from-env", "ENGINE_KEY", "--stop-grace", "inf"]
    result = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=60,
        env={"ENGINE_KEY": KEY, "PATH": "/usr/bin:/bin", "ENGINEKIT_CONFIG": ""},
    )
    assert result.returncode == 2
    assert result.stdout == ""
    no_traceback(result.stderr)
    assert_no_key(result.stderr)
    assert not marker.exists()


# ---------------------------------------------------------------------------------------------
# Surface 2: exports
# ---------------------------------------------------------------------------------------------

LWS_BAD = [
    ("--image", "a b"),
    ("--image", "reg/x:1\n"),
    ("--image", "$(id)"),
    ("--image", ""),
    ("--image", "-rm"),
    ("--image", "reg/x:\u202e1"),
    ("--namespace", "Bad"),
    ("--namespace", "a_b"),
    ("--namespace", "-x"),
    ("--namespace", "a" * 64),
    ("--name", "A"),
    ("--name", "1abc"),
    ("--name", "a" * 60),
    ("--name", "a.b"),
    ("--secret", ""),
    ("--secret", "Bad:key"),
    ("--secret", "a:b:c"),
    ("--rdma-resource", "cpu=1"),
    ("--rdma-resource", "memory=1"),
    ("--rdma-resource", "hugepages-2Mi=1"),
    ("--rdma-resource", "nvidia.com/gpu=1"),
    ("--rdma-resource", "rdma/ib=-1"),
    ("--rdma-resource", "rdma/ib=x"),
    ("--rdma-resource", "noequals"),
    ("--rdma-resource", "kubernetes.io/x=1"),
    ("--node-selector", "=v"),
    ("--node-selector", "a b=c"),
    ("--node-selector", "k=v\n"),
    ("--replicas", "0"),
    ("--replicas", "-1"),
    ("--replicas", "1e3"),
    ("--replicas", "10001"),
    ("--shm-size", "0"),
    ("--shm-size", "-1Gi"),
    ("--shm-size", "abc"),
    ("--startup-timeout", "inf"),
    ("--startup-timeout", "0"),
    ("--startup-timeout", "86401"),
]


@pytest.mark.parametrize(("option", "value"), LWS_BAD)
def test_export_lws_refuses_a_hostile_option(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], option: str, value: str
) -> None:
    config, _ = stand_in
    argv = ["export", "lws", SIM_REPLICA, "--image", "reg.example/x:1", option, value]
    code, out, err = cli(capsys, argv, {"ENGINEKIT_CONFIG": str(config)})
    assert (code, out) == (2, "")
    assert option in err
    assert "\u202e" not in err


SLURM_BAD = [
    ("--partition", "a\nb"),
    ("--partition", "$(id)"),
    ("--partition", "a b"),
    ("--partition", "`x`"),
    ("--time", "$(id)"),
    ("--time", "1;reboot"),
    ("--account", "a'b"),
    ("--api-key-env", "lower"),
    ("--api-key-env", "PATH"),
    ("--api-key-env", "SLURM_JOB_ID"),
    ("--api-key-env", "LD_PRELOAD"),
    ("--api-key-env", "first_node"),
    ("--api-key-env", "A-B"),
    ("--api-key-env", "ENGINEKIT_CONFIG"),
    ("--bind-addr-env", "lower"),
    ("--bind-addr-env", "PATH"),
    ("--bind-addr-env", "BASH_ENV"),
    ("--enginekit", "relative/enginekit"),
    ("--enginekit", "/opt/a b/enginekit"),
    ("--enginekit", "/opt/x\n/enginekit"),
    ("--node-config", "/etc/a\nb"),
    ("--api-key-file", "/etc/$(id)"),
    ("--api-key-file", "/etc/key\n"),
    ("--startup-timeout", "1_0"),
]


@pytest.mark.parametrize(("option", "value"), SLURM_BAD)
def test_export_slurm_refuses_a_hostile_option(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], option: str, value: str
) -> None:
    config, _ = stand_in
    argv = ["export", "slurm", SIM_REPLICA, "--one-node", option, value]
    code, out, err = cli(capsys, argv, {"ENGINEKIT_CONFIG": str(config)})
    assert (code, out) == (2, "")
    assert option in err


REPLICA_KEY = "sk-example-sim-2b7d4f9a1c3e5b8d"  # examples/replicas/sim-two-rank.toml's


@pytest.mark.parametrize(
    ("field", "before", "after"),
    [
        ("pool", 'api_key = "', f'pool = "{REPLICA_KEY}"\napi_key = "'),
        ("model_path", 'model_path = "/models/llama-70b"', f'model_path = "/models/{REPLICA_KEY}"'),
        (
            "served_model_name",
            'served_model_name = "llama-70b"',
            f'served_model_name = "{REPLICA_KEY.upper()}"',
        ),
        ("replica_id", 'replica_id = "sim-two-rank"', f'replica_id = "r-{REPLICA_KEY.lower()}"'),
    ],
    ids=["pool", "model_path", "served_model_name-upper", "replica_id"],
)
@pytest.mark.parametrize("export", ["lws", "slurm"])
def test_export_refuses_a_replica_whose_key_hides_in_a_written_field(
    capsys: pytest.CaptureFixture[str],
    stand_in: tuple[Path, Path],
    tmp_path: Path,
    export: str,
    field: str,
    before: str,
    after: str,
) -> None:
    config, _ = stand_in
    text = Path(SIM_REPLICA).read_text()
    assert before in text
    replica = tmp_path / "replica.toml"
    replica.write_text(text.replace(before, after, 1))
    extra = ["--image", "reg.example/x:1", "--name", "sim"] if export == "lws" else ["--one-node"]
    code, out, err = cli(capsys, ["export", export, str(replica), *extra], {"ENGINEKIT_CONFIG": str(config)})
    assert code in (1, 2)
    assert out == ""
    assert_no_key(out + err, REPLICA_KEY)


@pytest.mark.parametrize("export", ["lws", "slurm"])
def test_export_never_writes_the_replica_key(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], export: str
) -> None:
    config, _ = stand_in
    extra = ["--image", "reg.example/x:1"] if export == "lws" else ["--one-node"]
    code, out, err = cli(capsys, ["export", export, SIM_REPLICA, *extra], {"ENGINEKIT_CONFIG": str(config)})
    assert code == 0
    assert out
    assert_no_key(out + err, REPLICA_KEY)


# ---------------------------------------------------------------------------------------------
# Surface 3: plan reading and verify_plan
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sim_registry() -> Registry:
    import enginekit

    return enginekit.registry_for({"engines": {"sim": {"python": sys.executable}}}, {})


@pytest.fixture(scope="module")
def sim_shard() -> ShardSpec:
    return load_spec(Path(SIM_SINGLE)).spec


@pytest.fixture(scope="module")
def sim_plan(sim_registry: Registry, sim_shard: ShardSpec) -> dict[str, Any]:
    return sim_registry.engine("sim").plan(sim_shard).to_dict(show_secrets=True)


def _reshell(plan: dict[str, Any]) -> None:
    for command in plan["commands"]:
        command["shell"] = shlex.join([command["path"], *command["args"]])


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(plan: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = plan
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    def change(plan: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = plan
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        del node[last]

    return change


HOSTILE_PLANS: dict[str, Callable[[dict[str, Any]], None]] = {
    "version-float": _set("format_version", 1.2),
    "version-major-2": _set("format_version", "2.0"),
    "version-empty": _set("format_version", ""),
    "version-huge": _set("format_version", "1." + "9" * 400),
    "version-fullwidth": _set("format_version", "\uff11.2"),
    "engine-other": _set("engine", "vllm"),
    "engine-int": _set("engine", 5),
    "engine-lookalike": _set("engine", "s\u0456m"),
    "rank-derived": _set("rank", 1),
    "nnodes-derived": _set("nnodes", 2),
    "replica-derived": _set("replica_id", "other"),
    "shard-id-derived": _set("shard_id", "other"),
    "profile-derived": _set("profile", "other"),
    "base-url-derived": _set("base_url", "http://evil.example:8100"),
    "health-url-derived": _set("health_url", "http://127.0.0.1:8100/other"),
    "metrics-url-null": _set("metrics_url", None),
    "health-path-relative": _set("health_path", "health"),
    "health-path-newline": _set("health_path", "/health\nX: y"),
    "metrics-path-int": _set("metrics_path", 7),
    "serves-http-string": _set("serves_http", "yes"),
    "serves-http-int": _set("serves_http", 1),
    "leader-exit-bogus": _set("on_leader_exit", "sometimes"),
    "watch-port-huge": _set("leader_watch_port", 70000),
    "watch-port-bool": _set("leader_watch_port", True),
    "notes-string": _set("notes", "a note"),
    "notes-bidi": _set("notes", ["a \u202e note"]),
    "dropped-env-string": _set("dropped_env", "NCCL_ALGO"),
    "unknown-field": _set("extra", 1),
    "shard-not-table": _set("shard", []),
    "shard-unknown-field": _set("shard.rnak", 0),
    "shard-port-huge": _set("shard.http_port", 2**70),
    "shard-port-zero": _set("shard.http_port", 0),
    "shard-port-float": _set("shard.http_port", 8100.0),
    "shard-port-bool": _set("shard.http_port", True),
    "shard-port-string": _set("shard.http_port", "8100"),
    "shard-rank-negative": _set("shard.rank", -1),
    "shard-gpus-string": _set("shard.gpu_indices", "0"),
    "shard-bind-short-ipv4": _set("shard.bind_addr", "127.1"),
    "shard-bind-zero-width": _set("shard.bind_addr", "127.0.0.\u200b1"),
    "key-masked": _set("shard.api_key", "<secret>"),
    "key-int": _set("shard.api_key", 12345678901234567890),
    "key-list": _set("shard.api_key", [SIM_KEY]),
    "env-key-masked": _set("commands.0.env.ENGINEKIT_API_KEY", "<secret>"),
    "commands-empty": _set("commands", []),
    "commands-table": _set("commands", {}),
    "command-path-empty": _set("commands.0.path", ""),
    "command-path-nul": _set("commands.0.path", "/bin/x\x00y"),
    "command-args-string": _set("commands.0.args", "--port 1"),
    "command-args-int": _set("commands.0.args", [1, 2]),
    "command-shell-forged": _set("commands.0.shell", "rm -rf /"),
    "command-env-bad-name": _set("commands.0.env", {"A-B": "1", "ENGINEKIT_API_KEY": SIM_KEY}),
    "command-env-value-int": _set("commands.0.env.NCCL_IB_DISABLE", 1),
    "command-env-value-newline": _set("commands.0.env.NCCL_IB_DISABLE", "1\nX=2"),
    "command-secret-env-unset": _set("commands.0.secret_env", ["NOPE"]),
    "command-wait-string": _set("commands.0.wait_for_leader_port", "false"),
    "command-unknown-field": _set("commands.0.stdin", "x"),
    "profile-tp-huge": _set("shard.profile.tp", 2**63),
    "profile-args-string": _set("shard.profile.args", "--ttft-ms"),
    "profile-env-bidi": _set("shard.profile.env", {"NCCL_DEBUG": "IN\u2066FO"}),
    "format-version-dropped": _drop("format_version"),
    "shard-dropped": _drop("shard"),
}


@pytest.mark.parametrize("change", list(HOSTILE_PLANS.values()), ids=list(HOSTILE_PLANS))
def test_from_dict_refuses_a_hostile_plan_with_a_spec_error(
    sim_plan: dict[str, Any], change: Callable[[dict[str, Any]], None]
) -> None:
    plan = json.loads(json.dumps(sim_plan))
    change(plan)
    with pytest.raises(SpecError) as caught:
        LaunchPlan.from_dict(plan)
    message = str(caught.value)
    assert message.startswith("plan")
    assert_no_key(message, SIM_KEY)
    for char in ("\u202e", "\u200b", "\u2066", "\x00"):
        assert char not in message


def test_from_dict_refuses_a_plan_with_the_key_on_its_command_line(sim_plan: dict[str, Any]) -> None:
    # This pass's one finding, fixed: from_dict accepted it once ``shell`` was recomputed.
    plan = json.loads(json.dumps(sim_plan))
    plan["commands"][0]["args"] += ["--api-key", SIM_KEY]
    _reshell(plan)
    with pytest.raises(SpecError, match=r"plan\.commands\[0\]: its path or args hold the API key"):
        LaunchPlan.from_dict(plan)


def _tamper_args(extra: list[str]) -> Callable[[dict[str, Any]], None]:
    def change(plan: dict[str, Any]) -> None:
        plan["commands"][0]["args"] += extra
        _reshell(plan)

    return change


def _tamper_path(path: str) -> Callable[[dict[str, Any]], None]:
    def change(plan: dict[str, Any]) -> None:
        plan["commands"][0]["path"] = path
        _reshell(plan)

    return change


def _tamper_second_command(plan: dict[str, Any]) -> None:
    plan["commands"].insert(0, dict(plan["commands"][0], name="sidecar", path="/bin/sh", args=["-c", "id"]))
    _reshell(plan)


TAMPERED: dict[str, Callable[[dict[str, Any]], None]] = {
    "key-in-argv": _tamper_args(["--api-key", SIM_KEY]),
    "extra-flag": _tamper_args(["--trust-remote-code"]),
    "path": _tamper_path("/tmp/evil-python"),
    "sidecar": _tamper_second_command,
    "preload": _set("commands.0.env.LD_PRELOAD", "/tmp/x.so"),
    "secret-env-dropped": _set("commands.0.secret_env", []),
    "key-copied-into-env": _set("commands.0.env.NCCL_DEBUG", SIM_KEY),
    "cuda-visible": _set("commands.0.env.CUDA_VISIBLE_DEVICES", "0,1,2,3"),
    "wait-flag": _set("commands.0.wait_for_leader_port", True),
    "notes": _set("notes", []),
    "serves-http": _set("serves_http", False),
    # LaunchPlan.from_dict takes these as the writer built them (docs/plan-format.md); the
    # receiver's own plan of the shard it expected does not.
    "gpu-out-of-bounds": _set("shard.gpu_indices", [70000]),
    "gpu-twice": _set("shard.gpu_indices", [0, 0]),
    "short-key": _set("shard.api_key", "short"),
}


@pytest.mark.parametrize("change", list(TAMPERED.values()), ids=list(TAMPERED))
def test_verify_plan_names_a_tampered_command_and_never_shows_the_key(
    sim_registry: Registry,
    sim_shard: ShardSpec,
    sim_plan: dict[str, Any],
    change: Callable[[dict[str, Any]], None],
) -> None:
    plan = json.loads(json.dumps(sim_plan))
    change(plan)
    with pytest.raises((PlanMismatch, SpecError)) as caught:
        sim_registry.verify_plan(plan, sim_shard)
    if isinstance(caught.value, PlanMismatch):
        assert caught.value.problems
        assert all(problem.startswith("plan.") for problem in caught.value.problems)
    assert_no_key(str(caught.value), SIM_KEY)


@pytest.mark.parametrize(
    "changes",
    [
        {"api_key": "ekt.attacker-0000000000000000"},
        {"bind_addr": "0.0.0.0"},
        {"gpu_indices": (1,)},
        {"http_port": 9999},
    ],
    ids=["key", "bind", "gpus", "port"],
)
def test_verify_plan_refuses_a_self_consistent_plan_for_another_shard(
    sim_registry: Registry, sim_shard: ShardSpec, changes: dict[str, Any]
) -> None:
    rewritten = sim_registry.engine("sim").plan(attrs.evolve(sim_shard, **changes))
    with pytest.raises(PlanMismatch) as caught:
        sim_registry.verify_plan(rewritten.to_dict(show_secrets=True), sim_shard)
    text = "\n".join(caught.value.problems)
    assert_no_key(text, SIM_KEY)
    assert "ekt.attacker-0000000000000000" not in text


def test_verify_plan_refuses_a_masked_plan(
    sim_registry: Registry, sim_shard: ShardSpec, sim_plan: dict[str, Any]
) -> None:
    masked = sim_registry.engine("sim").plan(sim_shard).to_dict()
    with pytest.raises(SpecError, match="show_secrets"):
        sim_registry.verify_plan(masked, sim_shard)


# ---------------------------------------------------------------------------------------------
# Surface 4: probe and help-options
# ---------------------------------------------------------------------------------------------

LLAMA_GPU = str(EXAMPLES / "llamacpp-gpu.toml")


def _program(root: Path, body: str) -> dict[str, str]:
    program = root / "llama-server"
    program.write_text("#!/bin/sh\n" + body)
    program.chmod(0o755)
    return {"PATH": f"{root}:/usr/bin:/bin", "ENGINEKIT_CONFIG": ""}


@pytest.fixture(scope="module")
def llama_key() -> str:
    return load_spec(Path(LLAMA_GPU)).spec.api_key


def _carriers(key: str) -> dict[str, str]:
    raw = key.encode()
    return {
        "VLLM_API_KEY": "vllm-inherited-0123456789",
        "LLAMA_API_KEY": "llama-inherited-0123456789",
        "ENGINEKIT_API_KEY": "enginekit-inherited-0123456789",
        "MY_UPPER": key.upper(),
        "MY_B64": base64.b64encode(raw).decode(),
        "MY_B64URL": base64.urlsafe_b64encode(b"x" + raw).decode(),
        "MY_QUOTED": urllib.parse.quote(key, safe=""),
        "MY_RUN": "prefix" + key[2:16] + "suffix",
    }


@pytest.mark.parametrize("command", ["probe", "help-options"])
@pytest.mark.parametrize(
    "name",
    [
        "VLLM_API_KEY",
        "LLAMA_API_KEY",
        "ENGINEKIT_API_KEY",
        "MY_UPPER",
        "MY_B64",
        "MY_B64URL",
        "MY_QUOTED",
        "MY_RUN",
    ],
)
def test_probe_programs_never_inherit_a_key_in_any_form(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, llama_key: str, command: str, name: str
) -> None:
    environ = _program(tmp_path, "env\nenv >&2\nexit 3\n")
    value = _carriers(llama_key)[name]
    environ[name] = value
    code = main([command, LLAMA_GPU], environ)
    out, err = capsys.readouterr()
    no_traceback(err)
    assert code in (0, 2)
    assert "PATH=" in out + err  # the program ran and printed its environment
    assert f"{name}=" not in out + err
    assert value not in out + err


@pytest.mark.parametrize(
    ("body", "codes"),
    [
        ("head -c 5000000 /dev/zero | tr '\\0' 'x'\nexit 3\n", (2,)),
        ("printf '\\377\\376\\001\\033[31mred\\n'\nexit 3\n", (2,)),
        ("printf '\\342\\200\\256evil\\n' >&2\nexit 3\n", (2,)),
        ("exec sleep 30\n", (2,)),
    ],
    ids=["huge-output", "binary-output", "bidi-stderr", "hang"],
)
def test_probe_survives_a_hostile_listing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: str, codes: tuple[int, ...]
) -> None:
    environ = _program(tmp_path, body)
    started = time.monotonic()
    code = main(["probe", LLAMA_GPU, "--timeout", "2"], environ)
    _out, err = capsys.readouterr()
    no_traceback(err)
    assert code in codes
    assert time.monotonic() - started < 30
    assert "\u202e" not in err
    assert "\x1b" not in err
    assert len(err) < 200_000


# ---------------------------------------------------------------------------------------------
# Surface 5: the simulator's HTTP server
# ---------------------------------------------------------------------------------------------

SERVER_KEY = "adv-sim-key-0a1b2c3d4e5f6a7b"


class SimServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        argv = [sys.executable, "-m", "enginekit_sim", "serve", "/models/tiny"]
        argv += ["--served-model-name", "tiny", "--host", "127.0.0.1", "--port", str(self.port)]
        argv += ["--startup-seconds", "0", "--ttft-ms", "1", "--itl-ms", "1", "--max-body-bytes", "65536"]
        self.popen = subprocess.Popen(
            argv,
            env={"ENGINEKIT_API_KEY": SERVER_KEY, "PATH": "/usr/bin:/bin"},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        poll(self.url + "/health", lambda s: s == 200, timeout=20)

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def check_clean(self) -> None:
        assert request(self.url + "/health", timeout=3)[0] == 200
        out = self.output()
        assert "Traceback" not in out, out
        assert "error answering" not in out, out
        assert SERVER_KEY not in out

    def close(self) -> None:
        self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5)
        self.log.close()


@pytest.fixture(scope="module")
def sim_server() -> Iterator[SimServer]:
    server = SimServer()
    yield server
    server.close()


def exchange(port: int, data: bytes, timeout: float = 4.0) -> bytes:
    """Send ``data`` and read until the server closes or ``timeout`` passes."""
    out = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            sock.sendall(data)
        deadline = time.monotonic() + timeout
        with contextlib.suppress(TimeoutError, ConnectionResetError):
            while time.monotonic() < deadline:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                out += chunk
    return out


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer[9:12])


def head(method: bytes, path: bytes, *fields: bytes, body: bytes = b"") -> bytes:
    lines = [method + b" " + path + b" HTTP/1.1", b"Host: 127.0.0.1", *fields, b"Connection: close"]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


@pytest.mark.parametrize(
    ("request_bytes", "statuses"),
    [
        (head(b"DELETE", b"/v1/models"), {401, 404, 405}),
        (head(b"PUT", b"/health"), {405}),
        (head(b"PATCH", b"/health"), {405}),
        (head(b"TRACE", b"/health"), {405}),
        (head(b"OPTIONS", b"/v1/models"), {401, 404, 405}),
        (head(b"CONNECT", b"127.0.0.1:22"), {400, 405}),
        (head(b"G\x00T", b"/health"), {400}),
        (head(b"get", b"/health"), {400, 405}),
        (head(b"X" * 5000, b"/health"), {400, 405, 431}),
        (b"GET /v1/models\r\n\r\n", {400, 401}),
        (b"GET /health HTTP/9.9\r\nHost: x\r\n\r\n", {400, 505}),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40, {400}),
    ],
    ids=[
        "delete",
        "put",
        "patch",
        "trace",
        "options",
        "connect",
        "nul-method",
        "lower-method",
        "huge-method",
        "http-0.9",
        "http-9.9",
        "tls-hello",
    ],
)
def test_sim_refuses_a_bad_method_or_request_line(
    sim_server: SimServer, request_bytes: bytes, statuses: set[int]
) -> None:
    answer = exchange(sim_server.port, request_bytes)
    assert status_of(answer) in statuses
    assert SERVER_KEY.encode() not in answer
    sim_server.check_clean()


WRONG_AUTH = {
    "none": [],
    "basic": [b"Authorization: Basic " + base64.b64encode(b"u:" + SERVER_KEY.encode())],
    "upper": [b"Authorization: Bearer " + SERVER_KEY.upper().encode()],
    "prefix": [b"Authorization: Bearer " + SERVER_KEY[:-1].encode()],
    "suffix": [b"Authorization: Bearer " + SERVER_KEY.encode() + b"x"],
    "no-scheme": [b"Authorization: " + SERVER_KEY.encode()],
    "empty": [b"Authorization: Bearer "],
    "non-utf8": [b"Authorization: Bearer \xff\xfe" + SERVER_KEY.encode()],
    "nul": [b"Authorization: Bearer " + SERVER_KEY.encode()[:5] + b"\x00" + SERVER_KEY.encode()[5:]],
    "wrong-then-right": [
        b"Authorization: Bearer wrong-key-0000000000000",
        b"Authorization: Bearer " + SERVER_KEY.encode(),
    ],
    "query-string": [],
    "x-api-key": [b"X-Api-Key: " + SERVER_KEY.encode()],
}


@pytest.mark.parametrize("fields", list(WRONG_AUTH.values()), ids=list(WRONG_AUTH))
def test_sim_refuses_wrong_auth_without_echoing_it(sim_server: SimServer, fields: list[bytes]) -> None:
    path = b"/v1/models?api_key=" + SERVER_KEY.encode() if not fields else b"/v1/models"
    answer = exchange(sim_server.port, head(b"GET", path, *fields))
    assert status_of(answer) in {400, 401}
    assert SERVER_KEY.encode() not in answer
    assert SERVER_KEY.upper().encode() not in answer
    sim_server.check_clean()


@pytest.mark.parametrize(
    "path",
    [
        b"/../../etc/passwd",
        b"/v1/../../etc/passwd",
        b"/%2e%2e/%2e%2e/etc/passwd",
        b"//etc/passwd",
        b"/v1/models/../../../etc/shadow",
        b"/\xff\xfe",
        b"/health%00.json",
        b"http://evil.example/health/../etc/passwd",
    ],
    ids=["dotdot", "v1-dotdot", "encoded", "double-slash", "deep", "non-utf8", "nul-encoded", "absolute"],
)
def test_sim_never_serves_a_file_for_a_traversal(sim_server: SimServer, path: bytes) -> None:
    answer = exchange(sim_server.port, head(b"GET", path))
    assert status_of(answer) in {400, 401, 404}
    assert b"root:" not in answer
    sim_server.check_clean()


@pytest.mark.parametrize(
    ("request_bytes", "statuses"),
    [
        (head(b"GET", b"/health", *(b"X-F-%d: 1" % i for i in range(300))), {431}),
        (head(b"GET", b"/health", b"X-Big: " + b"a" * 70000), {431}),
        (head(b"POST", b"/v1/completions", b"Content-Length: -1"), {400, 401}),
        (head(b"POST", b"/v1/completions", b"Content-Length: abc"), {400, 401}),
        (head(b"POST", b"/v1/completions", b"Content-Length: 1", b"Content-Length: 2"), {400, 401}),
        (
            head(
                b"POST",
                b"/v1/completions",
                b"Authorization: Bearer " + SERVER_KEY.encode(),
                b"Content-Length: 99999999999999999999",
            ),
            {400, 413},
        ),
        (
            head(
                b"POST",
                b"/v1/completions",
                b"Authorization: Bearer " + SERVER_KEY.encode(),
                b"Content-Type: application/json",
                b"Content-Length: 6",
                body=b"\xff\xfe\xfd{}}",
            ),
            {400},
        ),
        (
            head(
                b"POST",
                b"/v1/completions",
                b"Authorization: Bearer " + SERVER_KEY.encode(),
                b"Transfer-Encoding: chunked",
                b"Content-Length: 3",
                body=b"0\r\n\r\n",
            ),
            {400},
        ),
    ],
    ids=[
        "300-fields",
        "70k-field",
        "negative-length",
        "text-length",
        "two-lengths",
        "huge-length",
        "non-utf8-body",
        "te-and-cl",
    ],
)
def test_sim_refuses_a_malformed_head_or_body(
    sim_server: SimServer, request_bytes: bytes, statuses: set[int]
) -> None:
    answer = exchange(sim_server.port, request_bytes)
    assert status_of(answer) in statuses
    assert SERVER_KEY.encode() not in answer
    sim_server.check_clean()


def test_sim_keeps_answering_while_many_partial_requests_stall(sim_server: SimServer) -> None:
    stalled: list[socket.socket] = []
    try:
        for i in range(40):
            sock = socket.create_connection(("127.0.0.1", sim_server.port), timeout=3)
            sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"[: 10 + i])
            stalled.append(sock)
        started = time.monotonic()
        assert request(sim_server.url + "/health", timeout=3)[0] == 200
        assert time.monotonic() - started < 3
    finally:
        for sock in stalled:
            sock.close()
    sim_server.check_clean()


def test_sim_answers_a_stalled_body_without_the_key_by_refusing_it_at_once(sim_server: SimServer) -> None:
    data = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"
    started = time.monotonic()
    answer = exchange(sim_server.port, data, timeout=3)
    assert status_of(answer) == 401
    assert time.monotonic() - started < 3
    sim_server.check_clean()


def test_sim_drip_fed_header_bytes_do_not_block_others(sim_server: SimServer) -> None:
    with socket.create_connection(("127.0.0.1", sim_server.port), timeout=3) as sock:
        for byte in b"GET /health HTTP/1.1\r\nHost: ":
            sock.sendall(bytes([byte]))
            time.sleep(0.005)
        assert request(sim_server.url + "/health", timeout=2)[0] == 200
    sim_server.check_clean()


def test_sim_refuses_a_key_in_the_wrong_case_for_every_v1_path(sim_server: SimServer) -> None:
    for path in ("/v1/models", "/v1/completions", "/v1/chat/completions", "/v1/load_lora_adapter"):
        status, body = request(sim_server.url + path, {"prompt": "x"}, key=SERVER_KEY.upper(), timeout=3)
        assert status == 401, path
        assert SERVER_KEY.upper().encode() not in body
    sim_server.check_clean()


# ---------------------------------------------------------------------------------------------
# Surface 6: the plugin boundary
# ---------------------------------------------------------------------------------------------

SECRET_VAR = "HOSTILE_API_KEY"
NOT_GIVEN = object()


class Hostile:
    """An engine whose hooks answer what a test sets, or raise it, or run it."""

    def __init__(self, **answers: Any) -> None:
        self.answers = answers
        self.seen: dict[str, Any] = {}

    def _answer(self, hook: str, default: Callable[[], Any], *inputs: Any) -> Any:
        answer = self.answers.get(hook, NOT_GIVEN)
        if answer is NOT_GIVEN:
            return default()
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return answer(*inputs)
        return answer

    @hookimpl
    def policy(self) -> Any:
        return self._answer("policy", lambda: EnginePolicy(secret_env=frozenset({SECRET_VAR})))

    @hookimpl
    def validate(self, profile: Profile, args: Any) -> Any:
        self.seen.setdefault("args", []).append(args)
        return self._answer("validate", list, profile, args)

    @hookimpl
    def commands(self, shard: ShardSpec) -> Any:
        return self._answer("commands", lambda: [_good(shard)], shard)

    @hookimpl
    def serves_http(self, shard: ShardSpec) -> Any:
        return self._answer("serves_http", lambda: True, shard)

    @hookimpl
    def health_path(self) -> Any:
        return self._answer("health_path", lambda: "/health")

    @hookimpl
    def metrics_path(self) -> Any:
        return self._answer("metrics_path", lambda: "/metrics")

    @hookimpl
    def notes(self, shard: ShardSpec) -> Any:
        return self._answer("notes", list, shard)

    @hookimpl
    def unavailable(self) -> Any:
        return self._answer("unavailable", lambda: None)


def _good(shard: ShardSpec, *args: str, env: dict[str, str] | None = None, secret: bool = True) -> Command:
    builder = CommandBuilder(shard)
    if secret:
        builder.put_secret(SECRET_VAR, shard.api_key)
    for name, value in (env or {}).items():
        builder.put(name, value, "test")
    return builder.command("/usr/bin/hostile", ["--port", str(shard.http_port), *args])


def hostile_shard(**changes: Any) -> ShardSpec:
    profile = Profile(name="p", engine="hostile", model_path="/models/m", served_model_name="m")
    fields: dict[str, Any] = {
        "replica_id": "r1",
        "shard_id": "r1-0",
        "gpu_indices": (0,),
        "http_port": 8000,
        "bind_addr": "10.0.0.5",
        "api_key": KEY,
        "profile": profile,
    }
    return ShardSpec(**(fields | changes))


def plan_with(**answers: Any) -> LaunchPlan:
    registry = Registry()
    registry.add(Hostile(**answers), name="hostile")
    return registry.engine("hostile").plan(hostile_shard())


def refused(**answers: Any) -> str:
    with pytest.raises((EngineError, SpecError)) as caught:
        plan_with(**answers)
    message = str(caught.value)
    assert_no_key(message)
    no_traceback(message)
    assert len(message) < 20_000
    return message


def _gen(shard: ShardSpec) -> Iterator[Command]:
    yield _good(shard)


def _replace(command: Command, **changes: Any) -> Command:
    return attrs.evolve(command, **changes)


b64 = base64.b64encode(KEY.encode()).decode()
COMMAND_ANSWERS: dict[str, Any] = {
    "empty-list": [],
    "string": "/usr/bin/hostile --port 8000",
    "generator": _gen,
    "list-of-int": [1],
    "list-of-dict": [{"path": "/usr/bin/x"}],
    "key-in-argv": lambda shard: [_good(shard, "--api-key", shard.api_key)],
    "key-upper-in-argv": lambda shard: [_good(shard, shard.api_key.upper())],
    "key-base64-in-argv": lambda shard: [_good(shard, "--auth=" + b64)],
    "key-urlencoded-in-argv": lambda shard: [
        _good(shard, "http://x/?k=" + urllib.parse.quote(shard.api_key, safe=""))
    ],
    "key-run-in-argv": lambda shard: [_good(shard, "x" + shard.api_key[3:17] + "y")],
    "key-in-path": lambda shard: [_replace(_good(shard), path="/opt/" + shard.api_key)],
    "key-in-plain-env": lambda shard: [_good(shard, env={"HOSTILE_LOG": shard.api_key})],
    "key-lower-in-plain-env": lambda shard: [_good(shard, env={"HOSTILE_LOG": shard.api_key.lower()})],
    "undeclared-secret": lambda shard: [
        _replace(
            _good(shard, env={"OTHER_API_KEY": shard.api_key}),
            secret_env=frozenset({SECRET_VAR, "OTHER_API_KEY"}),
        )
    ],
    "secret-env-unset": lambda shard: [_replace(_good(shard), secret_env=frozenset({SECRET_VAR, "NOPE"}))],
    "ld-preload": lambda shard: [_good(shard, env={"LD_PRELOAD": "/tmp/x.so"})],
    "pythonpath": lambda shard: [_good(shard, env={"PYTHONPATH": "/tmp"})],
    "bash-func": lambda shard: [_good(shard, env={"BASH_FUNC_x%%": "() { id; }"})],
    "env-bad-name": lambda shard: [_good(shard, env={"A-B": "1"})],
    "env-value-newline": lambda shard: [_good(shard, env={"HOSTILE_X": "1\nB=2"})],
    "rocr-visible": lambda shard: [_good(shard, env={"ROCR_VISIBLE_DEVICES": "0"})],
    "cuda-visible-changed": lambda shard: [_good(shard, env={"CUDA_VISIBLE_DEVICES": "0,1,2,3"})],
    "cuda-visible-dropped": lambda shard: [
        _replace(_good(shard), env={k: v for k, v in _good(shard).env.items() if k != "CUDA_VISIBLE_DEVICES"})
    ],
    "path-empty": lambda shard: [_replace(_good(shard), path="")],
    "path-nul": lambda shard: [_replace(_good(shard), path="/usr/bin/x\x00y")],
    "arg-bidi": lambda shard: [_good(shard, "a\u202eb")],
    "arg-newline": lambda shard: [_good(shard, "a\nb")],
    "arg-zero-width": lambda shard: [_good(shard, "a\u200bb")],
    "arg-lone-surrogate": lambda shard: [_good(shard, "a\ud800b")],
    "arg-c1": lambda shard: [_good(shard, "a\x9bb")],
    "arg-bytes": lambda shard: [_replace(_good(shard), args=(b"--port",))],
    "arg-int": lambda shard: [_replace(_good(shard), args=(8000,))],
}


@pytest.mark.parametrize("answer", list(COMMAND_ANSWERS.values()), ids=list(COMMAND_ANSWERS))
def test_a_plugin_commands_answer_that_breaks_the_contract_is_refused(answer: Any) -> None:
    refused(commands=answer)


RAISED: dict[str, BaseException] = {
    "value-error-with-key": ValueError("boom " + KEY),
    "key-error-upper": KeyError(KEY.upper()),
    "system-exit-0": SystemExit(0),
    "system-exit-key": SystemExit(KEY),
    "recursion": RecursionError("deep"),
    "huge-message": RuntimeError("x" * 1_000_000 + KEY),
    "control-chars": RuntimeError("a\x1b[2Jb\r\nc\u202ed"),
    "engine-error-with-key": EngineError("refusing " + KEY),
    "spec-error-with-b64-key": SpecError(["bad " + b64]),
    "memory-error": MemoryError(),
}


@pytest.mark.parametrize("error", list(RAISED.values()), ids=list(RAISED))
@pytest.mark.parametrize("hook", ["commands", "validate"])
def test_an_exception_from_a_hook_becomes_one_masked_error(hook: str, error: BaseException) -> None:
    message = refused(**{hook: error})
    assert "\x1b" not in message
    assert "\u202e" not in message
    assert len(message) <= 5000


class _BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str of the error fails")


def test_an_exception_whose_str_raises_is_still_one_error() -> None:
    refused(commands=_BadStr())


OTHER_ANSWERS: dict[str, tuple[str, Any]] = {
    "validate-string": ("validate", "a problem"),
    "validate-ints": ("validate", [1, 2]),
    "validate-bytes": ("validate", [b"x"]),
    "validate-key": ("validate", ["model holds " + KEY]),
    "serves-http-string": ("serves_http", "yes"),
    "serves-http-int": ("serves_http", 1),
    "health-relative": ("health_path", "health"),
    "health-newline": ("health_path", "/health\r\nX: y"),
    "health-int": ("health_path", 5),
    "metrics-relative": ("metrics_path", "metrics"),
    "notes-string": ("notes", "a note"),
    "notes-ints": ("notes", [1]),
    "unavailable-int": ("unavailable", 5),
    "unavailable-list": ("unavailable", ["x"]),
    "policy-string": ("policy", "open everything"),
    "policy-empty-namespace": (
        "policy",
        lambda: EnginePolicy(open_env=("",), secret_env=frozenset({SECRET_VAR})),
    ),
    "policy-short-namespace": (
        "policy",
        lambda: EnginePolicy(open_env=("A",), secret_env=frozenset({SECRET_VAR})),
    ),
}


@pytest.mark.parametrize(("hook", "answer"), list(OTHER_ANSWERS.values()), ids=list(OTHER_ANSWERS))
def test_a_plugin_answer_of_the_wrong_kind_is_refused(hook: str, answer: Any) -> None:
    refused(**{hook: answer})


SANITISED: dict[str, tuple[str, Any]] = {
    "key-in-command-name": ("commands", lambda shard: [_replace(_good(shard), name="n-" + shard.api_key)]),
    "key-in-note": ("notes", ["note " + KEY]),
    "key-upper-in-note": ("notes", ["note " + KEY.upper()]),
    "bidi-in-note": ("notes", ["x\u202ey"]),
    "zero-width-in-note": ("notes", ["x\u200by"]),
    "escape-in-note": ("notes", ["x\x1b[2Jy"]),
}


@pytest.mark.parametrize(("hook", "answer"), list(SANITISED.values()), ids=list(SANITISED))
def test_a_plugin_answer_is_refused_or_shown_masked_and_escaped(hook: str, answer: Any) -> None:
    try:
        plan = plan_with(**{hook: answer})
    except (EngineError, SpecError) as refusal:
        text = str(refusal)
    else:
        text = json.dumps(plan.to_dict(), ensure_ascii=False)
    assert_no_key(text)
    for char in ("\u202e", "\u200b", "\x1b"):
        assert char not in text


def test_a_floor_variable_opens_only_with_the_policy_reason() -> None:
    def policy(reason: str) -> Callable[[], EnginePolicy]:
        return lambda: EnginePolicy(secret_env=frozenset({SECRET_VAR}), unsafe_env={"LD_PRELOAD": reason})

    def commands(shard: ShardSpec) -> list[Command]:
        return [_good(shard, env={"LD_PRELOAD": "/opt/site/profiler.so"})]

    refused(commands=commands)
    plan = plan_with(commands=commands, policy=policy("site profiler, change OPS-1"))
    assert any("LD_PRELOAD" in note for note in plan.notes)


def test_a_floor_variable_with_an_empty_reason_is_refused() -> None:
    refused(
        policy=lambda: EnginePolicy(secret_env=frozenset({SECRET_VAR}), unsafe_env={"LD_PRELOAD": ""}),
        commands=lambda shard: [_good(shard, env={"LD_PRELOAD": "/x.so"})],
    )


def test_a_huge_answer_is_bounded_or_refused() -> None:
    def commands(shard: ShardSpec) -> list[Command]:
        return [_good(shard, "x" * 10_000_000, shard.api_key.upper())]

    # The key rides along, so the answer must be refused, and the refusal stays short.
    message = refused(commands=commands)
    assert len(message) <= 5000


def test_a_hook_that_mutates_the_shard_changes_nothing_the_caller_holds() -> None:
    shard = hostile_shard()

    def commands(given: ShardSpec) -> list[Command]:
        with contextlib.suppress(Exception):
            object.__setattr__(given, "bind_addr", "0.0.0.0")
        with contextlib.suppress(Exception):
            object.__setattr__(given, "api_key", "ekt.attacker-0000000000000000")
        return [_good(given)]

    registry = Registry()
    registry.add(Hostile(commands=commands), name="hostile")
    with contextlib.suppress(EngineError, SpecError):
        plan = registry.engine("hostile").plan(shard)
        assert plan.shard.api_key == KEY
        assert plan.shard.bind_addr == "10.0.0.5"
    assert shard.api_key == KEY
    assert shard.bind_addr == "10.0.0.5"


def test_a_validate_hook_cannot_edit_what_the_next_validation_reads() -> None:
    plugin = Hostile()

    def validate(profile: Profile, args: Any) -> list[str]:
        for attribute in ("tokens", "options", "values", "positional"):
            value = getattr(args, attribute, None)
            with contextlib.suppress(Exception):
                value.append("--trust-remote-code")  # type: ignore[union-attr]
            with contextlib.suppress(Exception):
                value["--trust-remote-code"] = ["x"]  # type: ignore[index]
            with contextlib.suppress(Exception):
                object.__setattr__(args, attribute, ("--trust-remote-code",))
        return []

    plugin.answers["validate"] = validate
    registry = Registry()
    registry.add(plugin, name="hostile")
    engine = registry.engine("hostile")
    first = engine.plan(hostile_shard())
    second = engine.plan(hostile_shard())
    assert first == second
    assert "--trust-remote-code" not in first.commands[0].args


def test_a_commands_hook_that_mutates_its_returned_list_later_changes_no_plan() -> None:
    kept: list[list[Command]] = []

    def commands(shard: ShardSpec) -> list[Command]:
        answer = [_good(shard)]
        kept.append(answer)
        return answer

    plan = plan_with(commands=commands)
    kept[0].append(Command(path="/bin/sh", args=("-c", "id")))
    assert len(plan.commands) == 1
    assert plan.commands[0].path == "/usr/bin/hostile"


@pytest.mark.parametrize("status", [0, 3])
@pytest.mark.parametrize("form", ["raw", "upper", "base64", "run"])
@pytest.mark.parametrize("command", ["probe", "help-options"])
def test_probe_output_holding_the_shard_key_is_masked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, llama_key: str, command: str, form: str, status: int
) -> None:
    printed = {
        "raw": llama_key,
        "upper": llama_key.upper(),
        "base64": base64.b64encode(llama_key.encode()).decode(),
        "run": llama_key[3:17],
    }[form]
    environ = _program(tmp_path, f"echo 'out --api-key {printed}'\necho 'err {printed}' >&2\nexit {status}\n")
    code = main([command, LLAMA_GPU], environ)
    out, err = capsys.readouterr()
    no_traceback(err)
    assert code in (0, 1, 2)
    assert printed not in out + err
    assert "<secret>" in out + err


# ---------------------------------------------------------------------------------------------
# More reading and plugin cases
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "received",
    ["a plan", [], None, 5, b"{}", {}, {"format_version": "1.2"}],
    ids=["str", "list", "none", "int", "bytes", "empty", "version-only"],
)
def test_verify_plan_refuses_a_received_plan_that_is_not_a_plan(
    sim_registry: Registry, sim_shard: ShardSpec, received: Any
) -> None:
    with pytest.raises(SpecError) as caught:
        sim_registry.verify_plan(received, sim_shard)
    assert str(caught.value).startswith("plan")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -(2**64)], ids=["nan", "inf", "below-64-bits"])
def test_from_dict_refuses_a_port_that_is_no_integer(sim_plan: dict[str, Any], value: float) -> None:
    plan = json.loads(json.dumps(sim_plan))
    plan["shard"]["http_port"] = value
    with pytest.raises(SpecError, match=r"plan\.shard\.http_port"):
        LaunchPlan.from_dict(plan)


MORE_COMMAND_ANSWERS: dict[str, Any] = {
    "none": None,
    "key-in-lower-case-twin-variable": lambda shard: [_good(shard, env={SECRET_VAR.lower(): shard.api_key})],
    "key-split-over-two-args": lambda shard: [_good(shard, shard.api_key[:16], shard.api_key[16:])],
    "secret-env-names-a-lower-case-twin": lambda shard: [
        _replace(_good(shard), secret_env=frozenset({SECRET_VAR.lower()}))
    ],
    "wait-flag-string": lambda shard: [_replace(_good(shard), wait_for_leader_port="yes")],
    "key-as-equals-value": lambda shard: [_good(shard, f"--header=Authorization: Bearer {shard.api_key}")],
    "key-in-generated-nccl-variable": lambda shard: [_good(shard, env={"NCCL_DEBUG": shard.api_key})],
}


@pytest.mark.parametrize("answer", list(MORE_COMMAND_ANSWERS.values()), ids=list(MORE_COMMAND_ANSWERS))
def test_more_commands_answers_that_leak_or_break_the_contract_are_refused(answer: Any) -> None:
    refused(commands=answer)


@pytest.mark.parametrize(
    "argv",
    [
        ["lws", "--image", f"reg.example/x:{REPLICA_KEY}"],
        ["lws", "--image", "reg.example/x:1", "--namespace", REPLICA_KEY.lower()],
        ["lws", "--image", "reg.example/x:1", "--node-selector", f"k={REPLICA_KEY}"],
        ["lws", "--image", "reg.example/x:1", "--name", REPLICA_KEY.lower()[:40]],
        ["lws", "--image", "reg.example/x:1", "--secret", f"{REPLICA_KEY.lower()}:api"],
        ["slurm", "--one-node", "--partition", REPLICA_KEY],
        ["slurm", "--one-node", "--account", REPLICA_KEY],
        ["slurm", "--one-node", "--enginekit", f"/opt/{REPLICA_KEY}/enginekit"],
        ["slurm", "--one-node", "--api-key-file", f"/etc/{REPLICA_KEY}"],
        ["slurm", "--one-node", "--node-config", f"/etc/{REPLICA_KEY}.toml"],
    ],
    ids=[
        "lws-image",
        "lws-namespace",
        "lws-node-selector",
        "lws-name",
        "lws-secret",
        "slurm-partition",
        "slurm-account",
        "slurm-enginekit",
        "slurm-api-key-file",
        "slurm-node-config",
    ],
)
def test_export_refuses_the_replica_key_in_an_option_value(
    capsys: pytest.CaptureFixture[str], stand_in: tuple[Path, Path], argv: list[str]
) -> None:
    config, _ = stand_in
    code, out, err = cli(
        capsys, ["export", argv[0], SIM_REPLICA, *argv[1:]], {"ENGINEKIT_CONFIG": str(config)}
    )
    assert (code, out) == (1, "")
    assert "the replica's API key is in an option's value" in err
    assert_no_key(err, REPLICA_KEY)
