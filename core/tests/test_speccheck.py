"""check_spec: every rule names the field it breaks, and all are reported at once."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from enginekit import ShardSpec
from enginekit.spec.rules import check_spec

Make = Callable[..., ShardSpec]

MIG = "MIG-4f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6"
MIG2 = "MIG-5f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6"


def test_a_valid_shard_has_no_problems(make_shard: Make) -> None:
    assert check_spec(make_shard()) == []


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"http_port": 0}, "http_port: expected a port in 1-65535, got 0"),
        ({"http_port": 65536}, "http_port: expected a port in 1-65535, got 65536"),
        ({"kv_events_port": -1}, "kv_events_port: expected a port in 1-65535, got -1"),
        (
            {
                "rank": 2,
                "nnodes": 2,
                "profile_nodes": 2,
                "profile_gpus_per_node": 1,
                "leader_addr": "10.0.0.1",
                "leader_port": 29500,
            },
            "rank: must be in 0..1 for 2 node(s), got 2",
        ),
        ({"rank": -1}, "rank: must be in 0..0 for 1 node(s), got -1"),
        ({"nnodes": 0}, "nnodes: expected 1-65536, got 0"),
        (
            {"nnodes": 2, "profile_nodes": 2, "profile_gpus_per_node": 1, "leader_port": 29500},
            "leader_addr: required when the replica spans more than one node",
        ),
        (
            {"nnodes": 2, "profile_nodes": 2, "profile_gpus_per_node": 1, "leader_addr": "10.0.0.1"},
            "leader_port: expected a port in 1-65535, got 0",
        ),
        (
            {"nnodes": 2, "leader_addr": "h", "leader_port": 1},
            "nnodes: the shard says 2 node(s), its profile 'p' says 1",
        ),
        (
            {"leader_addr": "tcp://1.2.3.4:29500"},
            "leader_addr: expected a host name or IP address, got 'tcp://1.2.3.4:29500'",
        ),
        ({"bind_addr": "10.0.0.1 "}, "bind_addr: expected a host name or IP address, got '10.0.0.1 '"),
        ({"gpu_indices": (-1,)}, "gpu_indices: each must be in 0-65535, got [-1]"),
        ({"gpu_indices": (0, 0), "profile_tp": 2}, "gpu_indices: listed twice: [0]"),
        ({"gpu_indices": (0, 1)}, "gpu_indices: profile 'p' needs 1 GPU(s) per node, the shard has 2"),
        ({"gpu_uuids": ("MIG-xyz",)}, "gpu_uuids: expected MIG-<uuid> or GPU-<uuid>, got 'MIG-xyz'"),
        (
            {"gpu_indices": (1000, 1001), "gpu_uuids": (MIG, MIG2), "profile_tp": 2},
            "gpu_uuids: a shard on MIG gets exactly one instance (CUDA enumerates one MIG device per process), got 2 devices",
        ),
        (
            {"gpu_uuids": (MIG, MIG)},
            "gpu_uuids: a device is listed twice (UUIDs are compared in either case)",
        ),
        ({"hcas": ("mlx5_0", "mlx5_0")}, "hcas: listed twice: ['mlx5_0']"),
        ({"hcas": ("^=mlx5_0",)}, "hcas: expected an adapter name with an optional :port, got '^=mlx5_0'"),
        (
            {"mgmt_interface": "eth0,eth1"},
            "mgmt_interface: expected an interface name of at most 15 letters, digits, '.', '_' or '-', got 'eth0,eth1'",
        ),
        (
            {"mgmt_interface": "a" * 16},
            "mgmt_interface: expected an interface name of at most 15 letters, digits, '.', '_' or '-', got '"
            + "a" * 16
            + "'",
        ),
        ({"hcas": ("mlx5_0",), "gid_index": -1}, "gid_index: expected a GID table index in 0-255, got -1"),
        ({"gid_index": 3}, "gid_index: set, but the shard has no HCAs for it to apply to"),
        ({"threads": -4}, "threads: expected 0-65536 cores, got -4"),
        (
            {"api_key": "has space in the middle"},
            "api_key: must be ASCII letters, digits and . _ ~ + / = : - only, as base64 and JWT keys are (the value is not shown)",
        ),
        (
            {"api_key": "--trust-remote-code"},
            "api_key: must not start with '-', where an engine's parser would read it as a flag",
        ),
        ({"api_key": "k" * 4097}, "api_key: longer than 4096 characters"),
        ({"profile_model_path": "/m\x00x"}, "profile.model_path: contains a NUL byte (U+0000)"),
        ({"profile_args": ("--x", "a\nb")}, "profile.args[1]: contains a control character (U+000A)"),
    ],
)
def test_each_rule_names_its_field(make_shard: Make, fields: dict[str, object], expected: str) -> None:
    problems = check_spec(make_shard(**fields))
    assert f"shard spec s1: {expected}" in problems


def test_a_bad_api_key_is_never_echoed(make_shard: Make) -> None:
    problems = check_spec(make_shard(api_key="sekrit\nvalue"))
    assert problems
    assert not any("sekrit" in p for p in problems)


def test_one_mig_instance_is_accepted(make_shard: Make) -> None:
    assert check_spec(make_shard(gpu_indices=(1000,), gpu_uuids=(MIG,))) == []


def test_all_problems_at_once(make_shard: Make) -> None:
    problems = check_spec(make_shard(http_port=0, threads=-1, gpu_indices=(-1,)))
    assert len(problems) == 3


def test_ipv6_and_host_names_are_addresses(make_shard: Make) -> None:
    assert check_spec(make_shard(bind_addr="fd00::1")) == []
    assert check_spec(make_shard(bind_addr="node-1.cluster.local")) == []


def test_a_duplicate_is_named_alone(make_shard: Callable[..., ShardSpec]) -> None:
    # The message points at what to fix: the entries given twice, not every entry.
    problems = check_spec(
        make_shard(gpu_indices=(0, 0, 1), hcas=("mlx5_0", "mlx5_0", "mlx5_1"), profile_tp=3)
    )
    assert "shard spec s1: gpu_indices: listed twice: [0]" in problems
    assert "shard spec s1: hcas: listed twice: ['mlx5_0']" in problems


def _dp_shard(**fields: object) -> ShardSpec:
    """A worker of a data-parallel replica: two nodes of two ranks, external balancing, one GPU a rank."""
    from enginekit import Profile

    profile = Profile(
        name="wide",
        engine="e",
        model_path="/m",
        dp=4,
        nodes=2,
        gpus_per_node=2,
        dp_balancing=str(fields.pop("dp_balancing", "external")),
    )
    base: dict[str, object] = {
        "shard_id": "w",
        "rank": 1,
        "nnodes": 2,
        "dp_rank": 2,
        "leader_addr": "10.0.0.1",
        "leader_port": 13345,
        "http_port": 8000,
        "gpu_indices": (0,),
        "mgmt_interface": "eth0",
    }
    return ShardSpec(profile=profile, **(base | fields))  # type: ignore[arg-type]


def test_data_parallel_fields_are_judged_at_their_bounds() -> None:
    """dp_rank is 0..dp-1; leader_http_port, when given, a port; kv_cache_mib's maximum is allowed."""
    assert check_spec(_dp_shard()) == []
    assert check_spec(_dp_shard(dp_rank=3)) == []
    assert check_spec(_dp_shard(dp_rank=4)) == [
        "shard spec w: dp_rank: must be in 0..3 for data parallel 4, got 4"
    ]
    assert check_spec(_dp_shard(leader_http_port=65535)) == []
    assert check_spec(_dp_shard(leader_http_port=65536)) == [
        "shard spec w: leader_http_port: expected a port in 1-65535, got 65536"
    ]
    assert check_spec(_dp_shard(leader_http_port=-1)) == [
        "shard spec w: leader_http_port: expected a port in 1-65535, got -1"
    ]
    assert check_spec(_dp_shard(kv_cache_mib=64 * 1024 * 1024)) == []


