"""The replica spec: strict loading, placement inherited per node, rules checked across ranks, pure expansion."""

from __future__ import annotations

import json
from typing import Any

import pytest
from enginekit.base.errors import SpecError
from enginekit.replica.spec import expand, load_replica, replica_problems, with_addresses
from enginekit.spec.convert import parse_document
from hypothesis import given, settings
from hypothesis import strategies as st

KEY = "sk-replica-test-0123456789abcdef"
TWO_NODES = """
replica_id = "r1"
leader_port = 29501
http_port = 8000
api_key = "sk-replica-test-0123456789abcdef"
pool = "a"

[placement]
gpu_indices = [0, 1]
hcas = ["mlx5_0:1"]
mgmt_interface = "eth0"
fabric = "ib:pod-a"

[[nodes]]
host = "n31"
addr = "10.0.0.31"

[[nodes]]
addr = "10.0.0.32"
hcas = ["mlx5_1:1"]

[profile]
name = "p"
engine = "tiny"
tp = 4
gpus_per_node = 2
nodes = 2
"""


def _doc(**changes: Any) -> dict[str, Any]:
    doc = dict(parse_document(TWO_NODES, name="replica", suffix=".toml"))
    doc.update(changes)
    return doc


def test_every_rank_takes_the_placement_its_node_leaves_out() -> None:
    leader, worker = expand(load_replica(TWO_NODES))
    assert (leader.rank, leader.nnodes, leader.shard_id, worker.shard_id) == (0, 2, "r1-0", "r1-1")
    assert leader.leader_addr == worker.leader_addr == "10.0.0.31"
    assert (leader.bind_addr, worker.bind_addr) == ("10.0.0.31", "10.0.0.32")
    assert leader.gpu_indices == worker.gpu_indices == (0, 1)
    assert (leader.hcas, worker.hcas) == (("mlx5_0:1",), ("mlx5_1:1",))
    assert leader.leader_port == worker.leader_port == 29501
    assert leader.fabric == worker.fabric == "ib:pod-a"
    assert leader.pool == worker.pool == "a"


def test_only_the_leader_gets_the_key() -> None:
    leader, worker = expand(load_replica(TWO_NODES))
    assert (leader.api_key, worker.api_key) == (KEY, "")


def test_expanding_is_pure_and_repeatable() -> None:
    replica = load_replica(TWO_NODES)
    assert expand(replica) == expand(replica)
    assert load_replica(_doc()) == replica


def test_a_node_count_other_than_the_profiles_is_one_problem() -> None:
    doc = _doc(nodes=[{"addr": "10.0.0.31"}])
    assert replica_problems(load_replica(doc)) == [
        "nodes: the profile 'p' spans 2 node(s), the replica lists 1"
    ]


def test_a_multi_node_replica_without_nodes_cannot_expand() -> None:
    doc = _doc()
    del doc["nodes"]
    with pytest.raises(SpecError) as caught:
        expand(load_replica(doc))
    assert caught.value.problems == (
        "nodes: list each of the 2 nodes with its addr to expand the replica (an export to a "
        "scheduler takes the addresses from it at start instead)",
    )


def test_every_node_of_a_multi_node_replica_needs_its_address() -> None:
    doc = _doc(nodes=[{"addr": "10.0.0.31"}, {"host": "n32"}])
    assert replica_problems(load_replica(doc)) == [
        "nodes[1].addr: required when the replica spans more than one node"
    ]


def test_problems_name_the_field_that_gave_the_rank_its_value() -> None:
    doc = _doc(
        nodes=[{"addr": "10.0.0.31"}, {"addr": "not an address", "gpu_indices": [3]}],
        placement={"gpu_uuids": ["nope"], "hcas": ["mlx5_0:1"]},
        leader_port=0,
    )
    assert replica_problems(load_replica(doc)) == [
        "leader_port: expected a port in 1-65535, got 0",
        "placement.gpu_uuids: expected MIG-<uuid> or GPU-<uuid>, got 'nope'",
        "nodes[1].addr: expected a host name or IP address, got 'not an address'",
    ]


