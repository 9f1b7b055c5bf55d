"""The simulator's numbers: real numbers only, finite, within the range a real engine could use.

A node config's float fields refuse strings, bools, inf and nan instead of letting
``float()`` accept ``"50"``, ``true``, ``"1_0"`` or ``"٥"``; every number keeps to the
limits the server checks at start, so an accepted config never renders a command the
server refuses. A profile's args are held to the same limits, and their numbers must be
plain ASCII decimals; messages about args never quote the value.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import pytest
from enginekit import Profile
from enginekit.base.errors import SpecError
from enginekit.spec.convert import structure
from enginekit.spec.model import MAX_KV_CACHE_MIB
from enginekit.testing import engine_for
from enginekit_sim.limits import MAX_KV_CACHE_BYTES
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import Real, SimConfig
from enginekit_sim.server import cli
from enginekit_sim.server.settings import LIMITS, StartupError, settings_from

PATH = "engines.sim"
FLOATS = ("startup_seconds", "ttft_ms", "itl_ms", "prefill_ms_per_token")


def refusal(raw: dict[str, Any]) -> str:
    with pytest.raises(SpecError) as error:
        structure(raw, SimConfig, path=PATH)
    (problem,) = error.value.problems
    return problem


@pytest.mark.parametrize("field", FLOATS)
@pytest.mark.parametrize(
    ("value", "why"),
    [
        # Read by the core's converter, which holds every float field of every engine to this.
        ("50", "expected a number, got str '50'"),
        ("1_0", "expected a number, got str '1_0'"),
        ("٥", "expected a number, got str '٥'"),
        (True, "expected a number, got bool True"),
        (False, "expected a number, got bool False"),
        ([5], "expected a number, got list"),
        (math.inf, "expected a finite number, got inf"),
        (-math.inf, "expected a finite number, got -inf"),
        (math.nan, "expected a finite number, got nan"),
        (10**400, "expected a finite number, got an integer of 401 digits"),
    ],
)
def test_a_float_field_takes_only_a_finite_real_number(field: str, value: object, why: str) -> None:
    assert refusal({field: value}) == f"{PATH}.{field}: {why}"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("startup_seconds", -1, "startup_seconds must be between 0 and 3600 seconds, got -1"),
        ("startup_seconds", 86_400.0, "startup_seconds must be between 0 and 3600 seconds, got 86400"),
        ("ttft_ms", 1e9, "ttft_ms must be between 0 and 600000 milliseconds, got 1000000000"),
        ("itl_ms", -0.5, "itl_ms must be between 0 and 60000 milliseconds, got -0.5"),
        (
            "prefill_ms_per_token",
            5000,
            "prefill_ms_per_token must be between 0 and 1000 milliseconds, got 5000",
        ),
        ("max_num_seqs", 0, "max_num_seqs must be between 1 and 65536 requests, got 0"),
        ("max_model_len", 2**40, "max_model_len must be between 1 and 16777216 tokens, got 1099511627776"),
        ("block_size", 4096, "block_size must be between 1 and 1024 tokens, got 4096"),
        ("num_gpu_blocks", 0, "num_gpu_blocks must be between 1 and 16777216 blocks, got 0"),
        ("kv_bytes_per_token", 0, "kv_bytes_per_token must be between 1 and 16777216 bytes, got 0"),
    ],
)
def test_numbers_keep_to_their_domain(field: str, value: float, message: str) -> None:
    assert refusal({field: value}) == f"{PATH}: {message}"


@pytest.mark.parametrize(
    ("field", "value"),
    [("max_num_seqs", True), ("block_size", "16"), ("max_model_len", 4.5), ("kv_bytes_per_token", "131072")],
)
def test_integer_fields_stay_strict(field: str, value: object) -> None:
    assert refusal({field: value}).startswith(f"{PATH}.{field}: expected an integer")


def test_whole_and_fractional_numbers_pass_and_render_as_floats() -> None:
    config, _ = structure(
        {"ttft_ms": 5, "itl_ms": 0.25, "startup_seconds": 0, "prefill_ms_per_token": 1000},
        SimConfig,
        path=PATH,
    )
    assert (config.ttft_ms, config.itl_ms, config.startup_seconds) == (5.0, 0.25, 0.0)
    assert type(config.ttft_ms) is Real
    assert isinstance(config.ttft_ms, float)


def test_direct_construction_is_held_to_the_same_rules() -> None:
    with pytest.raises(TypeError, match="expected a number, got true or false"):
        SimConfig(ttft_ms=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="expected a finite number, got inf"):
        SimConfig(itl_ms=math.inf)
    assert SimConfig(ttft_ms=7).ttft_ms == 7.0


def test_the_config_limits_are_the_servers() -> None:
    # A config the plugin accepts renders numbers the server's own checks accept.
    defaults = SimConfig()
    for field in FLOATS:
        assert LIMITS[field].low <= getattr(defaults, field) <= LIMITS[field].high


# --- the same numbers in a profile's args, and at the server's start --------------------------


def problems(*args: str) -> list[str]:
    prof = Profile(name="p", engine="sim", tp=1, model_path="/m", args=args)
    return engine_for(SimEngine(SimConfig()), "sim").validate(prof, [])


@pytest.mark.parametrize("value", ["1_0", "٥", " 5", "inf", "nan", "-inf", "0x10", "5ms", "1e"])
@pytest.mark.parametrize("option", ["--ttft-ms", "--startup-seconds", "--prefill-ms-per-token"])
def test_a_number_in_the_args_must_be_a_plain_decimal(option: str, value: str) -> None:
    for args in ((option, value), (f"{option}={value}",)):
        found = problems(*args)
        assert (
            f"profile 'p': args: {option!r} ({option}) takes a plain decimal number (ASCII digits, "
            f"a sign, a point and an exponent); its value is not one"
        ) in found
        # argparse reads '-inf' given alone as an option, not as a negative number: the
        # server would stop on it as an unknown option, and so is it refused.
        alone = len(args) == 2 and value == "-inf"
        assert len(found) == (2 if alone else 1), found
        if alone:
            assert found[0].startswith("profile 'p': args: '-inf' is not an option of the simulated engine")


@pytest.mark.parametrize("value", ["1_024", "١٦", "16.0"])
def test_an_integer_in_the_args_must_be_plain_digits(value: str) -> None:
    (problem,) = problems("--block-size", value)
    assert "takes a plain decimal integer (ASCII digits, a sign, nothing else)" in problem


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--ttft-ms", "1e9"), "--ttft-ms must be between 0 and 600000 milliseconds"),
        (("--itl-ms=-1",), "--itl-ms must be between 0 and 60000 milliseconds"),
        (("--startup-seconds", "1e400"), "--startup-seconds must be a finite number"),
        (("--block-size", "0"), "--block-size must be between 1 and 1024 tokens"),
        (("--heartbeat-seconds", "0"), "--heartbeat-seconds must be between 0.001 and 3600 seconds"),
        (("--kv-bytes-per-token", "16777217"), "--kv-bytes-per-token must be between 1 and 16777216 bytes"),
    ],
)
def test_numbers_in_the_args_keep_to_the_servers_limits(args: tuple[str, ...], message: str) -> None:
    (problem,) = problems(*args)
    assert problem == f"profile 'p': args: the simulated engine refuses them: {message}"


@pytest.mark.parametrize(
    "args",
    [
        ("--ttft-ms", "20"),
        ("--itl-ms=0.5",),
        ("--startup-seconds", "1e2"),
        ("--seed", "-1"),
        ("--block-size", "32"),
    ],
)
def test_plain_numbers_in_range_pass(args: tuple[str, ...]) -> None:
    assert problems(*args) == []


def serve_args(*extra: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(["serve", "/m", *extra])


def test_the_server_refuses_infinite_and_huge_numbers_at_start() -> None:
    # The server's parser takes float("inf"): its own check stops it, as vLLM would.
    with pytest.raises(StartupError) as error:
        settings_from(serve_args("--ttft-ms", "inf", "--itl-ms", "nan", "--max-num-seqs", "100000000"), {})
    text = str(error.value)
    assert "--ttft-ms must be a finite number, got inf" in text
    assert "--itl-ms must be a finite number, got nan" in text
    assert "--max-num-seqs must be between 1 and 65536 requests, got 100000000" in text


def test_the_servers_memory_limit_is_the_most_a_shard_spec_reserves() -> None:
    assert MAX_KV_CACHE_BYTES == MAX_KV_CACHE_MIB * 1024 * 1024
    with pytest.raises(StartupError) as error:
        settings_from(serve_args("--kv-cache-memory-bytes", "0", "--kv-bytes-per-token", "0"), {})
    assert str(error.value) == (
        "--kv-cache-memory-bytes must be between 1 and 70368744177664 bytes, got 0; "
        "--kv-bytes-per-token must be between 1 and 16777216 bytes, got 0"
    )
    assert settings_from(serve_args("--kv-cache-memory-bytes", str(MAX_KV_CACHE_BYTES)), {}).num_blocks


def test_the_keep_alive_is_vllms_and_its_variable_is_read_as_whole_seconds() -> None:
    assert settings_from(serve_args(), {}).keep_alive_s == 5
    assert settings_from(serve_args(), {"VLLM_HTTP_TIMEOUT_KEEP_ALIVE": " 75 "}).keep_alive_s == 75
    for bad in ("0", "1.5", "-1", "²", "9" * 5000, "3601"):
        with pytest.raises(StartupError) as error:
            settings_from(serve_args(), {"VLLM_HTTP_TIMEOUT_KEEP_ALIVE": bad})
        message = str(error.value)
        assert message.startswith("VLLM_HTTP_TIMEOUT_KEEP_ALIVE must be whole seconds in 1..3600, got ")
        assert len(message) < 120  # a huge value is cut, not echoed
