"""Shared validation and pass-through argument reading."""

from __future__ import annotations

import pytest
from enginekit import Adapter, GPUInfo, Profile
from enginekit.args import (
    ArgSyntax,
    code_loading_problems,
    find_options,
    managed_option_problems,
    option_values,
)
from enginekit.checks import quantization_of, require_compute_capability, validate_common

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


@pytest.mark.parametrize(
    "token",
    ["--trust-remote-code", "--trust_remote_code", "--trust-remote", "--trust-remote-code=true", "--trust"],
)
def test_spellings_of_a_refused_flag_are_caught(token: str) -> None:
    problems = code_loading_problems(
        "llama",
        [token],
        {"--trust-remote-code": "runs code from the model"},
        (),
        VLLM_LIKE,
        config_key="allow_args",
    )
    assert problems == [
        f"profile 'llama': args: {token.split('=')[0]!r} (--trust-remote-code) runs code from the model; refused unless the "
        f'site allows it (allow_args = ["--trust-remote-code"])'
    ]


def test_allowed_flags_pass() -> None:
    problems = code_loading_problems(
        "llama",
        ["--trust-remote-code"],
        {"--trust-remote-code": "runs code"},
        {"--trust-remote-code"},
        VLLM_LIKE,
        config_key="allow_args",
    )
    assert problems == []


def test_dotted_keys_and_managed_options() -> None:
    uses = find_options(
        ["--kv-transfer-config.kv_connector_module_path", "evil"], {"--kv-transfer-config"}, VLLM_LIKE
    )
    assert [u.option for u in uses] == ["--kv-transfer-config"]
    assert managed_option_problems(
        "llama", ["-tp", "8"], {"--tensor-parallel-size": "use profile.tp"}, VLLM_LIKE
    ) == ["profile 'llama': args: '-tp' sets --tensor-parallel-size, which enginekit manages; use profile.tp"]


def test_values_are_never_echoed() -> None:
    [problem] = managed_option_problems(
        "llama", ["--api-key=sekrit"], {"--api-key": "use the shard's api_key"}, VLLM_LIKE
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
