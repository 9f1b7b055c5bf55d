"""Shared validation and pass-through argument reading."""

from __future__ import annotations

import attrs
import pytest
from enginekit import Adapter, GPUInfo, Profile
from enginekit.policy.args import (
    ArgSyntax,
    code_loading_problems,
    find_options,
    managed_option_problems,
    option_values,
    secret_option_problems,
)
from enginekit.policy.checks import (
    arg_policy_problems,
    bounds_problems,
    quantization_of,
    require_compute_capability,
    validate_common,
)
from enginekit.policy.engine import EnginePolicy

H100 = GPUInfo(index=0, name="NVIDIA H100", compute_capability="9.0")
A10 = GPUInfo(index=1, name="NVIDIA A10", compute_capability="8.6")


def profile(**fields: object) -> Profile:
    return Profile(**{"name": "llama", "engine": "x", "model_path": "/m", **fields})  # type: ignore[arg-type]


def test_a_valid_profile_has_no_problems() -> None:
    assert validate_common(profile(tp=2), [H100, H100]) == []


def test_every_problem_is_reported_at_once_starting_with_the_profile_name() -> None:
    problems = validate_common(
        profile(
            model_path="", tp=0, nodes=2, env={"LD_PRELOAD": "/x"}, adapters=(Adapter(name="a=b", path=""),)
        ),
        [H100, A10],
    )
    assert problems == [
        "profile 'llama': model path is empty",
        "profile 'llama': tensor parallel degree must be positive, got 0",
        "profile 'llama': gpus_per_node is required for a 2-node profile",
        "profile 'llama': GPUs are not uniform ('NVIDIA H100' and 'NVIDIA A10'); a tensor-parallel group "
        "may not mix GPU types",
        "profile 'llama': adapters[0]: name 'a=b' must be 1-255 letters, digits, '.', '_' or '-', starting "
        "with a letter or digit",
        "profile 'llama': adapters[0]: path is empty",
        "profile 'llama': env LD_PRELOAD: denied: the dynamic loader or libc would load code or data from it",
    ]


@pytest.mark.parametrize(
    ("fields", "gpus", "expected"),
    [
        (
            {"tp": 4, "pp": 2, "nodes": 2, "gpus_per_node": 2},
            [],
            "2 nodes x 2 GPUs does not match TP 4 x PP 2",
        ),
        ({"tp": 4}, [H100, H100], "needs 4 GPUs per node, node has 2"),
        ({"model_path": "--trust-remote-code"}, [], "model path '--trust-remote-code' starts with '-'"),
        ({"args": ("--x", "--", "y")}, [], "args: a bare '--' ends option parsing"),
        (
            {"adapters": (Adapter(name="a", path="/a"), Adapter(name="a", path="/b"))},
            [],
            "name 'a' is used twice",
        ),
        ({"adapters": (Adapter(name="..", path="/a"),)}, [], "name '..' must be"),
        ({"adapters": (Adapter(name="ok", path="-x"),)}, [], "path '-x' starts with '-'"),
    ],
)
def test_common_refusals(fields: dict[str, object], gpus: list[GPUInfo], expected: str) -> None:
    problems = validate_common(profile(**fields), gpus)
    assert any(p.startswith(f"profile 'llama': {expected}") or expected in p for p in problems), problems


def test_go_zero_values_mean_one() -> None:
    assert validate_common(profile(tp=2, pp=0, nodes=0), []) == []


def test_compute_capability_floor() -> None:
    assert require_compute_capability(profile(), [A10, H100], 8.9, "fp8 quantization") == [
        "profile 'llama': fp8 quantization needs compute capability 8.9, GPU 1 (NVIDIA A10) has 8.6"
    ]
    unknown = GPUInfo(index=0, name="?", compute_capability="")
    assert require_compute_capability(profile(), [unknown], 8.9, "fp8") == []


VLLM_LIKE = ArgSyntax(
    known={
        "--quantization",
        "--trust-remote-code",
        "--port",
        "--kv-transfer-config",
        "--tensor-parallel-size",
    },
    aliases={"-q": "--quantization", "-tp": "--tensor-parallel-size"},
    underscores=True,
    dotted=True,
)


