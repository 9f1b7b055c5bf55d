"""A data-parallel replica expands into one shard per process of its layout, each with the ranks and ports it shows."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from enginekit.base.errors import SpecError
from enginekit.layout.compute import HTTP, KV_EVENTS, shard_layout
from enginekit.layout.model import API_SERVER, NO_DATA_PARALLEL, LayoutRules
from enginekit.replica.spec import expand, load_replica, replica_layout, replica_problems
from enginekit.spec.model import DP_BALANCING

KEY = "sk-replica-layout-0123456789abcdef"
RULES = LayoutRules(
    balancing=frozenset(DP_BALANCING),
    expert_parallel=True,
    coordination=("dp-rpc", "dp-master"),
    kv_events_per_rank=True,
)


def replica(mode: str = "internal", **profile: Any) -> dict[str, Any]:
    fields = {"name": "wide", "engine": "e", "model_path": "/m", "tp": 1, "dp": 4, "nodes": 2}
    fields |= {"gpus_per_node": 2, "dp_balancing": mode, "expert_parallel": True} | profile
    return {
        "replica_id": "r1",
        "leader_port": 13345,
        "http_port": 8000,
        "api_key": KEY,
        "placement": {
            "gpu_indices": [6, 7],
            "kv_events_port": 5557,
            "mgmt_interface": "eth0",
            "fabric": "ib",
        },
        "nodes": [{"addr": "10.0.0.1", "hcas": ["mlx5_0"]}, {"addr": "10.0.0.2", "hcas": ["mlx5_1"]}],
        "profile": fields,
    }


def test_internal_balancing_is_one_shard_per_node_the_worker_headless_and_keyless() -> None:
    head, worker = expand(load_replica(replica()))
    assert [(s.shard_id, s.rank, s.dp_rank, s.gpu_indices) for s in (head, worker)] == [
        ("r1-0", 0, 0, (6, 7)),
        ("r1-1", 1, 2, (6, 7)),
    ]
    assert (head.api_key, worker.api_key) == (KEY, "")
    assert head.leader_addr == worker.leader_addr == "10.0.0.1"


def test_external_balancing_is_one_shard_per_rank_each_an_api_server_with_the_key() -> None:
    shards = expand(load_replica(replica("external")))
    assert [(s.shard_id, s.rank, s.dp_rank, s.gpu_indices, s.http_port) for s in shards] == [
        ("r1-0-0", 0, 0, (6,), 8000),
        ("r1-0-1", 0, 1, (7,), 8001),
        ("r1-1-0", 1, 2, (6,), 8000),
        ("r1-1-1", 1, 3, (7,), 8001),
    ]
    assert all(s.api_key == KEY for s in shards)
    laid = replica_layout(load_replica(replica("external")), RULES)
    for shard in shards:
        # Each shard, planned alone, is the process the whole replica's layout shows.
        assert shard_layout(shard, RULES) == laid.process(shard.rank, shard.dp_rank)
        assert shard_layout(shard, RULES).port(HTTP) == shard.http_port


def test_hybrid_balancing_gives_every_node_an_api_server_and_the_key() -> None:
    shards = expand(load_replica(replica("hybrid")))
    assert [(s.rank, s.dp_rank, s.api_key) for s in shards] == [(0, 0, KEY), (1, 2, KEY)]
    laid = replica_layout(load_replica(replica("hybrid")), RULES)
    assert [p.role for p in laid.processes()] == [API_SERVER, API_SERVER]


def test_one_node_of_data_parallel_dials_its_own_address() -> None:
    doc = replica("external", nodes=1, dp=2)
    doc["nodes"] = doc["nodes"][:1]
    a, b = expand(load_replica(doc))
    assert a.leader_addr == b.leader_addr == "10.0.0.1"
    assert (a.nnodes, b.dp_rank) == (1, 1)


def test_a_replica_that_cannot_be_laid_out_says_why_before_any_shard() -> None:
    bad = load_replica(replica(dp=3))
    assert replica_problems(bad) == [
        "profile 'wide': dp: 3 ranks do not fill 2 node(s) of 1 rank(s) each (dp_per_node)",
        "profile 'wide': gpus_per_node: 1 rank(s) per node of TP 1 x PP 1 take 1 GPU(s), not 2; "
        "a data-parallel rank must fit on one node",
    ]
    with pytest.raises(SpecError):
        expand(bad)
    with pytest.raises(SpecError) as caught:
        replica_layout(load_replica(replica()), NO_DATA_PARALLEL)
    assert list(caught.value.problems) == [
        "profile 'wide': dp: engine 'e' has no data parallel (dp is 4)",
        "profile 'wide': expert_parallel: engine 'e' has no expert parallel",
    ]
    short = replica()
    short["nodes"] = short["nodes"][:1]
    with pytest.raises(SpecError) as caught:
        replica_layout(load_replica(short), RULES)
    assert list(caught.value.problems) == ["nodes: the profile 'wide' spans 2 node(s), the replica lists 1"]


def test_a_replica_whose_nodes_list_too_few_gpus_for_their_ranks_is_refused() -> None:
    doc = replica()
    doc["nodes"][1]["gpu_indices"] = [0]
    assert replica_problems(load_replica(doc)) == [
        "nodes[1].gpu_indices: the layout puts 2 GPU(s) on each node, node 1 lists 1"
    ]


def one_host(mode: str, **node: Any) -> dict[str, Any]:
    """The replica with both nodes at one address: two "nodes" of one machine."""
    doc = replica(mode)
    doc["nodes"] = [{"addr": "127.0.0.1", **node}, {"addr": "127.0.0.1", **node}]
    return doc


def test_expand_refuses_two_nodes_of_one_host_whose_processes_share_a_port() -> None:
    # External balancing: each node's processes take http_port, http_port + 1.
    with pytest.raises(SpecError) as caught:
        expand(load_replica(one_host("external")))
    assert list(caught.value.problems) == [
        "node 1 process 0: http 8000 overlaps node 0 process 0's http 8000 on the same host (127.0.0.1)",
        "node 1 process 1: http 8001 overlaps node 0 process 1's http 8001 on the same host (127.0.0.1)",
    ]
    assert replica_problems(load_replica(one_host("external"))) == list(caught.value.problems)
    # The leader's port is every engine's: a node's HTTP port on it is refused as well.
    doc = one_host("hybrid")
    doc["nodes"][1]["http_port"] = 13345
    assert replica_problems(load_replica(doc)) == [
        "node 1 process 0: http 13345 overlaps node 0 process 0's leader 13345 on the same host (127.0.0.1)"
    ]


def test_kv_event_ports_that_move_by_the_rank_do_not_clash_between_nodes_of_one_host() -> None:
    # Both nodes publish from 5557 on: ranks 0-1 take 5557-5558, ranks 2-3 5559-5560.
    doc = one_host("hybrid")
    doc["nodes"][1]["http_port"] = 8001
    shards = expand(load_replica(doc))
    assert [(s.rank, s.dp_rank, s.http_port, s.kv_events_port) for s in shards] == [
        (0, 0, 8000, 5557),
        (1, 2, 8001, 5557),
    ]
    assert replica_layout(load_replica(doc), RULES).nodes[1].processes[0].port(KV_EVENTS) == 5559


def test_every_shard_of_a_data_parallel_replica_is_given_the_leader_s_http_port() -> None:
    """``leader_http_port``: the first node's first API server's, on every shard alike; 0 without data parallel.

    A worker whose engine closes the handshake port after the start is watched there.
    """
    doc = replica("external")
    doc["nodes"][0]["http_port"] = 8100  # the first node's own port, not the replica's
    shards = expand(load_replica(doc))
    assert [(s.http_port, s.leader_http_port) for s in shards] == [
        (8100, 8100),
        (8101, 8100),
        (8000, 8100),
        (8001, 8100),
    ]
    closing = attrs.evolve(RULES, coordination=("dp-rpc",), coordination_closes=True)
    laid = replica_layout(load_replica(doc), closing)
    for shard in shards:
        assert shard_layout(shard, closing) == laid.process(shard.rank, shard.dp_rank)
    tensor = replica(dp=1, tp=2, gpus_per_node=2, expert_parallel=False)
    assert [s.leader_http_port for s in expand(load_replica(tensor))] == [0, 0]
    pair = replica(dp=2, gpus_per_node=1)  # the least data parallel there is
    pair["placement"]["gpu_indices"] = [7]
    assert [s.leader_http_port for s in expand(load_replica(pair))] == [8000, 8000]


def test_one_node_of_data_parallel_without_an_address_dials_loopback() -> None:
    """A one-node data-parallel replica that lists no node dials its leader on loopback, every process alike."""
    doc = replica("external", nodes=1, dp=2)
    del doc["nodes"]
    shards = expand(load_replica(doc))
    assert [(s.leader_addr, s.bind_addr, s.dp_rank) for s in shards] == [
        ("127.0.0.1", "", 0),
        ("127.0.0.1", "", 1),
    ]
