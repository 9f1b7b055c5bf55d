"""SGLang command-building rules, each pinned with the reason it exists (issue 17's mutation run)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from enginekit.plugin import EngineError, Profile, ShardSpec, parse_version
from enginekit_sglang.build import KEY_ENV, THREADS_ENV, cpu_binding, kv_events_config, server_env

KEY = "sk-7f3c9a1e5b2d4c6a8e0f1a2b3c4d5e6f"


def cpu_shard(tp: int, threads: int, **changes: Any) -> ShardSpec:
    profile = Profile(name="qwen-cpu", engine="sglang", tp=tp, gpus_per_node=tp, model_path="/models/q")
    base = ShardSpec(shard_id="s-0", profile=profile, http_port=30000, threads=threads)
    return attrs.evolve(base, **changes)


@pytest.mark.parametrize(
    ("threads", "ranks", "groups"),
    [(1, 1, "0"), (2, 2, "0|1"), (4, 2, "0-1|2-3"), (3, 2, "0-1|2"), (7, 3, "0-2|3-4|5-6"), (8, 1, "0-7")],
)
def test_reserved_cores_are_split_into_contiguous_groups_one_per_rank(
    threads: int, ranks: int, groups: str
) -> None:
    # SGLang sizes each rank's OpenMP pool from its group; the first ranks take the rest.
    assert cpu_binding(threads, ranks) == groups


@pytest.mark.parametrize(("threads", "ranks"), [(1, 2), (4, 0), (0, 0), (3, 4)])
def test_cores_that_cannot_give_every_rank_one_are_refused(threads: int, ranks: int) -> None:
    with pytest.raises(ValueError, match=rf"^{threads} core\(s\) cannot be split between {ranks} rank\(s\)$"):
        cpu_binding(threads, ranks)


def test_a_cpu_shard_with_one_core_per_rank_is_built() -> None:
    built = server_env(cpu_shard(tp=2, threads=2))
    assert built.env[THREADS_ENV] == "0|1"
    assert built.why[THREADS_ENV] == (
        "the 2 cores placement reserved, split between the 2 rank(s) on this node ('|' between ranks); "
        "unset, each rank binds a whole NUMA node. The spec carries a count, not core ids, so the "
        "shard takes cores 0-1"
    )


@pytest.mark.parametrize(("shard_id", "named"), [("s-0", "s-0"), ("", "(unnamed)")])
def test_a_cpu_shard_with_fewer_cores_than_ranks_is_refused_naming_the_shard(
    shard_id: str, named: str
) -> None:
    with pytest.raises(EngineError) as err:
        server_env(cpu_shard(tp=2, threads=1, shard_id=shard_id))
    assert str(err.value) == (
        f"shard spec {named}: threads: 1 reserved core(s) cannot give each of the 2 rank(s) on this node a core"
    )


def test_the_api_key_goes_to_the_launcher_channel_with_its_reason() -> None:
    built = server_env(cpu_shard(tp=1, threads=0, api_key=KEY, gpu_indices=(0,)))
    assert built.env[KEY_ENV] == KEY
    assert built.secret == {KEY_ENV}, "masked in every plan, and declared in the policy's secret_env"
    assert built.why[KEY_ENV] == (
        "the API key, read and removed from the environment by enginekit's launcher, which "
        "hands it to SGLang as --api-key inside the process: SGLang takes it only as a "
        "flag, and any local user can read a command line"
    )


@pytest.mark.parametrize(("shard_id", "named"), [("s-0", "s-0"), ("", "(unnamed)")])
def test_kv_events_without_a_port_are_refused_on_the_leader_naming_the_shard(
    shard_id: str, named: str
) -> None:
    shard = cpu_shard(tp=1, threads=0, shard_id=shard_id, gpu_indices=(0,))
    shard = attrs.evolve(shard, profile=attrs.evolve(shard.profile, kv_events=True))
    with pytest.raises(EngineError) as err:
        kv_events_config(shard, parse_version("0.5.22"))
    assert str(err.value) == (
        f"shard spec {named}: kv_events_port: profile 'qwen-cpu' asks for KV-cache events, but the "
        "shard has no port to publish them to"
    )