@pytest.mark.parametrize(
    "args",
    [
        ["--quantization", "fp8"],
        ["--quantization=fp8"],
        ["--quant", "fp8"],
        ["-q", "fp8"],
        ["-qfp8"],
        ["--max-model-len", "4096", "--quantization", "awq", "--quantization", "fp8"],
    ],
)
def test_quantization_is_read_as_the_parser_reads_it(args: list[str]) -> None:
    assert quantization_of(args, VLLM_LIKE) == "fp8"
    assert quantization_of(VLLM_LIKE.parse(args)) == "fp8"


@pytest.mark.parametrize(
    "token",
    ["--trust-remote-code", "--trust_remote_code", "--trust-remote", "--trust-remote-code=true", "--trust"],
)
def test_spellings_of_a_refused_flag_are_caught(token: str) -> None:
    problems = code_loading_problems(
        "llama",
        VLLM_LIKE.parse([token]),
        {"--trust-remote-code": "runs code from the model"},
        (),
        config_key="allow_args",
    )
    assert problems == [
        f"profile 'llama': args: {token.split('=')[0]!r} (--trust-remote-code) runs code from the model; refused unless the "
        f'site allows it (allow_args = ["--trust-remote-code"])'
    ]


def test_allowed_flags_pass() -> None:
    problems = code_loading_problems(
        "llama",
        VLLM_LIKE.parse(["--trust-remote-code"]),
        {"--trust-remote-code": "runs code"},
        {"--trust-remote-code"},
        config_key="allow_args",
    )
    assert problems == []


def test_dotted_keys_and_managed_options() -> None:
    uses = find_options(
        ["--kv-transfer-config.kv_connector_module_path", "evil"], {"--kv-transfer-config"}, VLLM_LIKE
    )
    assert [u.option for u in uses] == ["--kv-transfer-config"]
    assert managed_option_problems(
        "llama", VLLM_LIKE.parse(["-tp", "8"]), {"--tensor-parallel-size": "use profile.tp"}
    ) == ["profile 'llama': args: '-tp' sets --tensor-parallel-size, which enginekit manages; use profile.tp"]


def test_values_are_never_echoed() -> None:
    [problem] = managed_option_problems(
        "llama", VLLM_LIKE.parse(["--api-key=sekrit"]), {"--api-key": "use the shard's api_key"}
    )
    assert "sekrit" not in problem
    assert "'--api-key' sets --api-key" in problem


def test_underscores_only_where_the_parser_accepts_them() -> None:
    strict = ArgSyntax(known={"--trust-remote-code"})
    assert option_values(["--trust_remote_code", "x"], "--trust-remote-code", strict) == []
    assert [u.option for u in find_options(["--trust-rem"], {"--trust-remote-code"}, strict)] == [
        "--trust-remote-code"
    ]


def test_exact_match_wins_over_prefix() -> None:
    syntax = ArgSyntax(known={"--port", "--port-range"})
    assert find_options(["--port-range", "1"], {"--port"}, syntax) == []


def test_negative_numbers_are_values() -> None:
    assert option_values(["--seed", "-1"], "--seed", ArgSyntax(known={"--seed"})) == ["-1"]


def test_a_multi_letter_short_option_is_not_a_glued_value() -> None:
    syntax = ArgSyntax(known={"-ngl", "--n-gpu-layers"}, aliases={"-ngl": "--n-gpu-layers"})
    assert option_values(["-ngl", "5"], "--n-gpu-layers", syntax) == ["5"]


def test_a_profile_name_with_a_colon_keeps_every_message_whole() -> None:
    problems = validate_common(profile(name="a: b", args=("--",)), [])
    assert problems == [
        "profile 'a: b': args: a bare '--' ends option parsing, so what follows would be read as "
        "positional arguments"
    ]


@pytest.mark.parametrize("token", ["--api-key=sk-live-123", "--api_key=sk-live-123", "--api-k=sk-live-123"])
def test_a_secret_option_is_refused_by_place_without_echoing_its_value(token: str) -> None:
    syntax = ArgSyntax(known={"--api-key", "--port"}, underscores=True)
    [problem] = secret_option_problems(
        "llama", syntax.parse(["--port", "1", token]), {"--api-key": "the shard's api_key sets it"}
    )
    assert problem == (
        "profile 'llama': args[2]: --api-key puts a secret on the command line, which every local "
        "user can read; the shard's api_key sets it"
    )
    assert "sk-live" not in problem


