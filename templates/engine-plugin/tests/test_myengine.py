"""myengine-server's own rules: its variables, its flags, its value checks and the commands it builds."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any

import pytest
from enginekit import load_spec
from enginekit.plugin import GPUInfo, Profile, ShardSpec
from enginekit.testing import EnvPolicy, check_engine, engine_for
from hypothesis import given
from hypothesis import strategies as st

from enginekit_myengine import MyEngine, MyEngineConfig

KEY = "sk-myengine-0123456789abcdef"
MIG = "MIG-4f7a8c2e-1b3d-4e5f-8a9b-0c1d2e3f4a5b"
H100 = GPUInfo(index=0, name="H100", compute_capability="9.0")
A100 = GPUInfo(index=0, name="A100", compute_capability="8.0")
EXAMPLES = Path(__file__).parents[1] / "examples"


def profile(**fields: Any) -> Profile:
    """A one-GPU profile of engine ``myengine``."""
    return Profile(**{"name": "demo", "engine": "myengine", "model_path": "/models/demo", **fields})


def shard(**fields: Any) -> ShardSpec:
    """A one-GPU shard; ``profile_*`` fields go to the profile."""
    prof = {k.removeprefix("profile_"): v for k, v in fields.items() if k.startswith("profile_")}
    spec = {k: v for k, v in fields.items() if not k.startswith("profile_")}
    return ShardSpec(
        profile=profile(**prof), **{"shard_id": "s0", "http_port": 8000, "gpu_indices": (0,), **spec}
    )


def two_nodes(rank: int, **fields: Any) -> ShardSpec:
    """Rank ``rank`` of a replica over two nodes of 8 GPUs, on InfiniBand."""
    defaults: dict[str, Any] = {
        "rank": rank,
        "nnodes": 2,
        "leader_addr": "10.0.0.1",
        "leader_port": 29500,
        "bind_addr": f"10.0.0.{rank + 1}",
        "gpu_indices": tuple(range(8)),
        "hcas": ("mlx5_0", "mlx5_1"),
        "mgmt_interface": "eth0",
        "profile_tp": 16,
        "profile_gpus_per_node": 8,
        "profile_nodes": 2,
    }
    return shard(**{**defaults, **fields})


def problems(
    prof: Profile, *, config: MyEngineConfig | None = None, site: EnvPolicy | None = None
) -> list[str]:
    """Every problem with ``prof``, under the engine's ``config`` and the ``site``'s env policy."""
    engine = engine_for(MyEngine(config or MyEngineConfig()), "myengine", policy=site or EnvPolicy())
    return engine.validate(prof)


# The API key


def test_the_key_reaches_the_leader_through_its_environment_only() -> None:
    (command,) = check_engine(MyEngine(), shard(api_key=KEY))
    assert command.env["MYENGINE_API_KEY"] == KEY
    assert command.secret_env == frozenset({"MYENGINE_API_KEY"})
    assert not any(KEY in arg for arg in command.argv())


@given(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{15,63}", fullmatch=True))
def test_no_key_is_ever_in_argv(key: str) -> None:
    for spec in (shard(api_key=key), two_nodes(0, api_key=key), two_nodes(1, api_key=key)):
        for command in check_engine(MyEngine(), spec):
            assert key not in " ".join(command.argv())


def test_a_worker_never_holds_the_key() -> None:
    (command,) = check_engine(MyEngine(), two_nodes(1, api_key=KEY))
    assert "MYENGINE_API_KEY" not in command.env


def test_the_key_flag_is_refused_in_every_spelling_without_echoing_its_value() -> None:
    for args in (("--api-key", KEY), (f"--api-key={KEY}",), ("--api", KEY)):
        (problem,) = problems(profile(args=args))
        assert "puts a secret on the command line" in problem
        assert KEY not in problem


def test_a_site_cannot_open_the_key_variable_even_by_name() -> None:
    site = EnvPolicy(allow=["MYENGINE_API_KEY"])
    assert problems(profile(env={"MYENGINE_API_KEY": KEY}), site=site) == [
        "profile 'demo': env MYENGINE_API_KEY: reserved by the engine: generated for the shard, or carries its secret"
    ]


# Variables


def test_a_tuning_variable_in_the_engines_namespace_passes_and_reaches_the_process() -> None:
    spec = shard(profile_env={"MYENGINE_THREADS": "4"})
    assert problems(spec.profile) == []
    (command,) = check_engine(MyEngine(), spec)
    assert command.env["MYENGINE_THREADS"] == "4"


def test_a_generated_variable_is_reserved() -> None:
    assert problems(profile(env={"MYENGINE_HOST_IP": "10.9.9.9"})) == [
        "profile 'demo': env MYENGINE_HOST_IP: reserved by the engine: generated for the shard, or carries its secret"
    ]


def test_a_variable_that_loads_code_is_refused_and_allow_cannot_open_it() -> None:
    env = {"MYENGINE_PLUGIN_DIR": "plugins"}
    assert problems(profile(env=env)) == [
        "profile 'demo': env MYENGINE_PLUGIN_DIR: denied: loads Python code into the server"
    ]
    (problem,) = problems(profile(env=env), site=EnvPolicy(allow=["MYENGINE_PLUGIN_DIR"]))
    assert "env_policy.allow cannot open this group" in problem


def test_a_name_in_the_open_namespace_that_loads_code_is_still_refused() -> None:
    # MYENGINE_ is open, and no suffix gives this one away: only the deny group stops it.
    assert problems(profile(env={"MYENGINE_PRELOAD": "evil"})) == [
        "profile 'demo': env MYENGINE_PRELOAD: denied: loads Python code into the server"
    ]


def test_allow_unsafe_opens_a_floor_name_with_a_reason() -> None:
    site = EnvPolicy(allow_unsafe={"MYENGINE_PLUGIN_DIR": "vendor plugin, change OPS-1"})
    assert problems(profile(env={"MYENGINE_PLUGIN_DIR": "plugins"}), site=site) == []


def test_a_non_floor_name_opens_with_the_sites_allow() -> None:
    env = {"MYENGINE_DUMP_REQUESTS": "1"}
    assert problems(profile(env=env)) == [
        "profile 'demo': env MYENGINE_DUMP_REQUESTS: denied: writes every request and its reply to the host's disk"
    ]
    assert problems(profile(env=env), site=EnvPolicy(allow=["MYENGINE_DUMP_REQUESTS"])) == []


# Flags


@pytest.mark.parametrize("token", ["--trust-remote-code", "--trust-remote", "--trust"])
def test_trust_remote_code_is_refused_in_every_spelling_unless_the_site_allows_it(token: str) -> None:
    assert problems(profile(args=(token,))) == [
        f"profile 'demo': args: {token!r} (--trust-remote-code) runs Python code shipped with the model's files; "
        f'refused unless the site allows it (engines.myengine.allow_args = ["--trust-remote-code"])'
    ]
    allowed = MyEngineConfig(allow_args=("--trust-remote-code",))
    assert problems(profile(args=(token,)), config=allowed) == []


@pytest.mark.parametrize("token", ["--port", "--port=9000", "-tp"])
def test_flags_enginekit_sets_are_refused(token: str) -> None:
    args = (token,) if "=" in token else (token, "2")
    (problem,) = problems(profile(args=args))
    assert "which enginekit manages" in problem


def test_a_positional_token_is_refused() -> None:
    (problem,) = problems(profile(args=("--max-model-len", "4096", "/models/other")))
    assert "myengine-server would read it as a positional argument" in problem


def test_the_config_refuses_to_allow_a_managed_or_secret_flag() -> None:
    for flag in ("--port", "--api-key"):
        with pytest.raises(ValueError, match="cannot be allowed"):
            MyEngineConfig(allow_args=(flag,))
    with pytest.raises(ValueError, match="relative path"):
        MyEngineConfig(executable="bin/myengine-server")


# Values


def test_an_unknown_dtype_is_refused_in_any_spelling() -> None:
    assert problems(profile(args=("--dtype=float64",))) == [
        "profile 'demo': args: --dtype 'float64': expected one of auto, float16, bfloat16, fp8"
    ]
    assert problems(profile(args=("--dt", "bfloat16"))) == []


def test_fp8_needs_a_gpu_with_fp8_and_a_release_that_has_it() -> None:
    fp8 = profile(args=("--dtype", "fp8"))
    engine = engine_for(MyEngine(), "myengine")
    assert engine.validate(fp8, [H100]) == []
    assert engine.validate(fp8, [A100]) == [
        "profile 'demo': --dtype fp8 needs compute capability 8.9, GPU 0 (A100) has 8.0"
    ]
    old = engine_for(MyEngine(MyEngineConfig(version="1.1.3")), "myengine")
    assert old.validate(fp8, [H100]) == [
        "profile 'demo': args: --dtype fp8 needs myengine-server 1.2.0 or later, and engines.myengine.version is 1.1.3"
    ]


# Commands


def test_one_gpu_shard() -> None:
    (command,) = check_engine(MyEngine(), shard(gpu_indices=(3,), bind_addr="10.0.0.7"))
    assert command.argv() == [
        "myengine-server",
        "--model", "/models/demo",
        "--tensor-parallel-size", "1",
        "--pipeline-parallel-size", "1",
        "--host", "10.0.0.7",
        "--port", "8000",
        "--served-model-name", "/models/demo",
        "--enable-metrics",
    ]  # fmt: skip
    assert command.env["CUDA_VISIBLE_DEVICES"] == "3"
    assert not command.wait_for_leader_port


def test_placement_variables_are_in_every_command() -> None:
    (command,) = check_engine(MyEngine(), shard(gpu_indices=(2, 5), profile_tp=2))
    assert command.env["CUDA_VISIBLE_DEVICES"] == "2,5"
    assert check_engine(MyEngine(), shard(gpu_uuids=(MIG,)))[0].env["CUDA_VISIBLE_DEVICES"] == MIG
    for rank in (0, 1):
        (command,) = check_engine(MyEngine(), two_nodes(rank))
        assert command.env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"
        assert command.env["NCCL_IB_HCA"] == "mlx5_0,mlx5_1"


def test_a_cpu_shard_hides_every_gpu_and_uses_its_reserved_cores() -> None:
    (command,) = check_engine(MyEngine(), shard(gpu_indices=(), threads=12))
    assert command.env["CUDA_VISIBLE_DEVICES"] == ""
    assert command.args[6:10] == ("--device", "cpu", "--threads", "12")


def test_the_leader_serves_and_a_worker_joins_it_headless() -> None:
    engine = engine_for(MyEngine(), "myengine")
    leader, worker = two_nodes(0), two_nodes(1)
    (lead,) = check_engine(MyEngine(), leader)
    (work,) = check_engine(MyEngine(), worker)
    assert engine.serves_http(leader) is True
    assert engine.serves_http(worker) is False
    assert "--port" in lead.args
    assert not lead.wait_for_leader_port
    assert work.args[-7:] == ("--nnodes", "2", "--node-rank", "1", "--leader", "10.0.0.1:29500", "--headless")
    assert "--port" not in work.args
    assert work.wait_for_leader_port
    assert (lead.env["MYENGINE_HOST_IP"], work.env["MYENGINE_HOST_IP"]) == ("10.0.0.1", "10.0.0.2")
    assert engine.notes(worker) == ["rank 1 serves no HTTP: it joins the leader at 10.0.0.1:29500"]


def test_an_ipv6_leader_is_bracketed() -> None:
    (command,) = check_engine(MyEngine(), two_nodes(1, leader_addr="fd00::1", bind_addr="fd00::2"))
    assert "[fd00::1]:29500" in command.args


def test_the_profiles_args_come_last() -> None:
    (command,) = check_engine(MyEngine(), shard(profile_args=("--max-model-len", "8192")))
    assert command.args[-2:] == ("--max-model-len", "8192")


def test_health_and_metrics_paths() -> None:
    engine = engine_for(MyEngine(), "myengine")
    assert (engine.health_path(), engine.metrics_path()) == ("/ready", "/metrics")


def test_the_distribution_publishes_the_engine_under_its_name() -> None:
    (entry,) = importlib.metadata.entry_points(group="enginekit.engines", name="myengine")
    assert entry.load() is MyEngine


def test_the_example_spec_renders() -> None:
    spec = load_spec(EXAMPLES / "myengine-single-gpu.toml").spec
    plan = engine_for(MyEngine(), "myengine").plan(spec)
    (command,) = plan.commands
    assert command.args[-4:] == ("--dtype", "bfloat16", "--max-model-len", "8192")
    assert command.env["CUDA_VISIBLE_DEVICES"] == "2,3"
    assert command.env["MYENGINE_THREADS"] == "4"
