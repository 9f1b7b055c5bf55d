"""Hostile input at every boundary: one readable message and exit 1 or 2, no traceback, no key echoed.

Specs and profiles come from a control plane, node config from a site, plugins from third
parties. Each class of attack below was once accepted or crashed; each test fails if it
comes back.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest
from enginekit import Command, EngineError, Profile, ShardSpec, SpecError
from enginekit.cli import ENV_FORMATS, EXIT_CLOSED_PIPE, main
from enginekit.placement.builder import CommandBuilder
from enginekit.policy.engine import EnginePolicy, EnvAlias
from enginekit.spec.convert import MAX_DOCUMENT_BYTES, MAX_NESTING, structure
from enginekit.testing import engine_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HOSTILE = Path(__file__).parent / "data" / "hostile"
KEY = "sk-trust-0123456789abcdef"
GOOD_SPEC = {
    "replica_id": "r1",
    "shard_id": "r1-0",
    "http_port": 8000,
    "gpu_indices": [0],
    "api_key": KEY,
    "profile": {"name": "p", "engine": "fake", "model_path": "/models/m"},
}
NO_CONFIG = {"ENGINEKIT_CONFIG": ""}


def spec_with(**changes: object) -> dict[str, object]:
    """GOOD_SPEC with shard fields changed; ``profile`` merges into the profile."""
    spec = json.loads(json.dumps(GOOD_SPEC))
    profile = changes.pop("profile", {})
    spec.update(changes)
    spec["profile"].update(profile)
    return spec


def cli(
    capsys: pytest.CaptureFixture[str], *argv: str, environ: dict[str, str] | None = None
) -> tuple[int, str, str]:
    code = main(list(argv), {**NO_CONFIG, **(environ or {})})
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_clean_message(code: int, out: str, err: str, *, expect: int) -> None:
    assert code == expect, err
    assert "Traceback" not in err
    assert err.startswith("enginekit: "), err
    assert KEY not in out + err


Write = Callable[..., Path]


@pytest.fixture
def write(tmp_path: Path) -> Write:
    """Write a document (a string as it is, anything else as JSON) and return its path."""

    def _write(doc: object, name: str = "spec.json") -> Path:
        path = tmp_path / name
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """The misbehaving plugin distributions on sys.path, with every misbehaviour off."""
    monkeypatch.syspath_prepend(str(HOSTILE))
    importlib.invalidate_caches()
    rogue = importlib.import_module("hostile_pkgs.rogue")
    yield rogue
    rogue.MODE.clear()
    for name in [m for m in sys.modules if m == "hostile_pkgs" or m.startswith("hostile_pkgs.")]:
        del sys.modules[name]


# --- 1. Strict structuring -------------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "shard", "expected"),
    [
        ({"args": "--enforce-eager"}, {}, "spec.profile.args: expected a list, got str '--enforce-eager'"),
        ({"args": {"--x": 1}}, {}, "spec.profile.args: expected a list, got dict"),
        ({}, {"hcas": "mlx5_0"}, "spec.hcas: expected a list, got str 'mlx5_0'"),
        ({}, {"gpu_indices": "01"}, "spec.gpu_indices: expected a list, got str '01'"),
        ({"env": [["A", "b"]]}, {}, "spec.profile.env: expected a table, got list"),
        ({"adapters": {"name": "a", "path": "b"}}, {}, "spec.profile.adapters: expected a list, got dict"),
    ],
)
def test_a_string_or_table_is_never_a_list(
    profile: dict[str, object], shard: dict[str, object], expected: str
) -> None:
    with pytest.raises(SpecError) as err:
        structure(spec_with(profile=profile, **shard), ShardSpec, path="spec")
    assert expected in err.value.problems


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('disabled = "trtllm"', "config.disabled"),
        ('enabled = "vllm"', "config.enabled"),
        ('[env_policy]\ndeny = "NCCL_ALGO"', "config.env_policy.deny"),
        ('[env_policy]\nallow_prefixes = "ACME_"', "config.env_policy.allow_prefixes"),
    ],
)
def test_node_config_lists_take_lists_only(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, line: str, field: str
) -> None:
    config = write(line, "config.toml")
    code, out, err = cli(capsys, "--config", str(config), "engines")
    assert_one_clean_message(code, out, err, expect=2)
    assert f"{field}: expected a list, got str" in err


@attrs.frozen
class _SectionConfig:
    allow_args: tuple[str, ...] = ()


def test_an_engine_section_list_takes_a_list_only() -> None:
    # Engine sections are structured by the same converter, so `allow_args = "--x"` can
    # never become the five options '-', '-', 'x'.
    with pytest.raises(SpecError) as err:
        structure({"allow_args": "--x"}, _SectionConfig, path="engines.listy")
    assert err.value.problems == ("engines.listy.allow_args: expected a list, got str '--x'",)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"gid_index": 2**64, "hcas": ["mlx5_0"]}, "spec.gid_index: expected an integer that fits 64 bits"),
        ({"gid_index": 256, "hcas": ["mlx5_0"]}, "gid_index: expected a GID table index in 0-255, got 256"),
        ({"http_port": 65536}, "http_port: expected a port in 1-65535, got 65536"),
        ({"gpu_indices": [70000]}, "gpu_indices: each must be in 0-65535, got [70000]"),
        ({"threads": 10**6, "gpu_indices": []}, "threads: expected 0-65536 cores, got 1000000"),
        ({"nnodes": 10**6}, "nnodes: expected 1-65536, got 1000000"),
        ({"profile": {"tp": 30_000_000}}, "profile 'p': tp: expected at most 65536, got 30000000"),
        ({"profile": {"pp": 70000}}, "profile 'p': pp: expected at most 65536, got 70000"),
    ],
)
def test_integers_are_bounded_by_their_domain(
    write: Write,
    capsys: pytest.CaptureFixture[str],
    fake_dists: Path,
    changes: dict[str, object],
    expected: str,
) -> None:
    code, out, err = cli(capsys, "render", str(write(spec_with(**changes))))
    assert code in (1, 2), err
    assert_one_clean_message(code, out, err, expect=code)
    assert expected in err


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("\u202e", "a bidirectional override (U+202E)"),
        ("\u2066", "a bidirectional override (U+2066)"),
        ("\u2028", "a Unicode line separator (U+2028)"),
        ("\x85", "a C1 control character (U+0085)"),
        ("\x1b[31m", "a control character (U+001B)"),
        ("\x00", "a NUL byte (U+0000)"),
    ],
)
@pytest.mark.parametrize("field", ["model_path", "served_model_name", "args"])
def test_strings_bound_for_a_process_hold_no_hidden_characters(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, text: str, what: str, field: str
) -> None:
    value: object = [f"--x{text}y"] if field == "args" else f"/m{text}x"
    code, out, err = cli(capsys, "render", str(write(spec_with(profile={field: value}))))
    assert_one_clean_message(code, out, err, expect=2)
    assert what in err
    assert text not in err


def test_a_lone_surrogate_is_refused_everywhere_the_same(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    # json.loads turns "\ud800" into a lone surrogate, which no UTF-8 writer can print.
    path = write(
        '{"http_port": 8000, "gpu_indices": [0], "profile": '
        '{"name": "p", "engine": "fake", "model_path": "/m\\ud800"}}'
    )
    for argv in (["render", str(path)], ["render", str(path), "--json"], ["validate", str(path)]):
        code, out, err = cli(capsys, *argv)
        assert_one_clean_message(code, out, err, expect=2)
        assert "a lone surrogate" in err


@pytest.mark.parametrize(
    "address",
    ["fe80::1%$(reboot);--trust-remote-code", "fe80::1%eth0 x", "fe80::1%", "::1%a/b"],
)
@pytest.mark.parametrize("field", ["bind_addr", "leader_addr"])
def test_an_ipv6_zone_is_an_interface_name(field: str, address: str, make_shard: object) -> None:
    from enginekit.spec.rules import check_spec

    spec = structure(spec_with(**{field: address}), ShardSpec, path="spec")[0]
    assert any(
        p.endswith(f"{field}: expected a host name or IP address, got {address!r}") for p in check_spec(spec)
    )


def test_an_ipv6_zone_that_is_an_interface_name_is_accepted() -> None:
    from enginekit.spec.rules import check_spec

    spec = structure(spec_with(bind_addr="fe80::1%eth0"), ShardSpec, path="spec")[0]
    assert check_spec(spec) == []


def test_only_a_bounded_regular_file_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it must not wait for a writer
    big = tmp_path / "big.json"
    big.write_text(" " * (MAX_DOCUMENT_BYTES + 1))
    cases = [
        (["render", "/dev/zero"], "/dev/zero: cannot read: not a regular file"),
        (["render", str(fifo)], f"{fifo}: cannot read: not a regular file"),
        (["render", str(tmp_path)], "cannot read"),
        (["render", str(big)], f"{big}: larger than {MAX_DOCUMENT_BYTES} bytes"),
        (["render", str(tmp_path / "spec.json"), "--gpus", "/dev/zero"], "not a regular file"),
    ]
    (tmp_path / "spec.json").write_text(json.dumps(GOOD_SPEC))
    for argv, expected in cases:
        code, out, err = cli(capsys, *argv)
        assert_one_clean_message(code, out, err, expect=2)
        assert expected in err


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("[" * 990 + "]" * 990, "deep.json"),
        ('{"a":' * 990 + "1" + "}" * 990, "deep.json"),
        ("a = " + "[" * 990 + "]" * 990, "deep.toml"),
        ("a = " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1), "deep.toml"),
    ],
)
def test_nesting_is_bounded(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, text: str, name: str
) -> None:
    code, out, err = cli(capsys, "render", str(write(text, name)))
    assert_one_clean_message(code, out, err, expect=2)
    assert f"nested more than {MAX_NESTING} levels deep" in err


@pytest.mark.parametrize(
    ("gpus", "expected"),
    [
        ("[{", "not valid JSON"),
        ('{"gpus": 3}', "expected a list of GPUs"),
        ('[{"index": "0"}]', "expected an integer, got str '0'"),
    ],
)
def test_a_malformed_gpu_list_is_unusable_input(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, gpus: str, expected: str
) -> None:
    spec = write(GOOD_SPEC)
    code, out, err = cli(capsys, "render", str(spec), "--gpus", str(write(gpus, "gpus.json")))
    assert_one_clean_message(code, out, err, expect=2)
    assert expected in err


@pytest.mark.parametrize("capability", [" 8.0", "8.0\n", "８.０", "0x8p0", "0_5", "8.", "nan", "inf", "-9.0"])
def test_a_compute_capability_is_digits_dot_digits(capability: str, make_shard: object) -> None:
    from enginekit import GPUInfo
    from enginekit.policy.checks import require_compute_capability, validate_common

    profile = Profile(name="p", engine="x", model_path="/m")
    gpus = [GPUInfo(index=0, compute_capability=capability)]
    assert f"profile 'p': GPU 0: compute capability {capability!r} is not major.minor" in " ".join(
        validate_common(profile, gpus)
    )
    assert require_compute_capability(profile, gpus, 8.9, "fp8") == []  # refused once, above


def test_a_real_compute_capability_is_compared() -> None:
    from enginekit import GPUInfo
    from enginekit.policy.checks import require_compute_capability, validate_common

    profile = Profile(name="p", engine="x", model_path="/m")
    gpus = [GPUInfo(index=0, name="A100", compute_capability="8.0")]
    assert validate_common(profile, gpus) == []
    assert require_compute_capability(profile, gpus, 8.9, "fp8") == [
        "profile 'p': fp8 needs compute capability 8.9, GPU 0 (A100) has 8.0"
    ]


@pytest.mark.parametrize(
    "key",
    [[KEY], {"key": KEY}, 12345678901234567890, 1.5, True, [[KEY]]],
    ids=["list", "table", "int", "float", "bool", "nested"],
)
def test_the_api_key_is_never_echoed_whatever_its_type(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, key: object
) -> None:
    code, out, err = cli(capsys, "render", str(write(spec_with(api_key=key))))
    assert_one_clean_message(code, out, err, expect=2)
    assert "spec.api_key: expected a string" in err
    assert "(the value is not shown)" in err
    for fragment in ("sk-trust", "1234567890", "1.5", "True"):
        assert fragment not in err


@pytest.mark.parametrize("key", ["Z", "serve", "8000", "fifteen-chars-x"])
def test_a_short_key_is_refused_as_guessable(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, key: str
) -> None:
    code, out, err = cli(capsys, "render", str(write(spec_with(api_key=key))))
    assert_one_clean_message(code, out, err, expect=1)
    assert key not in err.split("api_key")[-1]
    assert "api_key: shorter than 16 characters, so guessable (the value is not shown)" in err
    assert "command line" not in err


# --- 2. One safe build path ---------------------------------------------------------------


def test_commands_runs_every_check_plan_runs(hostile: object, make_shard: object) -> None:
    from hostile_pkgs.rogue import RogueEngine

    engine = engine_for(RogueEngine(), "rogue")
    bad = make_shard("rogue", profile_args=("--",), profile_env={"LD_PRELOAD": "x"}, http_port=0)
    with pytest.raises(SpecError) as via_commands:
        engine.commands(bad)
    with pytest.raises(SpecError) as via_plan:
        engine.plan(bad)
    assert via_commands.value.problems == via_plan.value.problems
    assert len(via_plan.value.problems) == 3


# --- 3. Plugins cannot take the node down -------------------------------------------------

MISBEHAVIOURS = [
    ("commands", "raise", "hook commands() raised RuntimeError: commands exploded"),
    ("commands", (c for c in ()), "hook commands() returned a value of type generator"),
    ("commands", [], "hook commands() returned no commands"),
    (
        "commands",
        ["rogue"],
        "hook commands() returned a string of 5 characters as command 0, expected a Command",
    ),
    ("commands", "rogue --port 1", "hook commands() returned a string of 14 characters"),
    ("validate", 3, "hook validate() returned a value of type int, expected a list of strings"),
    ("validate", "bad", "hook validate() returned a string of 3 characters, expected a list"),
    ("validate", [1], "hook validate() returned a list holding a value of type int"),
    ("validate", RecursionError("deep"), "hook validate() raised RecursionError: deep"),
    ("notes", "raise", "hook notes() raised RuntimeError: notes exploded"),
    ("notes", 5, "hook notes() returned a value of type int"),
    ("serves_http", "raise", "hook serves_http() raised RuntimeError"),
    ("serves_http", "yes", "hook serves_http() returned a string of 3 characters, expected true or false"),
    ("health_path", 12345, "hook health_path() returned a value of type int, expected a URL path"),
    ("health_path", "health", "hook health_path() returned a string of 6 characters, expected a URL path"),
    (
        "metrics_path",
        "/m\nX: y",
        "hook metrics_path() returned a string of 7 characters, expected a URL path",
    ),
    ("unavailable", "raise", "hook unavailable() raised RuntimeError: unavailable exploded"),
    ("unavailable", 7, "hook unavailable() returned a value of type int"),
    ("policy", "raise", "hook policy() raised RuntimeError: policy exploded"),
    (
        "policy",
        {"open_env": "ROGUE_"},
        "hook policy() returned a value of type dict, expected an EnginePolicy",
    ),
    (
        "policy",
        lambda: EnginePolicy(open_env=["ROGUE_\x1b[2J"]),
        "hook policy() returned a policy whose variable names are not portable names",
    ),
    (
        "policy",
        lambda: EnginePolicy(secret_env=[""]),
        "hook policy() returned a policy whose variable names are not portable names",
    ),
    (
        "policy",
        lambda: EnginePolicy(open_env=[""]),
        "hook policy() returned a policy whose variable names are not portable names",
    ),
    (
        "policy",
        lambda: EnginePolicy(open_env=["A_"]),
        "hook policy() returned a policy opening a namespace shorter than 3 characters",
    ),
    *(
        ("policy", bad, "hook policy() returned a policy whose env_aliases are not EnvAlias entries")
        for bad in (
            lambda: EnginePolicy(env_aliases=["SGL_"]),  # type: ignore[list-item]
            lambda: EnginePolicy(env_aliases=[EnvAlias("A_", "ROGUE_", prefix=True)]),  # every A_*
            lambda: EnginePolicy(env_aliases=[EnvAlias("SAME_", "SAME_", prefix=True)]),
            lambda: EnginePolicy(env_aliases=[EnvAlias("OLD-X", "NEW_X")]),
            lambda: EnginePolicy(env_aliases=[EnvAlias("OLD_X", "")]),
            lambda: EnginePolicy(env_aliases=[EnvAlias("OLD_X", "NEW_X", why="\x1b[2J")]),
            lambda: EnginePolicy(env_aliases=[EnvAlias("OLD_X", "NEW_X", prefix=1)]),  # type: ignore[arg-type]
            # A chain: OLD_X is read as MID_X, which another alias reads as NEW_X.
            lambda: EnginePolicy(
                env_aliases=[EnvAlias("OLD_X", "MID_X"), EnvAlias("MID_", "NEW_", prefix=True)]
            ),
            # One name read by two aliases: only the first would be judged.
            lambda: EnginePolicy(env_aliases=[EnvAlias("MY_X", "MY_OK"), EnvAlias("MY_X", "LD_PRELOAD")]),
            lambda: EnginePolicy(
                env_aliases=[EnvAlias("MY_", "OK_", prefix=True), EnvAlias("MY_X", "LD_PRELOAD")]
            ),
            lambda: EnginePolicy(
                env_aliases=[EnvAlias("MY_X_", "OK_", prefix=True), EnvAlias("MY_", "NEW_", prefix=True)]
            ),
        )
    ),
    (
        "policy",
        lambda: EnginePolicy(denied_env=["LD_PRELOAD"]),  # type: ignore[list-item]
        "hook policy() returned a policy whose denied_env holds something other than EnvDeny",
    ),
    (
        "policy",
        lambda: EnginePolicy(managed_args={"--port": 1}),  # type: ignore[dict-item]
        "hook policy() returned a policy whose managed_args is not a table of option to text",
    ),
    (
        "policy",
        lambda: EnginePolicy(arity=3),  # type: ignore[arg-type]
        "hook policy() returned a policy whose arity is neither a table nor a function",
    ),
    # A well-formed command that forgets the shard's placement would take another shard's GPUs.
    (
        "commands",
        lambda: [Command(path="srv", name="server")],
        "hook commands() returned command 0 (server) without the shard's placement variable "
        "CUDA_VISIBLE_DEVICES; build commands with",
    ),
    # A key variable the policy does not declare is one no profile is kept from setting.
    (
        "policy",
        EnginePolicy(),
        "hook commands() returned command 0 (rogue-server) with secret variables ['ROGUE_API_KEY'] "
        "its policy() does not declare in secret_env",
    ),
]


@pytest.mark.parametrize(
    ("hook", "mode", "expected"), MISBEHAVIOURS, ids=[f"{h}-{i}" for i, (h, _, _) in enumerate(MISBEHAVIOURS)]
)
def test_a_misbehaving_hook_is_one_error_naming_engine_distribution_and_hook(
    hostile: object,
    write: Write,
    capsys: pytest.CaptureFixture[str],
    hook: str,
    mode: object,
    expected: str,
) -> None:
    hostile.MODE[hook] = mode  # type: ignore[attr-defined]
    spec = write(spec_with(profile={"engine": "rogue"}))
    code, out, err = cli(capsys, "render", str(spec), "--json")
    assert_one_clean_message(code, out, err, expect=2)
    assert out == ""
    assert "engine 'rogue' (hostile-engines 1.0 (hostile_pkgs.rogue:RogueEngine))" in err
    assert expected in err


def test_argv_and_env_from_a_plugin_are_checked(hostile: object, make_shard: object) -> None:
    from hostile_pkgs.rogue import MODE, RogueEngine

    engine = engine_for(RogueEngine(), "rogue")
    shard = make_shard("rogue")  # type: ignore[operator]
    # Each carries the shard's placement, so the one thing wrong is the thing named.
    good = CommandBuilder(shard).command("x", [])
    bad = {
        "argv element that contains a NUL byte": attrs.evolve(good, args=("a\x00b",)),
        "env value that contains a control character": attrs.evolve(good, env={**good.env, "A": "1\n2"}),
        "argv element of type int": attrs.evolve(good, args=(1,)),  # type: ignore[arg-type]
        "whose secret_env names variables it does not set": attrs.evolve(good, secret_env=frozenset({"K"})),
        "without a path": attrs.evolve(good, path=""),
    }
    for what, command in bad.items():
        MODE["commands"] = [command]
        with pytest.raises(
            EngineError, match=r"^engine 'rogue' \(added in process\): hook commands\(\)"
        ) as err:
            engine.plan(shard)
        assert what in str(err.value)


def test_a_key_in_a_plugins_exception_is_masked(hostile: object, make_shard: object) -> None:
    from hostile_pkgs.rogue import MODE, RogueEngine

    MODE["commands"] = ValueError(f"cannot use key {KEY}")
    engine = engine_for(RogueEngine(), "rogue")
    with pytest.raises(EngineError) as err:
        engine.plan(make_shard("rogue", api_key=KEY))
    assert KEY not in str(err.value)
    assert "cannot use key <secret>" in str(err.value)


def test_engines_lists_a_broken_engine_as_failed_and_the_rest_as_they_are(
    hostile: object, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile.MODE["unavailable"] = "raise"  # type: ignore[attr-defined]
    code, out, err = cli(capsys, "engines", "--json")
    assert code == 1, err
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["rogue"]["status"] == "failed"
    assert "hook unavailable() raised RuntimeError: unavailable exploded" in rows["rogue"]["detail"]
    assert rows["noisy"]["status"] == "ok"


def test_a_plugin_printing_cannot_corrupt_json(
    hostile: object, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write(spec_with(profile={"engine": "noisy"}))
    code, out, err = cli(capsys, "render", str(spec), "--json")
    assert code == 0, err
    assert json.loads(out)["engine"] == "noisy"
    assert "noisy plugin says hello at import" in err
    assert "noisy commands" in err


def test_a_name_clash_is_reported_clearly_once(hostile: object, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "engines")
    assert code == 1
    assert "distributions provide" not in err  # said in the table, where it belongs
    line = next(line for line in out.splitlines() if line.startswith("fake "))
    assert "hostile-engines 1.0 (hostile_pkgs.rogue:HonestEngine) and hostile-twin 3.0" in line
    assert "2 distributions provide engine 'fake' and enginekit will not guess which to run" in line
    code, out, err = cli(capsys, "render", "/nonexistent-but-unread.json")
    assert code == 2
    assert "distributions provide" not in err  # not repeated on every command


def test_one_engines_broken_config_never_affects_another(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    config = write(
        '[installed]\nconfigurable = "/opt/c"\nfake = "/opt/fake-2"\n[engines.configurable]\nknob = "banana"\n',
        "config.toml",
    )
    code, out, err = cli(capsys, "--config", str(config), "render", str(write(GOOD_SPEC)))
    assert code == 0, err
    assert "/opt/fake-2/bin/fake-server" in out
    assert "fake_pkgs.broken" not in sys.modules
    code, out, err = cli(capsys, "--config", str(config), "engines")
    assert "engines.configurable.knob: expected an integer, got str 'banana'" in out


# --- 4. The environment is safe to eval ------------------------------------------------------


def test_env_output_is_safe_to_eval(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, tmp_path: Path
) -> None:
    payload = "$(touch pwned)`touch pwned2`;touch pwned3 'x' \"y\""
    spec = write(spec_with(profile={"env": {"NCCL_DEBUG": payload}}))
    code, out, err = cli(capsys, "env", str(spec), "--explain")
    assert code == 0, err
    shown = subprocess.run(
        ["sh", "-c", 'eval "$1"; printf %s "$NCCL_DEBUG"', "sh", out],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout
    assert shown == payload
    assert not any((tmp_path / name).exists() for name in ("pwned", "pwned2", "pwned3"))


def test_the_allow_list_has_a_floor_and_an_unsafe_allowance_is_said_in_every_plan(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    spec = write(spec_with(profile={"env": {"LD_PRELOAD": "/opt/prof/libprof.so"}}))
    allow = write('[env_policy]\nallow = ["LD_PRELOAD"]\npath_keys = ["LD_PRELOAD"]\n', "allow.toml")
    code, out, err = cli(capsys, "--config", str(allow), "render", str(spec))
    assert_one_clean_message(code, out, err, expect=1)
    assert "enginekit: warning: env_policy.allow: LD_PRELOAD stays refused" in err
    assert "env_policy.allow cannot open this group" in err
    unsafe = write(
        '[env_policy]\npath_keys = ["LD_PRELOAD"]\n[env_policy.allow_unsafe]\nLD_PRELOAD = "site profiler, OPS-123"\n',
        "unsafe.toml",
    )
    code, out, err = cli(capsys, "--config", str(unsafe), "render", str(spec), "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["commands"][0]["env"]["LD_PRELOAD"] == "/opt/prof/libprof.so"
    assert any("LD_PRELOAD" in note and "site profiler, OPS-123" in note for note in plan["notes"])


# --- 5. The CLI keeps its promise ---------------------------------------------------------------


def _enginekit(*argv: str, stdout: object, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "enginekit", *argv],
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


@pytest.fixture
def fake_env(fake_dists: Path) -> dict[str, str]:
    pythonpath = os.pathsep.join([str(fake_dists), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": pythonpath, "ENGINEKIT_CONFIG": ""}


def test_a_closed_pipe_ends_quietly(write: Write, fake_env: dict[str, str]) -> None:
    spec = write(GOOD_SPEC)
    reader = subprocess.Popen(["head", "-c", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert reader.stdin is not None
    result = _enginekit("render", str(spec), "--json", stdout=reader.stdin, env=fake_env)
    reader.stdin.close()
    reader.wait(timeout=10)
    assert result.stderr == ""
    assert result.returncode in (0, EXIT_CLOSED_PIPE)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_one_message(fake_env: dict[str, str]) -> None:
    with open("/dev/full", "w") as full:
        result = _enginekit("engines", stdout=full, env=fake_env)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("enginekit: error: cannot write the output: No space left on device")


def test_validate_accepts_what_render_accepts_and_checks_the_spec_too(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    go_style = {
        "ReplicaID": "r1",
        "ShardID": "r1-0",
        "HTTPPort": 8000,
        "GPUIndices": [0],
        "Profile": {"Name": "p", "Engine": "fake", "ModelPath": "/m"},
    }
    code, out, err = cli(capsys, "validate", str(write(go_style)))
    assert code == 0, err
    assert out == "profile 'p': valid for engine 'fake'\n"
    no_port = {k: v for k, v in go_style.items() if k != "HTTPPort"}
    code, out, err = cli(capsys, "validate", str(write(no_port)))
    assert code == 1
    assert "http_port: expected a port in 1-65535, got 0" in err
    code, _, _ = cli(capsys, "render", str(write(no_port)))
    assert code == 1


@pytest.mark.parametrize(
    ("spec", "environ", "expected_code", "expected"),
    [
        (spec_with(profile={"engine": "nonesuch"}), {}, 2, "unknown engine 'nonesuch'"),
        (GOOD_SPEC, {"ENGINEKIT_DISABLE_ENGINES": "fake"}, 2, "ENGINEKIT_DISABLE_ENGINES names it"),
        (spec_with(profile={"engine": "offline"}), {}, 2, "is unavailable on this node"),
        (spec_with(profile={"env": {"LD_PRELOAD": "x"}}), {}, 1, "env LD_PRELOAD: denied"),
    ],
)
def test_env_follows_renders_exit_codes(
    write: Write,
    capsys: pytest.CaptureFixture[str],
    fake_dists: Path,
    spec: dict[str, object],
    environ: dict[str, str],
    expected_code: int,
    expected: str,
) -> None:
    path = write(spec)
    for command in ("env", "render"):
        code, out, err = cli(capsys, command, str(path), environ=environ)
        assert_one_clean_message(code, out, err, expect=expected_code)
        assert expected in err


def test_global_options_work_after_the_subcommand(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    config = write('disabled = ["fake"]\n', "config.toml")
    code, out, err = cli(capsys, "render", str(write(GOOD_SPEC)), "--config", str(config))
    assert_one_clean_message(code, out, err, expect=2)
    assert "engine 'fake' is disabled on this node: the node config's disabled list names it" in err


@pytest.mark.parametrize("value", ["", " ", " , ", ",,", "\t"])
def test_a_blank_engine_allowlist_means_not_set(
    capsys: pytest.CaptureFixture[str], fake_dists: Path, value: str
) -> None:
    code, out, _ = cli(capsys, "engines", "--json", environ={"ENGINEKIT_ENGINES": value})
    assert code == 1
    assert {row["name"]: row["status"] for row in json.loads(out)}["fake"] == "ok"


def test_the_engine_allowlist_splits_on_commas_and_whitespace_and_says_what_left_an_engine_out(
    capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    code, out, _ = cli(capsys, "engines", "--json", environ={"ENGINEKIT_ENGINES": "fake offline\tnonesuch"})
    assert code == 1
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["fake"]["status"] == "ok"
    assert rows["offline"]["status"] == "unavailable"
    assert rows["nonesuch"]["detail"] == "enabled but not installed"
    assert rows["configurable"]["detail"] == "not in ENGINEKIT_ENGINES"


def test_a_node_config_given_as_a_spec_says_so(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    config = write('disabled = ["trtllm"]\n[env_policy]\ndeny = ["NCCL_ALGO"]\n', "config.toml")
    for command in ("render", "env", "validate"):
        code, out, err = cli(capsys, command, str(config))
        assert_one_clean_message(code, out, err, expect=2)
        assert "a node config, not a" in err
        assert "pass it with --config" in err
    code, out, err = cli(capsys, "--config", str(write(GOOD_SPEC)), "engines")
    assert_one_clean_message(code, out, err, expect=2)
    assert "a shard spec (it has a profile), not a node config" in err


# --- Properties ------------------------------------------------------------------------------

_hostile_text = st.text(
    alphabet=st.sampled_from(
        ["a", "-", "/", "\x00", "\n", "\x1b", "\u202e", "\u2028", "\x85", "$", "'", "é"]
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    field=st.sampled_from(["model_path", "served_model_name", "name", "gpu_class"]),
    text=_hostile_text,
    key=st.one_of(st.just(KEY), st.lists(st.just(KEY), max_size=2), st.integers()),
)
def test_no_hostile_string_gives_a_traceback_or_echoes_the_key(
    tmp_path: Path, fake_dists: Path, capsys: pytest.CaptureFixture[str], field: str, text: str, key: object
) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec_with(profile={field: text}, api_key=key)))
    for argv in (["render", str(path)], ["render", str(path), "--json"], ["validate", str(path)]):
        code, out, err = cli(capsys, *argv)
        assert code in (0, 1, 2)
        assert "Traceback" not in err
        assert KEY not in out + err


# --- Found by a hostile review: each was a leak, a traceback or a wrong acceptance -------------


@pytest.mark.parametrize(
    "changes",
    [
        {"http_port": KEY},
        {"gid_index": KEY, "hcas": ["mlx5_0"]},
        {"leader_addr": KEY},
        {"mgmt_interface": KEY},
        {"hcas": [KEY]},
        {"gpu_uuids": [KEY]},
        {KEY: 1},
        {"profile": {"tp": KEY}},
        {"profile": {"model_path": f"-{KEY}"}},
        {"profile": {"engine": KEY}},
        {"profile": {"args": [f"--api-key={KEY}"]}},
        {"profile": {"env": {KEY: "x"}}},
        {"profile": {"adapters": [{"name": KEY, "path": f"-{KEY}"}]}},
        {"profile": {"served_model_name": f"{KEY}\n"}},
    ],
    ids=lambda changes: "-".join(str(k)[:12] for k in changes),
)
def test_a_key_pasted_into_another_field_is_never_echoed(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, changes: dict[str, object]
) -> None:
    path = write(spec_with(**changes))
    for command in ("render", "env", "validate"):
        code, out, err = cli(capsys, command, str(path))
        # Some are valid elsewhere (a key is a fine host name): then the output masks it.
        assert code in (0, 1, 2), err
        assert "Traceback" not in err
        assert KEY not in out + err


def test_env_masks_the_key_wherever_it_appears_unless_asked(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    path = write(spec_with(profile={"env": {"NCCL_DEBUG": KEY}}))
    for fmt in ENV_FORMATS:
        code, out, err = cli(capsys, "env", str(path), "--format", fmt)
        assert code == 0, err
        assert KEY not in out + err
    code, out, _ = cli(capsys, "env", str(path), "--show-secrets")
    assert f"export FAKE_API_KEY={KEY}" in out


@pytest.mark.parametrize("key", ["sk-quote'key-0123456789", 'sk-dq"key-0123456789', "sk-$(x)-0123456789ab"])
def test_a_key_is_made_of_characters_no_quoting_splits(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, key: str
) -> None:
    code, out, err = cli(capsys, "render", str(write(spec_with(api_key=key))))
    assert code == 1
    assert "api_key: must be ASCII letters, digits and . _ ~ + / = : - only" in err
    assert key not in out + err


def test_a_plugin_cannot_get_the_key_printed(hostile: object, make_shard: object) -> None:
    from hostile_pkgs.rogue import MODE, RogueEngine

    engine = engine_for(RogueEngine(), "rogue")
    shard = make_shard("rogue", api_key=KEY)  # type: ignore[operator]

    def edited_refusal() -> None:
        error = SpecError(["nothing to see"])
        error.problems = (f"the key is {KEY}",)
        raise error

    MODE["commands"] = edited_refusal
    with pytest.raises(SpecError) as refused:
        engine.plan(shard)
    assert refused.value.problems == ("the key is <secret>",)
    MODE["commands"] = [CommandBuilder(shard).command("srv", ["--api-key", KEY[:9], KEY[9:]])]
    with pytest.raises(EngineError, match="put the API key on a command line"):
        engine.plan(shard)


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


class _OddError(EngineError):
    def __init__(self, a: int, b: int) -> None:
        super().__init__(f"{a}{b}")


class _Sneaky(str):
    def __format__(self, spec: str) -> str:
        raise RuntimeError("no")


class _Exploding(list):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[object]:
        raise RuntimeError("no")


def _raise(exc: BaseException) -> object:
    def hook() -> object:
        raise exc

    return hook


HOSTILE_ANSWERS = [
    ("commands", _raise(SystemExit(0)), "hook commands() raised SystemExit: 0"),
    ("validate", _raise(GeneratorExit()), "hook validate() raised GeneratorExit"),
    ("commands", _raise(_Unprintable()), "hook commands() raised _Unprintable"),
    ("commands", _raise(_OddError(1, 2)), "12"),
    (
        "commands",
        _raise(EngineError("\x1b[2Kenginekit: ok\nforged")),
        "\\u{001B}[2Kenginekit: ok\\u{000A}forged",
    ),
    ("validate", lambda: [_Sneaky("a problem")], "a problem"),
    ("validate", lambda: _Exploding(["x"]), "hook validate() returned a value of type _Exploding"),
    ("notes", lambda: ("x" for _ in ()), "hook notes() returned a value of type generator"),
]


@pytest.mark.parametrize(
    ("hook", "mode", "expected"), HOSTILE_ANSWERS, ids=[e for _, _, e in HOSTILE_ANSWERS]
)
def test_hostile_answers_are_one_message(
    hostile: object, write: Write, capsys: pytest.CaptureFixture[str], hook: str, mode: object, expected: str
) -> None:
    hostile.MODE[hook] = mode  # type: ignore[attr-defined]
    code, out, err = cli(capsys, "render", str(write(spec_with(profile={"engine": "rogue"}))), "--json")
    assert code in (1, 2), err
    assert_one_clean_message(code, out, err, expect=code)
    assert expected in err
    assert "\x1b" not in err


def test_a_commands_answer_with_malformed_fields_is_refused(hostile: object, make_shard: object) -> None:
    from hostile_pkgs.rogue import MODE, RogueEngine

    engine = engine_for(RogueEngine(), "rogue")
    shard = make_shard("rogue")  # type: ignore[operator]
    good = CommandBuilder(shard).command("srv", [])
    cases = {
        "whose args are a string of 5": attrs.evolve(good, args="--abc"),  # type: ignore[arg-type]
        "name that contains a control": attrs.evolve(good, name="a\x1bb"),
        "reason that contains a control": attrs.evolve(good, why={**good.why, "A": "x\ny"}),
    }
    for expected, command in cases.items():
        MODE["commands"] = [command]
        with pytest.raises(EngineError) as err:
            engine.plan(shard)
        assert expected in str(err.value)


def test_an_engine_exiting_at_import_is_one_failed_engine(
    hostile: object, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "engines", "--json")
    assert code == 1, err
    rows = {row["name"]: row for row in json.loads(out)}
    assert (rows["quitter"]["status"], rows["quitter"]["detail"]) == ("failed", "SystemExit: 0")
    code, out, err = cli(capsys, "render", str(write(spec_with(profile={"engine": "quitter"}))))
    assert_one_clean_message(code, out, err, expect=2)
    assert "engine 'quitter' failed to load" in err


def test_output_written_to_file_descriptor_1_never_reaches_stdout(
    hostile: object, write: Write, capfd: pytest.CaptureFixture[str]
) -> None:
    path = write(spec_with(profile={"engine": "fdwriter"}))
    code = main(["render", str(path), "--json"], NO_CONFIG)
    out, err = capfd.readouterr()
    assert code == 0, err
    assert json.loads(out)["engine"] == "fdwriter"
    assert "fdwriter at import" in err
    assert "fdwriter in commands" in err


def test_a_closed_stdout_is_one_message(write: Write, fake_env: dict[str, str]) -> None:
    spec = write(GOOD_SPEC)
    result = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -m enginekit render "{spec}" >&-'],
        capture_output=True,
        text=True,
        timeout=60,
        env=fake_env,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("enginekit: error: cannot write the output"), result.stderr


def test_an_encoding_that_cannot_show_a_path_escapes_it(write: Write, fake_env: dict[str, str]) -> None:
    spec = write(spec_with(profile={"model_path": "/models/é"}))
    result = _enginekit(
        "render", str(spec), stdout=subprocess.PIPE, env={**fake_env, "PYTHONIOENCODING": "ascii"}
    )
    assert result.returncode == 0, result.stderr
    assert "/models/\\xe9" in result.stdout


def test_two_distributions_at_one_module_path_are_a_clash(
    fake_dists: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A shadowing package can make "the same" module path run another distribution's code.
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "data" / "hostile_same_value"))
    importlib.invalidate_caches()
    _, out, _ = cli(capsys, "engines", "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["fake"]["status"] == "failed"
    assert "evil-fake 9.9" in rows["fake"]["source"]
    assert "fake-ok 1.0" in rows["fake"]["source"]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('[installed]\nfake = ""\n', "installed.fake: expected an absolute path to the build's root"),
        ('[installed]\nfake = "relative/dir"\n', "installed.fake: expected an absolute path"),
        ("[installed]\nfake = 5\n", "installed.fake: expected an absolute path"),
        ("[engines]\nfake = 5\n", "engines.fake: expected a table, got int"),
        ('[engines.fake]\n"a\\u001bb" = 1\n', "engines.fake"),
    ],
)
def test_a_bad_entry_for_one_engine_fails_that_engine_alone(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, config: str, expected: str
) -> None:
    path = write(config, "config.toml")
    code, out, err = cli(capsys, "--config", str(path), "engines", "--json")
    assert code == 1, err
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["fake"]["status"] == "failed"
    assert expected in rows["fake"]["detail"]
    assert "\x1b" not in out
    assert rows["configurable"]["status"] == "ok"
    code, out, err = cli(
        capsys, "--config", str(path), "render", str(write(spec_with(profile={"engine": "modular"})))
    )
    assert code == 0, err


def test_an_oversized_list_is_refused_without_scanning_it(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    code, out, err = cli(
        capsys, "render", str(write(spec_with(hcas=["a"] * 100_000, gpu_indices=[0] * 100_000)))
    )
    assert_one_clean_message(code, out, err, expect=1)
    assert "hcas: more than 64 entries (100000)" in err
    assert "gpu_indices: more than 1024 entries (100000)" in err
    assert len(err) < 2000


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        # Go folds the Kelvin sign onto "k": refused even in lenient mode, never read as the key.
        ("api_\u212aey", "not a field name, but one Go would read as 'api_key'"),
        ("ＡＰＩ_KEY", "unknown field"),
    ],
)
def test_a_lookalike_spelling_is_not_the_field(key: str, problem: str) -> None:
    spec = json.loads(json.dumps(GOOD_SPEC))
    del spec["api_key"]
    spec[key] = KEY
    with pytest.raises(SpecError) as err:
        structure(spec, ShardSpec, path="spec")
    assert err.value.problems[0].endswith(problem)
    assert KEY not in err.value.problems[0]


@pytest.mark.parametrize("char", ["\u200b", "\u200f", "\u061c", "\ufeff", "\U000e0041", "\u2060"])
def test_invisible_characters_are_refused(char: str) -> None:
    with pytest.raises(SpecError) as err:
        structure(spec_with(profile={"model_path": f"/m{char}"}), ShardSpec, path="spec")
    assert f"an invisible character (U+{ord(char):04X})" in err.value.problems[0]


@pytest.mark.parametrize("host", ["127.1", "2130706433", "10.0.0", "0x7f.1"])
def test_numeric_forms_resolvers_read_as_addresses_are_no_host_names(host: str) -> None:
    from enginekit.spec.rules import check_spec

    spec = structure(spec_with(bind_addr=host), ShardSpec, path="spec")[0]
    assert any("bind_addr: expected a host name or IP address" in p for p in check_spec(spec))


def test_a_gpu_listed_twice_in_the_gpu_file_is_refused(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    gpus = write(json.dumps([{"index": 0}] * 8), "gpus.json")
    code, out, err = cli(capsys, "render", str(write(GOOD_SPEC)), "--gpus", str(gpus))
    assert_one_clean_message(code, out, err, expect=2)
    assert "a GPU index is listed more than once" in err


def test_allow_unsafe_needs_a_visible_reason_and_cannot_open_a_reserved_name(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path
) -> None:
    invisible = write('[env_policy.allow_unsafe]\nLD_PRELOAD = "\\u200b"\n', "c1.toml")
    code, out, err = cli(capsys, "--config", str(invisible), "engines")
    assert_one_clean_message(code, out, err, expect=2)
    assert "env_policy.allow_unsafe['LD_PRELOAD']: contains an invisible character (U+200B)" in err
    reserved = write('[env_policy.allow_unsafe]\nCUDA_VISIBLE_DEVICES = "because"\n', "c2.toml")
    code, out, err = cli(capsys, "--config", str(reserved), "engines")
    assert code == 1
    assert "warning: env_policy.allow_unsafe: CUDA_VISIBLE_DEVICES stays refused: reserved" in err


def test_device_listing_checks_the_shard_first(make_shard: object) -> None:
    from enginekit import hookimpl

    class Lister:
        @hookimpl
        def validate(self) -> list[str]:
            return []

        @hookimpl
        def commands(self, shard: ShardSpec) -> list[Command]:
            return [CommandBuilder(shard).command("x", [])]

        @hookimpl
        def device_listing(self) -> Command:
            return Command(path="list-devices")

    engine = engine_for(Lister(), "lister")
    bad = make_shard("lister", gpu_uuids=("GPU-x,1,2,3",))  # type: ignore[operator]
    with pytest.raises(SpecError, match="gpu_uuids: expected MIG-<uuid> or GPU-<uuid>"):
        engine.device_listing(bad)
    assert engine.device_listing(make_shard("lister")).env["CUDA_VISIBLE_DEVICES"] == "0"  # type: ignore[operator,union-attr]


# --- Found by a second hostile review ---------------------------------------------------------

LONG_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-AbCdEfGhIjKlMnOpQrStUv"


@pytest.mark.parametrize(
    "changes",
    [
        {"http_port": LONG_KEY},
        {"profile": {"tp": LONG_KEY}},
        {"gpu_indices": [LONG_KEY]},
        {"profile": {"kv_events": LONG_KEY}},
        {LONG_KEY: 1},
        {"profile": {"name": LONG_KEY}},
        {"profile": {"env": {"NCCL_" + LONG_KEY.replace("-", ""): "1"}}},
    ],
    ids=lambda changes: "-".join(str(k)[:12] for k in changes),
)
def test_a_long_key_cut_short_in_a_message_is_still_masked(
    write: Write, capsys: pytest.CaptureFixture[str], fake_dists: Path, changes: dict[str, object]
) -> None:
    key = LONG_KEY.replace("-", "") if "env" in changes.get("profile", {}) else LONG_KEY  # type: ignore[operator]
    path = write(spec_with(api_key=key, **changes))
    for command in ("render", "env", "validate"):
        code, out, err = cli(capsys, command, str(path))
        assert code in (0, 1, 2), err
        assert "Traceback" not in err
        for cut in range(16, len(key) + 1):  # no 16-character stretch of the key shows
            assert key[:cut] not in out + err, (command, cut)


class _Rude(BaseException):
    pass


_Rude.__name__ = "Rude\x1b[2J\nenginekit: all good"


def test_any_base_exception_from_a_hook_is_the_plugins_and_its_name_is_printable(
    hostile: object, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile.MODE["validate"] = _raise(_Rude("boom"))  # type: ignore[attr-defined]
    code, out, err = cli(capsys, "render", str(write(spec_with(profile={"engine": "rogue"}))))
    assert_one_clean_message(code, out, err, expect=2)
    assert "hook validate() raised Rude\\u{001B}[2J\\u{000A}enginekit: all good: boom" in err
    assert err.count("\n") == 1


def test_validate_of_a_spec_is_render_without_the_output(
    write: Write, capsys: pytest.CaptureFixture[str], hostile: object
) -> None:
    spec = spec_with(profile={"engine": "rogue"})
    # With the shard's placement, so the one thing wrong is the key on the command line.
    build = CommandBuilder(structure(spec, ShardSpec, path="spec")[0])
    hostile.MODE["commands"] = lambda: [build.command("srv", ["--key", KEY])]  # type: ignore[attr-defined]
    path = write(spec)
    for command in ("render", "validate"):
        code, out, err = cli(capsys, command, str(path))
        assert_one_clean_message(code, out, err, expect=2)
        assert "put the API key on a command line" in err


def test_a_refusal_given_as_one_string_is_one_problem_with_the_key_masked(
    hostile: object, make_shard: object
) -> None:
    from hostile_pkgs.rogue import MODE, RogueEngine

    MODE["commands"] = _raise(SpecError(f"single {KEY}"))
    with pytest.raises(SpecError) as refused:
        engine_for(RogueEngine(), "rogue").plan(make_shard("rogue", api_key=KEY))  # type: ignore[operator]
    assert refused.value.problems == ("single <secret>",)
