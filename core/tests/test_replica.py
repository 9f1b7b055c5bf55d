"""The replica spec: strict loading, placement inherited per node, rules checked across ranks, pure expansion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from enginekit.base.errors import SpecError
from enginekit.layout.model import ANY_ENGINE
from enginekit.replica.spec import expand, load_replica, replica_layout, replica_problems, with_addresses
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
        "nodes[1].kv_events_port plus 1 (replay): port 5558 is nodes[0].kv_events_port plus 1 (replay) too, "
        "on the same host (127.0.0.1)",
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


def test_a_problem_with_a_nodes_own_field_names_that_node_in_full() -> None:
    """A node's own bad HCA is ``nodes[i].hcas``, even when the message has colons and an index of its own."""
    replica = load_replica(_doc())
    worker = attrs.evolve(replica.nodes[1], hcas=("bad\x07",))
    assert replica_problems(attrs.evolve(replica, nodes=(replica.nodes[0], worker))) == [
        "nodes[1].hcas[0]: contains a control character (U+0007)",
        "nodes[1].hcas: expected an adapter name with an optional :port, got 'bad\\x07'",
    ]
    colons = _doc(nodes=[{"addr": "10.0.0.31"}, {"addr": "10.0.0.32", "hcas": ["a:b:c"]}])
    assert replica_problems(load_replica(colons)) == [
        "nodes[1].hcas: expected an adapter name with an optional :port, got 'a:b:c'"
    ]


def test_the_replicas_http_port_is_said_once_and_a_nodes_own_as_the_nodes() -> None:
    """A bad ``http_port`` every rank inherits is the replica's field; one a node sets is ``nodes[i].http_port``."""
    assert replica_problems(load_replica(_doc(http_port=70000))) == [
        "http_port: expected a port in 1-65535, got 70000"
    ]
    own = _doc(nodes=[{"addr": "10.0.0.31"}, {"addr": "10.0.0.32", "http_port": 70000}])
    assert replica_problems(load_replica(own)) == [
        "nodes[1].http_port: expected a port in 1-65535, got 70000"
    ]


def test_an_unnamed_replicas_problems_carry_no_shard_prefix() -> None:
    """Without a ``replica_id`` the ranks are unnamed, and their problems still read as the replica's fields."""
    assert replica_problems(load_replica(_doc(replica_id="", http_port=70000))) == [
        "http_port: expected a port in 1-65535, got 70000"
    ]


def test_the_leaders_bad_address_is_the_first_nodes_even_when_it_binds_elsewhere() -> None:
    """``leader_addr`` comes from ``nodes[0].addr``: its problem names that field, once, and nothing else."""
    doc = _doc(nodes=[{"addr": "bad address", "bind_addr": "10.0.0.31"}, {"addr": "10.0.0.32"}])
    assert replica_problems(load_replica(doc)) == [
        "nodes[0].addr: expected a host name or IP address, got 'bad address'"
    ]


def test_a_nodes_own_bad_bind_address_names_its_bind_addr() -> None:
    """A node that sets ``bind_addr`` is told about ``nodes[i].bind_addr``, not its ``addr``."""
    doc = _doc(nodes=[{"addr": "10.0.0.31"}, {"addr": "10.0.0.32", "bind_addr": "bad bind"}])
    assert replica_problems(load_replica(doc)) == [
        "nodes[1].bind_addr: expected a host name or IP address, got 'bad bind'"
    ]


def test_a_nodes_own_http_port_on_the_leaders_join_port_is_named_as_the_nodes() -> None:
    """The leader's own ``http_port`` is the one checked against ``leader_port``, on the leader's host."""
    doc = _doc(nodes=[{"addr": "10.0.0.31", "http_port": 29501}, {"addr": "10.0.0.32"}])
    assert replica_problems(load_replica(doc)) == [
        "leader_port: port 29501 is nodes[0].http_port too, on the same host (10.0.0.31)"
    ]


def test_a_port_left_unset_does_not_stop_the_leaders_other_ports_being_checked() -> None:
    """A zero ``leader_port`` claims nothing, and the leader's KV-event port is still checked after it."""
    doc = _doc(leader_port=0, placement={"gpu_indices": [0, 1], "kv_events_port": 8000})
    assert replica_problems(load_replica(doc)) == [
        "nodes[0].kv_events_port: port 8000 is http_port too, on the same host (10.0.0.31)"
    ]