POLICY = EnginePolicy(
    syntax=ArgSyntax(known={"--trust-remote-code", "--port", "--api-key", "--seed"}),
    arity={"--trust-remote-code": 0, "--port": 1, "--api-key": 1, "--seed": 1},
    managed_args={"--port": "enginekit sets it from the shard's http_port"},
    risky_args={"--trust-remote-code": "runs code from the model"},
    secret_args={"--api-key": "the shard's api_key sets it"},
    display_name="MyEngine",
)


def test_the_policy_checks_refuse_positional_managed_risky_and_secret_options_at_once() -> None:
    args = POLICY.syntax.parse(["stray", "--port", "1", "--trust-remote-code", "--api-key", "k"])
    assert arg_policy_problems(profile(), args, POLICY, "myengine") == [
        "profile 'llama': args[0]: not an option, and no option comes before it to take it as a value, "
        "so MyEngine would read it as a positional argument; a profile's args may give none "
        "(enginekit passes the model itself): remove it, or put it right after the option it is a "
        "value of",
        "profile 'llama': args: '--port' sets --port, which enginekit manages; enginekit sets it from "
        "the shard's http_port",
        "profile 'llama': args: '--trust-remote-code' (--trust-remote-code) runs code from the model; "
        'refused unless the site allows it (engines.myengine.allow_args = ["--trust-remote-code"])',
        "profile 'llama': args[4]: --api-key puts a secret on the command line, which every local user "
        "can read; the shard's api_key sets it",
    ]


def test_the_policy_checks_pass_what_the_site_allows_and_skip_positionals_without_arity() -> None:
    site_allows: frozenset[str] = frozenset({"--trust-remote-code"})
    allowed = attrs.evolve(POLICY, allowed_args=site_allows, arity=None)
    args = POLICY.syntax.parse(["stray", "--trust-remote-code", "--seed", "1"])
    assert arg_policy_problems(profile(), args, allowed, "myengine") == []


def test_the_positional_message_names_the_engine_when_the_policy_has_no_display_name() -> None:
    unnamed = attrs.evolve(POLICY, display_name="")
    [problem] = arg_policy_problems(profile(), POLICY.syntax.parse(["stray"]), unnamed, "myengine")
    assert "so myengine would read it as a positional argument" in problem


def test_data_parallel_counts_in_the_gpus_of_the_nodes() -> None:
    assert validate_common(profile(tp=2, dp=2, gpus_per_node=4), [H100] * 4) == []
    assert validate_common(profile(tp=2, dp=0, pp=0), [H100] * 2) == []  # Go's zero values: 1
    problems = validate_common(profile(tp=1, dp=2, gpus_per_node=4), [H100] * 4)
    assert "1 nodes x 4 GPUs does not match TP 1 x PP 1 x DP 2" in problems[0]
    # A zero pipeline or data-parallel degree still counts as 1 in the check.
    assert (
        "does not match TP 2 x PP 1" in validate_common(profile(tp=2, pp=0, nodes=2, gpus_per_node=4), [])[0]
    )
    assert (
        "does not match TP 2 x PP 1" in validate_common(profile(tp=2, dp=0, nodes=2, gpus_per_node=4), [])[0]
    )


def test_negative_data_parallel_degrees_are_refused() -> None:
    for fields in ({"dp": -1}, {"dp_per_node": -1}):
        problems = validate_common(profile(tp=1, **fields), [H100])
        assert "profile 'llama': dp and dp_per_node must not be negative" in problems


def test_a_rank_under_external_balancing_counts_its_own_gpus() -> None:
    external = profile(tp=2, dp=2, gpus_per_node=4, dp_balancing="external")
    assert validate_common(external, [H100]) == ["profile 'llama': needs 2 GPUs per rank, node has 1"]


def test_data_parallel_degrees_are_bounded() -> None:
    assert bounds_problems(profile(dp=70000, dp_per_node=70000)) == [
        "profile 'llama': dp: expected at most 65536, got 70000",
        "profile 'llama': dp_per_node: expected at most 65536, got 70000",
    ]