def test_a_bad_leader_address_is_said_once_as_the_first_nodes() -> None:
    doc = _doc(nodes=[{"addr": "bad address"}, {"addr": "10.0.0.32"}])
    problems = replica_problems(load_replica(doc))
    assert problems.count("nodes[0].addr: expected a host name or IP address, got 'bad address'") == 1
    assert not [p for p in problems if p.startswith("leader_addr")]


def test_a_nodes_own_gpu_count_is_its_own_problem() -> None:
    doc = _doc(nodes=[{"addr": "10.0.0.31"}, {"addr": "10.0.0.32", "gpu_indices": [0]}])
    assert replica_problems(load_replica(doc)) == [
        "nodes[1].gpu_indices: profile 'p' needs 2 GPU(s) per node, the shard has 1"
    ]


def test_ranks_on_one_host_may_not_share_a_port() -> None:
    doc = _doc(
        nodes=[{"addr": "127.0.0.1", "kv_events_port": 5557}, {"addr": "127.0.0.1", "kv_events_port": 5557}],
        http_port=29501,
    )
    assert replica_problems(load_replica(doc)) == [
        "leader_port: port 29501 is http_port too, on the same host (127.0.0.1)",
        "nodes[1].kv_events_port: port 5557 is nodes[0].kv_events_port too, on the same host (127.0.0.1)",
    ]


def test_ranks_on_different_hosts_may_use_the_same_ports() -> None:
    doc = _doc(placement={"gpu_indices": [0, 1], "kv_events_port": 5557})
    assert replica_problems(load_replica(doc)) == []


def test_a_single_node_replica_needs_no_nodes_list() -> None:
    doc = _doc(profile={"name": "p", "engine": "tiny", "tp": 2}, leader_port=0)
    del doc["nodes"]
    (spec,) = expand(load_replica(doc))
    assert (spec.nnodes, spec.leader_addr, spec.bind_addr, spec.gpu_indices) == (1, "", "", (0, 1))


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {"nodes": [{"addr": "a", "gpu_indices": "0"}]},
            "replica.nodes[0].gpu_indices: expected a list, got str '0'",
        ),
        ({"placement": {"gpu": [0]}}, "replica.placement.gpu: unknown field"),
        ({"leader_port": "29501"}, "replica.leader_port: expected an integer, got str '29501'"),
    ],
)
def test_shapes_and_types_are_as_strict_as_a_shard_specs(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_replica(_doc(**change))
    assert problem in caught.value.problems


def test_a_shard_spec_is_not_a_replica() -> None:
    with pytest.raises(SpecError) as caught:
        load_replica({"rank": 0, "profile": {"name": "p", "engine": "tiny"}})
    assert caught.value.problems == (
        "replica: a shard spec (it has rank, nnodes or addresses at the top), not a replica spec",
    )


def test_a_masked_key_is_refused() -> None:
    with pytest.raises(SpecError, match=r"replica\.api_key: holds the mask '<secret>', not a key"):
        load_replica(_doc(api_key="<secret>"))


def test_a_json_replica_and_its_name_in_messages() -> None:
    with pytest.raises(SpecError) as caught:
        load_replica(json.dumps(_doc(leader_port=True)), name="r.json")
    assert caught.value.problems == ("r.json: replica.leader_port: expected an integer, got bool True",)


def test_with_addresses_places_every_node() -> None:
    doc = _doc()
    del doc["nodes"]
    placed = with_addresses(load_replica(doc), ["192.0.2.1", "192.0.2.2"])
    assert [spec.bind_addr for spec in expand(placed)] == ["192.0.2.1", "192.0.2.2"]


KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=16, max_size=40).map(
    lambda k: "k" + k
)


@settings(max_examples=50, deadline=None)
@given(key=KEYS)
def test_the_key_is_in_no_message_and_no_repr(key: str) -> None:
    broken = _doc(api_key=key, nodes=[{"addr": "10.0.0.31"}])
    replica = load_replica(broken)
    assert key not in repr(replica)
    assert not [p for p in replica_problems(replica) if key in p]
    with pytest.raises(SpecError) as caught:
        load_replica(_doc(api_key=[key], pool=key))
    assert not [p for p in caught.value.problems if key in p]
