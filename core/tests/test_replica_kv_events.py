"""A replica's KV-event wiring: its mode reaches every rank, and a binding publisher's replay ports are claimed."""

from __future__ import annotations

from typing import Any

import pytest
from enginekit.layout.compute import KV_EVENTS, KV_EVENTS_REPLAY
from enginekit.layout.model import ANY_ENGINE, Listener
from enginekit.replica.spec import expand, load_replica, replica_layout, replica_problems


def replica(mode: str | None, **profile: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "replica_id": "r",
        "http_port": 8000,
        "leader_port": 29500,
        "profile": {"name": "p", "engine": "tiny", "model_path": "/m", "kv_events": True, **profile},
        "placement": {"gpu_indices": [0, 1], "kv_events_port": 5557},
        "nodes": [{"addr": "10.0.0.1"}, {"addr": "10.0.0.2"}],
    }
    if mode is not None:
        doc["kv_events_mode"] = mode
    return doc


@pytest.mark.parametrize(("mode", "expected"), [(None, "bind"), ("bind", "bind"), ("connect", "connect")])
def test_the_replicas_mode_reaches_every_rank(mode: str | None, expected: str) -> None:
    shards = expand(load_replica(replica(mode, dp=4, dp_per_node=2, gpus_per_node=2, nodes=2)))
    assert [s.kv_events_mode for s in shards] == [expected] * len(shards)


@pytest.mark.parametrize(("mode", "replays"), [("bind", True), ("connect", False)])
def test_the_layout_shows_the_replay_ports_of_binding_publishers_only(mode: str, replays: bool) -> None:
    laid = replica_layout(
        load_replica(replica(mode, dp=4, dp_per_node=2, gpus_per_node=2, nodes=2)), ANY_ENGINE
    )
    worker = laid.nodes[1].processes[0]
    expected = [Listener(KV_EVENTS, 5559, 2)] + ([Listener(KV_EVENTS_REPLAY, 5563, 2)] if replays else [])
    assert [one for one in worker.listens if one.name.startswith("kv-events")] == expected


def test_two_nodes_of_one_host_clash_on_the_replay_port_only_when_bound() -> None:
    """Without data parallel: the nodes' own claims, the replay port after the publisher's."""
    doc = replica("bind", tp=2, nodes=2, gpus_per_node=2)
    doc["nodes"] = [{"addr": "127.0.0.1"}, {"addr": "127.0.0.1", "kv_events_port": 5558}]
    assert replica_problems(load_replica(doc)) == [
        "nodes[1].kv_events_port: port 5558 is nodes[0].kv_events_port plus 1 (replay) too, on the "
        "same host (127.0.0.1)",
    ]
    doc["kv_events_mode"] = "connect"
    assert replica_problems(load_replica(doc)) == []