def test_a_gpu_count_is_judged_per_rank_where_a_shard_is_one_rank_per_node_otherwise() -> None:
    """Under external balancing a shard is one rank; otherwise it is its node's whole share."""
    assert check_spec(_dp_shard(gpu_indices=(0, 1))) == [
        "shard spec w: gpu_indices: profile 'wide' needs 1 GPU(s) per rank, the shard has 2"
    ]
    assert check_spec(_dp_shard(dp_balancing="internal", gpu_indices=(0,))) == [
        "shard spec w: gpu_indices: profile 'wide' needs 2 GPU(s) per node, the shard has 1"
    ]


def test_an_address_that_listens_everywhere_is_known_in_any_spelling() -> None:
    """Empty, 0.0.0.0 and :: (however written) listen on every address; anything else is one address."""
    from enginekit.spec.rules import listens_everywhere

    for every in ("", "0.0.0.0", "::", "0:0:0:0:0:0:0:0"):
        assert listens_everywhere(every), every
    for one in ("127.0.0.1", "::1", "10.0.0.1", "node-1.cluster.local"):
        assert not listens_everywhere(one), one


def test_two_addresses_are_one_ip_however_spelled_and_a_name_is_not_judged() -> None:
    """same_ip: True or False for two IP literals, None when either is a name (nothing is resolved)."""
    from enginekit.spec.rules import same_ip

    assert same_ip("FD00::1", "fd00:0::1") is True
    assert same_ip("10.0.0.1", "10.0.0.1") is True
    assert same_ip("10.0.0.1", "10.0.0.2") is False
    assert same_ip("leader.default", "10.0.0.1") is None
    assert same_ip("10.0.0.1", "leader.default") is None
    assert same_ip("", "") is None