def test_a_single_node_replicas_clash_is_on_the_leader_and_its_join_port_is_free() -> None:
    """One node without a list: a clash is on "the leader"; its ``leader_port`` is no listener, so may be any."""
    doc = _doc(
        profile={"name": "p", "engine": "tiny", "tp": 2},
        leader_port=8000,
        placement={"gpu_indices": [0, 1], "kv_events_port": 8000},
    )
    del doc["nodes"]
    assert replica_problems(load_replica(doc)) == [
        "nodes[0].kv_events_port: port 8000 is http_port too, on the same host (the leader)"
    ]
    del doc["placement"]
    assert replica_problems(load_replica(doc)) == []


def test_a_single_node_listed_without_an_address_listens_everywhere() -> None:
    """Only a replica above one node needs each node's ``addr``; one node without it binds every address."""
    doc = _doc(profile={"name": "p", "engine": "tiny", "tp": 2}, leader_port=0, nodes=[{"host": "n1"}])
    assert replica_problems(load_replica(doc)) == []
    (spec,) = expand(load_replica(doc))
    assert (spec.leader_addr, spec.bind_addr) == ("", "")


def test_a_replica_without_an_id_expands_into_unnamed_shards() -> None:
    """No ``replica_id``: every shard's ``shard_id`` is empty, not a bare ``-0``."""
    shards = expand(load_replica(_doc(replica_id="")))
    assert [(s.replica_id, s.shard_id) for s in shards] == [("", ""), ("", "")]


def test_a_nodes_own_bind_address_and_http_port_reach_its_rank() -> None:
    """``bind_addr`` (empty: every address) and ``http_port`` set on a node win over its ``addr`` and the replica's."""
    doc = _doc(
        nodes=[
            {"addr": "10.0.0.31", "bind_addr": ""},
            {"addr": "10.0.0.32", "bind_addr": "192.0.2.9", "http_port": 9000},
        ],
        profile_fp="fp-1",
    )
    shards = expand(load_replica(doc))
    assert [(s.bind_addr, s.http_port, s.profile_fp) for s in shards] == [
        ("", 8000, "fp-1"),
        ("192.0.2.9", 9000, "fp-1"),
    ]


def test_a_replica_with_a_port_clash_has_no_layout() -> None:
    """``replica_layout`` refuses a tensor-parallel replica whose ranks on one host share a port."""
    doc = _doc(
        nodes=[{"addr": "127.0.0.1", "kv_events_port": 5557}, {"addr": "127.0.0.1", "kv_events_port": 5557}]
    )
    with pytest.raises(SpecError) as caught:
        replica_layout(load_replica(doc), ANY_ENGINE)
    assert caught.value.problems == (
        "nodes[1].kv_events_port: port 5557 is nodes[0].kv_events_port too, on the same host (127.0.0.1)",
        "nodes[1].kv_events_port plus 1 (replay): port 5558 is nodes[0].kv_events_port plus 1 (replay) too, "
        "on the same host (127.0.0.1)",
    )


def test_with_addresses_wants_one_address_per_node() -> None:
    """A wrong number of addresses is refused, saying how many were expected and given."""
    with pytest.raises(ValueError, match=r"^expected 2 addresses, got 1$"):
        with_addresses(load_replica(_doc()), ["192.0.2.1"])


def test_an_unknown_field_is_left_out_when_lenient() -> None:
    """``lenient`` loads a replica with a field it does not know, as if the field were absent."""
    doc = _doc(future_field=1)
    with pytest.raises(SpecError):
        load_replica(doc)
    assert load_replica(doc, lenient=True) == load_replica(_doc())


def test_a_shard_spec_file_is_named_by_its_path(tmp_path: Path) -> None:
    """A shard spec read from a file is refused naming the file; with ``name`` the name, said once."""
    path = tmp_path / "shard.toml"
    path.write_text('rank = 0\n[profile]\nname = "p"\nengine = "tiny"\n', encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_replica(path)
    assert caught.value.problems == (
        f"{path}: a shard spec (it has rank, nnodes or addresses at the top), not a replica spec",
    )
    with pytest.raises(SpecError) as caught:
        load_replica(path, name="r.toml")
    assert caught.value.problems == (
        "r.toml: a shard spec (it has rank, nnodes or addresses at the top), not a replica spec",
    )


def test_text_that_is_no_document_is_named_replica_or_by_its_name() -> None:
    """Unparsable text is the "replica"'s problem, or the given name's, each prefixed once."""
    with pytest.raises(SpecError) as caught:
        load_replica("x = [")
    assert [p.split(":", 1)[0] for p in caught.value.problems] == ["replica", "replica"]
    with pytest.raises(SpecError) as caught:
        load_replica("x = [", name="r.toml")
    assert [p.split(": ", 2)[:2] for p in caught.value.problems] == [
        ["r.toml", "not valid JSON"],
        ["r.toml", "not valid TOML"],
    ]
