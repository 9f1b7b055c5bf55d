"""Every numeric limit of a shard spec admits its boundary and refuses one past it.

A limit moved by one either refuses a spec placement legitimately produced (a 16-character
key, GID index 0, the last port) or lets through the first value that breaks something.
Each case names the field, so a failure says which limit moved.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from enginekit import ShardSpec
from enginekit.spec.model import MAX_GPU_INDEX, MAX_NODES, MAX_THREADS
from enginekit.spec.rules import MAX_API_KEY, MAX_DEVICES, MAX_GID_INDEX, MAX_HCAS, MIN_API_KEY, check_spec

Make = Callable[..., ShardSpec]
UUID = "GPU-4f3c2a10-1b2c-4d5e-8f90-{:012x}"


def _problems(make_shard: Make, **fields: object) -> list[str]:
    return check_spec(make_shard(**fields))


def _names(problems: list[str], field: str) -> bool:
    return any(p.startswith(f"shard spec s1: {field}: ") for p in problems)


@pytest.mark.parametrize(
    ("field", "ok", "refused"),
    [
        ("api_key", {"api_key": "k" * MIN_API_KEY}, {"api_key": "k" * (MIN_API_KEY - 1)}),
        ("api_key", {"api_key": "k" * MAX_API_KEY}, {"api_key": "k" * (MAX_API_KEY + 1)}),
        ("gpu_indices", {"gpu_indices": (MAX_GPU_INDEX,)}, {"gpu_indices": (MAX_GPU_INDEX + 1,)}),
        ("gpu_indices", {"gpu_indices": (0,)}, {"gpu_indices": (-1,)}),
        ("gid_index", {"hcas": ("mlx5_0",), "gid_index": 0}, {"hcas": ("mlx5_0",), "gid_index": -1}),
        (
            "gid_index",
            {"hcas": ("mlx5_0",), "gid_index": MAX_GID_INDEX},
            {"hcas": ("mlx5_0",), "gid_index": MAX_GID_INDEX + 1},
        ),
        ("threads", {"threads": MAX_THREADS}, {"threads": MAX_THREADS + 1}),
        ("threads", {"threads": 0}, {"threads": -1}),
        ("http_port", {"http_port": 65535}, {"http_port": 65536}),
    ],
)
def test_a_limit_admits_its_boundary_and_refuses_one_past_it(
    make_shard: Make, field: str, ok: dict[str, object], refused: dict[str, object]
) -> None:
    assert not _names(_problems(make_shard, **ok), field), f"{field} at its limit was refused: {ok}"
    assert _names(_problems(make_shard, **refused), field), f"{field} one past its limit was accepted"


@pytest.mark.parametrize(("nnodes", "ok"), [(0, False), (1, True), (MAX_NODES, True), (MAX_NODES + 1, False)])
def test_nnodes_is_between_one_and_its_limit(make_shard: Make, nnodes: int, ok: bool) -> None:
    spec = make_shard(nnodes=nnodes, leader_addr="10.0.0.1", leader_port=29500, profile_nodes=nnodes)
    assert _names(check_spec(spec), "nnodes") is not ok


@pytest.mark.parametrize(("nnodes", "profile_nodes"), [(1, 2), (2, 1), (MAX_NODES, 1)])
def test_a_shard_and_its_profile_must_agree_on_the_node_count(
    make_shard: Make, nnodes: int, profile_nodes: int
) -> None:
    # A shard placed for one node count running a profile built for another waits for
    # ranks that never come, or starts ranks nobody waits for.
    spec = make_shard(nnodes=nnodes, leader_addr="10.0.0.1", leader_port=29500, profile_nodes=profile_nodes)
    assert (
        f"shard spec s1: nnodes: the shard says {nnodes} node(s), its profile 'p' says {profile_nodes}"
        in check_spec(spec)
    )


@pytest.mark.parametrize(
    ("field", "limit", "value"),
    [
        ("gpu_indices", MAX_DEVICES, lambda n: tuple(range(n))),
        ("gpu_uuids", MAX_DEVICES, lambda n: tuple(UUID.format(i) for i in range(n))),
        ("hcas", MAX_HCAS, lambda n: tuple(f"mlx5_{i}" for i in range(n))),
    ],
)
def test_an_oversized_list_is_the_only_problem_reported(
    make_shard: Make, field: str, limit: int, value: Callable[[int], tuple[object, ...]]
) -> None:
    # Every other rule would scan, and echo, the whole list.
    at_limit = check_spec(make_shard(**{field: value(limit)}))
    assert not any("more than" in p for p in at_limit)
    assert check_spec(make_shard(**{field: value(limit + 1)})) == [
        f"shard spec s1: {field}: more than {limit} entries ({limit + 1})"
    ]


def test_a_list_named_twice_shows_at_most_eight_names(make_shard: Make) -> None:
    hcas = tuple(f"mlx5_{i}" for i in range(9)) * 2
    assert f"shard spec s1: hcas: listed twice: {sorted(set(hcas))[:8]}" in check_spec(make_shard(hcas=hcas))
    indices = tuple(range(9)) * 2
    assert "shard spec s1: gpu_indices: listed twice: [0, 1, 2, 3, 4, 5, 6, 7]" in check_spec(
        make_shard(gpu_indices=indices, profile_tp=18)
    )


def test_an_hca_named_once_is_not_listed_twice(make_shard: Make) -> None:
    assert check_spec(make_shard(hcas=("mlx5_0", "mlx5_1"))) == []


def test_out_of_range_gpu_indices_are_shown_sixteen_at_most(make_shard: Make) -> None:
    indices = tuple(range(-17, 0))
    problems = check_spec(make_shard(gpu_indices=indices, profile_tp=17))
    assert (
        f"shard spec s1: gpu_indices: each must be in 0-{MAX_GPU_INDEX}, got {list(indices)[:16]}" in problems
    )


def test_a_shard_without_an_id_is_named_unnamed(make_shard: Make) -> None:
    assert check_spec(make_shard(shard_id="", http_port=0)) == [
        "shard spec (unnamed): http_port: expected a port in 1-65535, got 0"
    ]
