"""Disaggregated replicas: instances laid out without a clash on any host, and every rule across roles said."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest
from enginekit.base.errors import SpecError
from enginekit.layout.compute import KV_TRANSFER, layout
from enginekit.layout.model import (
    ANY_ENGINE,
    TRANSFER_LEADER,
    TRANSFER_RANK,
    KVTransferPorts,
    Layout,
    LayoutRules,
)
from enginekit.replica.disaggregated import (
    DisaggregatedSpec,
    Instance,
    Role,
    Router,
    Transfer,
    disaggregated_layouts,
    disaggregated_problems,
    expand_disaggregated,
    instances,
    is_disaggregated,
    load_disaggregated,
)
from enginekit.replica.spec import Placement, ReplicaNode, _node_inputs
from enginekit.spec.model import Profile
from hypothesis import given, settings
from hypothesis import strategies as st

#: Every instance of the helpers on this host's loopback, as a test on one machine runs them.
HERE = (ReplicaNode(addr="127.0.0.1"),)


def profile(**fields: object) -> Profile:
    base: dict[str, object] = {"name": "p", "engine": "sim", "model_path": "/m"}
    return Profile(**{**base, **fields})  # type: ignore[arg-type]


def spec(**fields: object) -> DisaggregatedSpec:
    base: dict[str, object] = {
        "replica_id": "pd",
        "transfer": Transfer(connector="nixl", port=5600),
        "router": Router(port=8000, metrics_port=29000),
        "prefill": Role(
            profile=profile(),
            http_port=8100,
            instances=(
                Instance(nodes=HERE, placement=Placement(gpu_indices=(0,))),
                Instance(nodes=HERE, placement=Placement(gpu_indices=(1,))),
            ),
        ),
        "decode": Role(
            profile=profile(tp=2),
            http_port=8200,
            instances=(Instance(nodes=HERE, placement=Placement(gpu_indices=(2, 3))),),
        ),
    }
    return DisaggregatedSpec(**{**base, **fields})  # type: ignore[arg-type]


# --- what the tests check, written independently of the code under test ---------------


def taken(layouts: Sequence[tuple[str, Layout]], router: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """Every (host, port) two listeners take, across all instances and the router, port by port."""
    seen: dict[tuple[str, int], int] = {}
    for _, laid in layouts:
        for process in laid.processes():
            host = laid.nodes[process.node].addr or "local"
            for listener in (*process.listens, *process.reserves):
                for port in range(listener.port, listener.port + listener.count):
                    seen[(host, port)] = seen.get((host, port), 0) + 1
    for host, port in router:
        seen[(host or "local", port)] = seen.get((host or "local", port), 0) + 1
    return [key for key, count in seen.items() if count > 1]


@st.composite
def disaggregated(draw: st.DrawFn) -> DisaggregatedSpec:
    """A valid disaggregated replica: several instances of each role, all on one host or spread."""
    one_host = draw(st.booleans())
    gpu = iter(range(1000))
    roles = {}
    for name, http in (("prefill", draw(st.integers(2000, 3000))), ("decode", draw(st.integers(4000, 5000)))):
        tp = draw(st.sampled_from([1, 2, 4]))
        dp = draw(st.sampled_from([1, 1, 2]))
        count = draw(st.integers(1, 4))
        nodes: list[Instance] = []
        for i in range(count):
            gpus = tuple(next(gpu) for _ in range(tp * dp))
            addr = "10.0.0.1" if one_host else f"10.0.{1 if name == 'prefill' else 2}.{i + 1}"
            node = ReplicaNode(addr=addr, gpu_indices=gpus)
            # A data-parallel instance's coordination ports: each its own block.
            leader = 20000 + 100 * (i + (10 if name == "decode" else 0)) if dp > 1 else 0
            nodes.append(Instance(nodes=(node,), leader_port=leader))
        # Data-parallel API servers: one per rank under external balancing, each on the next port.
        mode = draw(st.sampled_from(["internal", "external"])) if dp > 1 else "internal"
        spread = dp if mode == "external" else 1
        nodes = [attrs.evolve(n, http_port=http + i * spread) for i, n in enumerate(nodes)]
        roles[name] = Role(profile=profile(tp=tp, dp=dp, dp_balancing=mode), instances=tuple(nodes))
    return DisaggregatedSpec(
        replica_id="pd",
        transfer=Transfer(port=draw(st.integers(30000, 40000))),
        router=Router(addr="10.0.0.1", port=8000, metrics_port=29000),
        prefill=roles["prefill"],
        decode=roles["decode"],
    )


#: Each engine's way of deriving its transfer ports: any engine's (the widest), vLLM's from
#: 0.11.1 (one per engine core), and SGLang's (a prefill's bootstrap server alone).
TRANSFER_RULES = [
    ANY_ENGINE,
    attrs.evolve(ANY_ENGINE, kv_transfer=KVTransferPorts(scope=TRANSFER_RANK)),
    attrs.evolve(
        ANY_ENGINE, kv_transfer=KVTransferPorts(roles=frozenset({"prefill"}), scope=TRANSFER_LEADER)
    ),
]


@settings(max_examples=200, deadline=None)
@given(disaggregated(), st.sampled_from(TRANSFER_RULES))
def test_no_two_listeners_of_any_valid_disaggregated_replica_collide_on_a_host(
    case: DisaggregatedSpec, rules: LayoutRules
) -> None:
    assert disaggregated_problems(case) == []
    laid = disaggregated_layouts(case, {"prefill": rules, "decode": rules})
    router = [("10.0.0.1", case.router.port), ("10.0.0.1", case.router.metrics_port)]
    assert taken([(i.where, one) for i, one in laid], router) == []
    # Every instance has its side channel, on ports no other instance's derives.
    transfer = [
        port
        for _, one in laid
        for p in one.processes()
        for listener in p.listens
        if listener.name == KV_TRANSFER
        for port in range(listener.port, listener.last + 1)
    ]
    assert len(transfer) == len(set(transfer))
    # Every instance that listens has its own side channel.
    assert rules.kv_transfer is not None
    listening = [i for i, _ in laid if i.role in rules.kv_transfer.roles]
    assert len(transfer) >= len(listening)


@settings(max_examples=100, deadline=None)
@given(disaggregated(), st.data())
def test_two_instances_given_one_port_on_one_host_are_refused_naming_both(
    case: DisaggregatedSpec, data: st.DataObject
) -> None:
    decode = case.decode.instances[0]
    prefill = case.prefill.instances[0]
    clash = attrs.evolve(
        decode,
        http_port=prefill.http_port,
        nodes=prefill.nodes[:1] and (attrs.evolve(decode.nodes[0], addr=prefill.nodes[0].addr),),
    )
    broken = attrs.evolve(
        case, decode=attrs.evolve(case.decode, instances=(clash, *case.decode.instances[1:]))
    )
    problems = disaggregated_problems(broken)
    assert any(
        "overlaps" in p and "decode.instances[0]" in p and "prefill.instances[0]" in p for p in problems
    ), problems


def test_instances_take_their_roles_http_ports_and_the_side_channels_one_after_another() -> None:
    laid = instances(spec())
    assert [(i.where, i.replica.http_port, i.replica.kv_transfer_port) for i in laid] == [
        ("prefill.instances[0]", 8100, 5600),
        ("prefill.instances[1]", 8101, 5601),
        ("decode.instances[0]", 8200, 5602),  # prefill's take one port each (TP 1)
    ]
    assert {i.replica.role for i in laid} == {"prefill", "decode"}
    assert {i.replica.kv_connector for i in laid} == {"nixl"}
    shards = {s.shard_id: s for _, ranks in expand_disaggregated(spec()) for s in ranks}
    assert sorted(shards) == ["pd-decode-0-0", "pd-prefill-0-0", "pd-prefill-1-0"]
    decode = shards["pd-decode-0-0"]
    assert (decode.role, decode.kv_connector, decode.kv_transfer_port) == ("decode", "nixl", 5602)
    assert decode.gpu_indices == (2, 3)


def test_a_decode_instance_with_tp_2_keeps_two_side_channel_ports() -> None:
    (_, laid), *_ = [(i, one) for i, one in disaggregated_layouts(spec()) if i.role == "decode"]
    (process,) = laid.processes()
    assert [(x.name, x.port, x.count) for x in process.listens if x.name == KV_TRANSFER] == [
        (KV_TRANSFER, 5602, 2)
    ]


def test_the_roles_must_serve_one_model_with_one_engine() -> None:
    broken = spec(
        decode=Role(
            profile=profile(engine="vllm", model_path="/other", served_model_name="x"), http_port=8200
        )
    )
    problems = disaggregated_problems(broken)
    assert any(p.startswith("decode.profile.engine: 'vllm', but prefill runs 'sim'") for p in problems)
    assert any(p.startswith("decode.profile.model_path: '/other'") for p in problems)
    assert any(p.startswith("decode.profile.served_model_name: 'x'") for p in problems)


def test_each_role_needs_an_instance_and_the_transfer_a_port_with_room() -> None:
    problems = disaggregated_problems(
        spec(transfer=Transfer(port=0), prefill=Role(profile=profile(), instances=()))
    )
    assert "prefill.instances: a disaggregated replica needs at least one prefill instance" in problems
    assert any(p.startswith("transfer.port: expected a port in 1-65535") for p in problems)
    problems = disaggregated_problems(spec(transfer=Transfer(port=65534)))
    assert any(
        "leaves no room for the 4 side-channel port(s)" in p and "at most 65532" in p for p in problems
    )


def test_the_router_may_not_take_an_instances_port_or_its_own_twice() -> None:
    problems = disaggregated_problems(spec(router=Router(port=8101)))
    assert problems == [
        "router.port overlaps prefill.instances[1] node 0's http 8101 on the same host (this host)"
    ]
    problems = disaggregated_problems(spec(router=Router(port=8000, metrics_port=8000)))
    assert "router.metrics_port: 8000 is the router's own port" in problems
    problems = disaggregated_problems(spec(router=Router(port=0, host="-x")))
    assert any(p.startswith("router.port: expected a port") for p in problems)
    assert "router.host: expected a host name or IP address, got '-x'" in problems


def test_two_instances_on_one_gpu_of_one_host_are_refused() -> None:
    decode = Role(
        profile=profile(tp=2),
        http_port=8200,
        instances=(Instance(nodes=HERE, placement=Placement(gpu_indices=(1, 2))),),
    )
    assert disaggregated_problems(spec(decode=decode)) == [
        "decode.instances[0] node 0: GPU 1 is prefill.instances[1] node 0's too, on the same host (this host)"
    ]
    # On another host, the same index is another GPU.
    apart = Instance(nodes=(ReplicaNode(addr="10.0.0.9", gpu_indices=(1, 2)),))
    assert disaggregated_problems(spec(decode=attrs.evolve(decode, instances=(apart,)))) == []


def test_an_instances_own_problems_name_the_instance() -> None:
    broken = spec(
        decode=Role(
            profile=profile(tp=2),
            http_port=8200,
            instances=(Instance(nodes=HERE, placement=Placement(gpu_indices=(2,))),),
        )
    )
    assert any(
        p.startswith("decode.instances[0]: nodes[0].gpu_indices: the layout puts 2 GPU(s) on each node")
        for p in disaggregated_problems(broken)
    ), disaggregated_problems(broken)
    with pytest.raises(SpecError):
        expand_disaggregated(broken)


def test_a_disaggregated_spec_loads_from_toml_and_is_told_from_a_replica() -> None:
    text = """
replica_id = "pd"
[transfer]
connector = "nixl"
port = 5600
[router]
port = 8000
[prefill]
http_port = 8100
profile = { name = "p", engine = "sim", model_path = "/m" }
[[prefill.instances]]
placement = { gpu_indices = [0] }
nodes = [{ addr = "127.0.0.1" }]
[decode]
http_port = 8200
profile = { name = "d", engine = "sim", model_path = "/m" }
[[decode.instances]]
nodes = [{ addr = "127.0.0.1" }]
"""
    loaded = load_disaggregated(text)
    assert loaded.transfer == Transfer(connector="nixl", port=5600)
    assert len(loaded.decode.instances) == 1
    assert disaggregated_problems(loaded) == []
    assert is_disaggregated({"prefill": {}, "decode": {}})
    assert not is_disaggregated({"profile": {}, "prefill": 1})
    with pytest.raises(SpecError) as caught:
        load_disaggregated(text.replace("port = 5600", "port = 5600\nbogus = 1"))
    assert any("bogus" in p for p in caught.value.problems)


def test_an_aggregated_shard_takes_no_transfer_settings_and_a_role_is_one_of_three() -> None:
    from enginekit.spec.model import ShardSpec
    from enginekit.spec.rules import check_spec

    p = profile(tp=2)
    assert any(
        "kv_transfer_port: set, but role is 'aggregated'" in x
        for x in check_spec(ShardSpec(profile=p, http_port=8000, kv_transfer_port=5600))
    )
    assert any(
        "kv_connector: set, but role is 'aggregated'" in x
        for x in check_spec(ShardSpec(profile=p, http_port=8000, kv_connector="nixl"))
    )
    assert any(
        "role: expected one of 'aggregated', 'prefill', 'decode', got 'both'" in x
        for x in check_spec(ShardSpec(profile=p, http_port=8000, role="both"))
    )
    assert any(
        "kv_connector: expected a connector's name" in x
        for x in check_spec(ShardSpec(profile=p, http_port=8000, role="decode", kv_connector="Nixl"))
    )
    clash = check_spec(ShardSpec(profile=p, http_port=5601, role="prefill", kv_transfer_port=5600))
    assert any("http_port: 5601 overlaps the KV transfer's side channel, 5600-5601" in x for x in clash)
    high = check_spec(ShardSpec(profile=p, http_port=8000, role="prefill", kv_transfer_port=65535))
    assert any("kv_transfer_port: 65535 leaves no room for the 2 port(s)" in x for x in high)
    events = check_spec(
        ShardSpec(profile=p, http_port=8000, role="prefill", kv_transfer_port=5600, kv_events_port=5599)
    )
    # A binding publisher takes 5599 and its replay 5600.
    assert any("kv_events_port: 5599-5600 overlaps" in x for x in events)
    own = {"bind_addr": "10.0.0.1"}
    assert check_spec(ShardSpec(profile=p, http_port=8000, role="decode", kv_transfer_port=5600, **own)) == []
    # Without an address of its own, the other instances could not reach it.
    alone = check_spec(ShardSpec(profile=p, http_port=8000, role="decode", kv_transfer_port=5600))
    assert alone == [
        "shard spec (unnamed): bind_addr: a decode shard is reached by the other instances at its own address "
        "(its KV transfer's side channel binds there): give the node's address (127.0.0.1 where every "
        "instance runs on this host)"
    ]
    # The first node's, given as the leader's address, is its own.
    assert check_spec(ShardSpec(profile=p, http_port=8000, role="decode", leader_addr="10.0.0.1")) == []


def test_the_layout_of_an_instance_is_the_one_layout_functions() -> None:
    first = instances(spec())[2].replica
    assert disaggregated_layouts(spec())[2][1] == layout(
        first.profile, _node_inputs(first), leader_port=first.leader_port, rules=ANY_ENGINE
    )


def test_a_role_with_a_fabric_gets_ucx_on_its_hcas_and_on_roce_its_gid_index() -> None:
    from enginekit.placement.env import placement_env
    from enginekit.spec.model import ShardSpec

    p = profile(tp=2)
    roce = placement_env(ShardSpec(profile=p, role="prefill", hcas=("mlx5_0", "mlx5_1:2"), gid_index=3))
    assert roce.env["UCX_NET_DEVICES"] == "mlx5_0:1,mlx5_1:2"
    assert roce.env["UCX_IB_GID_INDEX"] == "3"
    infiniband = placement_env(ShardSpec(profile=p, role="decode", hcas=("mlx5_0",)))
    assert infiniband.env["UCX_NET_DEVICES"] == "mlx5_0:1"
    assert "UCX_IB_GID_INDEX" not in infiniband.env
    # Aggregated, or without a fabric: UCX is left as the Go seed left it.
    assert "UCX_NET_DEVICES" not in placement_env(ShardSpec(profile=p, hcas=("mlx5_0",), gid_index=3)).env
    assert "UCX_NET_DEVICES" not in placement_env(ShardSpec(profile=p, role="decode")).env


def test_ucx_variables_say_why_they_are_set() -> None:
    from enginekit.placement.env import placement_env
    from enginekit.spec.model import ShardSpec

    roce = placement_env(ShardSpec(profile=profile(), role="decode", hcas=("mlx5_0",), gid_index=3))
    assert roce.why["UCX_NET_DEVICES"] == (
        "the KV transfer's devices: the chosen fabric's adapters (port 1 where none is said), as "
        "NCCL's; left unset, UCX may send the cache over another network"
    )
    assert roce.why["UCX_IB_GID_INDEX"] == (
        "RoCE: the routable RoCE v2 GID entry placement chose, NCCL's too; UCX's own pick may be a "
        "GID whose address does not route between the nodes"
    )


def _problems(**fields: object) -> list[str]:
    from enginekit.spec.model import ShardSpec
    from enginekit.spec.rules import check_spec

    base: dict[str, object] = {
        "profile": profile(tp=2),
        "http_port": 8000,
        "role": "prefill",
        "bind_addr": "10.0.0.1",
    }
    return [p.removeprefix("shard spec (unnamed): ") for p in check_spec(ShardSpec(**{**base, **fields}))]  # type: ignore[arg-type]


def test_the_transfer_range_is_said_exactly_and_ends_at_65535_inclusive() -> None:
    assert _problems(kv_transfer_port=65535) == [
        "kv_transfer_port: 65535 leaves no room for the 2 port(s) the KV transfer's side channel takes "
        "(one per tensor-parallel rank of each data-parallel rank): at most 65534"
    ]
    assert _problems(kv_transfer_port=65534) == []  # 65534 and 65535
    # Out of range is said once, as a port: no "no room" on top of it.
    assert _problems(kv_transfer_port=65536) == ["kv_transfer_port: expected a port in 1-65535, got 65536"]
    assert _problems(kv_transfer_port=-1) == ["kv_transfer_port: expected a port in 1-65535, got -1"]
    # Port 1 is a port: its range is judged against the shard's others.
    assert _problems(kv_transfer_port=1, http_port=2) == [
        "http_port: 2 overlaps the KV transfer's side channel, 1-2 (kv_transfer_port, one port per "
        "tensor-parallel rank of each data-parallel rank)"
    ]


def test_the_leader_port_and_the_kv_event_ports_may_not_be_in_the_transfer_range() -> None:
    assert _problems(kv_transfer_port=5600, leader_port=5601) == [
        "leader_port: 5601 overlaps the KV transfer's side channel, 5600-5601 (kv_transfer_port, one "
        "port per tensor-parallel rank of each data-parallel rank)"
    ]
    # A connecting publisher takes its port alone; a binding one the replay port after it too.
    assert _problems(kv_transfer_port=5600, kv_events_port=5599, kv_events_mode="connect") == []
    assert _problems(kv_transfer_port=5600, kv_events_port=5599) == [
        "kv_events_port: 5599-5600 overlaps the KV transfer's side channel, 5600-5601 (kv_transfer_port, "
        "one port per tensor-parallel rank of each data-parallel rank)"
    ]


def test_a_long_role_or_connector_is_shown_cut_at_forty_characters() -> None:
    role = "r" * 60
    assert _problems(role=role) == [
        f"role: expected one of 'aggregated', 'prefill', 'decode', got {repr(role)[:40]}"
    ]
    connector = "X" * 60
    assert _problems(kv_connector=connector) == [
        f"kv_connector: expected a connector's name in lower case (nixl, mooncake), got {connector[:40]!r}"
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("127.0.0.1", "127.0.0.2"),
        ("127.0.0.1", "localhost"),
        ("::1", "0:0::1"),
        ("10.0.0.1", "10.0.0.1"),
        ("fd00::1", "FD00:0::1"),
    ],
)
def test_one_host_spelled_two_ways_is_one_host(first: str, second: str) -> None:
    prefill = Role(
        profile=profile(),
        http_port=8310,
        instances=(Instance(nodes=(ReplicaNode(addr=first, gpu_indices=(0,)),)),),
    )
    decode = Role(
        profile=profile(),
        http_port=8310,
        instances=(Instance(nodes=(ReplicaNode(addr=second, gpu_indices=(0,)),)),),
    )
    problems = disaggregated_problems(
        spec(prefill=prefill, decode=decode, router=Router(port=8000, metrics_port=0))
    )
    assert any("GPU 0 is prefill.instances[0] node 0's too" in p for p in problems), problems
    assert any("http 8310 overlaps" in p for p in problems), problems


def test_two_hosts_are_two_hosts() -> None:
    prefill = Role(
        profile=profile(),
        http_port=8310,
        instances=(Instance(nodes=(ReplicaNode(addr="10.0.0.1", gpu_indices=(0,)),)),),
    )
    decode = Role(
        profile=profile(),
        http_port=8310,
        instances=(Instance(nodes=(ReplicaNode(addr="10.0.0.2", gpu_indices=(0,)),)),),
    )
    assert disaggregated_problems(spec(prefill=prefill, decode=decode, router=Router(port=8000))) == []


def test_the_router_binds_loopback_unless_told_and_takes_a_policy_a_router_has() -> None:
    from enginekit.replica.disaggregated import router_host

    assert router_host(spec(router=Router(addr="10.0.0.1", port=8000))) == ("10.0.0.1", "127.0.0.1")
    assert router_host(spec(router=Router(addr="10.0.0.1", host="0.0.0.0", port=8000))) == (
        "10.0.0.1",
        "0.0.0.0",
    )
    assert disaggregated_problems(spec(router=Router(port=8000, policy="manual"))) == []
    assert disaggregated_problems(spec(router=Router(port=8000, policy="b" * 50))) == [
        "router.policy: expected one of round_robin, random, cache_aware, power_of_two, consistent_hash, "
        f"sticky_least_loaded, manual, got {'b' * 40!r}"
    ]


def test_more_side_channel_ports_than_a_host_has_is_said_so() -> None:
    huge = Role(profile=profile(tp=40000), http_port=8200, instances=(Instance(nodes=HERE),))
    problems = disaggregated_problems(
        spec(decode=huge, prefill=attrs.evolve(spec().prefill, profile=profile(tp=40000)))
    )
    assert (
        "transfer.port: the instances take 120000 side-channel ports (each dp x tp), more than a host has"
        in problems
    )


def test_one_hca_twice_is_one_ucx_device() -> None:
    from enginekit.placement.env import placement_env
    from enginekit.spec.model import ShardSpec

    twice = placement_env(ShardSpec(profile=profile(), role="decode", hcas=("mlx5_0", "mlx5_0:1")))
    assert twice.env["UCX_NET_DEVICES"] == "mlx5_0:1"


# --- every boundary and field, said exactly ---------------------------------------------------


def roles(
    *, prefill_tp: int = 1, decode_tp: int = 1, http: tuple[int, int] = (8100, 8200), count: int = 1
) -> dict[str, Role]:
    def role(tp: int, port: int, base: int) -> Role:
        gpus = [tuple(range(base + i * tp, base + (i + 1) * tp)) for i in range(count)]
        return Role(
            profile=profile(tp=tp),
            http_port=port,
            instances=tuple(Instance(nodes=(ReplicaNode(addr="127.0.0.1", gpu_indices=g),)) for g in gpus),
        )

    return {"prefill": role(prefill_tp, http[0], 0), "decode": role(decode_tp, http[1], 100)}


def test_ports_are_ports_at_both_ends() -> None:
    edge = spec(
        router=Router(port=1, metrics_port=65535), transfer=Transfer(port=65532), **roles(http=(2, 40000))
    )
    assert disaggregated_problems(edge) == []
    for router, said in (
        (
            Router(port=65536),
            "router.port: expected a port in 1-65535: where clients reach the replica, got 65536",
        ),
        (Router(port=8000, metrics_port=65536), "router.metrics_port: expected a port in 1-65535, got 65536"),
    ):
        assert disaggregated_problems(spec(router=router, **roles())) == [said]
    assert disaggregated_problems(spec(transfer=Transfer(port=65536), **roles()))[0] == (
        "transfer.port: expected a port in 1-65535: the side channels' first port, which every instance's "
        "derives from (got 65536)"
    )
    # The last instance's HTTP port is the role's plus the instances before it.
    assert disaggregated_problems(spec(**roles(http=(65535, 8200)))) == []
    assert disaggregated_problems(spec(**roles(http=(65535, 8200), count=2)))[0] == (
        "prefill.http_port: expected a port in 1-65535 for every instance, got 65535"
    )
    # 65535 side-channel ports from port 1 fit; one more does not.
    wide = spec(transfer=Transfer(port=1), **roles(prefill_tp=65534, decode_tp=1))
    assert not [p for p in disaggregated_problems(wide) if p.startswith("transfer.port")]
    wider = spec(transfer=Transfer(port=1), **roles(prefill_tp=65535, decode_tp=1))
    assert (
        "transfer.port: the instances take 65536 side-channel ports (each dp x tp), more than a host has"
        in (disaggregated_problems(wider))
    )
    assert disaggregated_problems(spec(transfer=Transfer(port=65534), **roles())) == []
    assert disaggregated_problems(spec(transfer=Transfer(port=65535), **roles()))[0] == (
        "transfer.port: 65535 leaves no room for the 2 side-channel port(s) the instances take after it "
        "(each dp x tp): at most 65534"
    )


@pytest.mark.parametrize(
    ("prefill_tp", "decode_tp", "ok"), [(1, 3, True), (3, 1, True), (2, 3, False), (2, 4, True)]
)
def test_one_tensor_parallel_size_must_divide_the_other(prefill_tp: int, decode_tp: int, ok: bool) -> None:
    problems = disaggregated_problems(spec(**roles(prefill_tp=prefill_tp, decode_tp=decode_tp)))
    said = (
        f"decode.profile.tp: {decode_tp}, and prefill's is {prefill_tp}: the KV cache moves between them only "
        f"when one tensor-parallel size divides the other"
    )
    assert (said not in problems) == ok, problems


def test_router_addresses_are_shown_cut_and_a_metrics_port_clash_is_named() -> None:
    long_host = "-" * 60
    assert disaggregated_problems(spec(router=Router(port=8000, addr=long_host), **roles())) == [
        f"router.addr: expected a host name or IP address, got {long_host[:40]!r}"
    ]
    assert disaggregated_problems(spec(router=Router(port=8000, metrics_port=8100), **roles())) == [
        "router.metrics_port overlaps prefill.instances[0] node 0's http 8100 on the same host (this host)"
    ]


def test_clashes_are_said_in_the_order_they_were_laid_out() -> None:
    # The decode instance takes the prefill's HTTP port and its transfer port both.
    decode = Role(
        profile=profile(),
        http_port=8100,
        instances=(Instance(nodes=(ReplicaNode(addr="127.0.0.1", gpu_indices=(9,)),)),),
    )
    problems = disaggregated_problems(
        spec(decode=decode, router=Router(port=5600), **{"prefill": roles()["prefill"]})
    )
    assert problems == [
        "decode.instances[0] node 0's http 8100 overlaps prefill.instances[0] node 0's http 8100 on the same host "
        "(this host)",
        "router.port overlaps prefill.instances[0] node 0's kv-transfer 5600 on the same host (this host)",
    ]


def test_the_instances_carry_the_replicas_key_events_mode_pool_and_fingerprint() -> None:
    full = spec(
        api_key="sk-0123456789abcdef01", kv_events_mode="connect", pool="p1", profile_fp="fp", **roles()
    )
    for instance in instances(full):
        replica = instance.replica
        assert (replica.api_key, replica.kv_events_mode, replica.pool, replica.profile_fp) == (
            "sk-0123456789abcdef01",
            "connect",
            "p1",
            "fp",
        )
    anonymous = instances(spec(replica_id="", **roles()))
    assert {i.replica.replica_id for i in anonymous} == {""}
    portless = instances(spec(prefill=attrs.evolve(roles()["prefill"], http_port=0)))
    assert portless[0].replica.http_port == 0


def test_layouts_take_each_roles_rules_and_refuse_what_the_spec_breaks() -> None:
    sglang_like = attrs.evolve(
        ANY_ENGINE, kv_transfer=KVTransferPorts(roles=frozenset({"prefill"}), scope=TRANSFER_LEADER)
    )
    laid = disaggregated_layouts(spec(**roles()), {"prefill": sglang_like})
    listens = {i.role: [x.name for p in one.processes() for x in p.listens] for i, one in laid}
    assert listens == {"prefill": ["http", "kv-transfer"], "decode": ["http", "kv-transfer"]}
    laid = disaggregated_layouts(spec(**roles()), {"decode": sglang_like})
    listens = {i.role: [x.name for p in one.processes() for x in p.listens] for i, one in laid}
    assert listens == {"prefill": ["http", "kv-transfer"], "decode": ["http"]}
    broken = spec(router=Router(port=0), **roles())
    for call in (disaggregated_layouts, expand_disaggregated):
        with pytest.raises(SpecError) as caught:
            call(broken)  # type: ignore[operator]
        assert list(caught.value.problems) == [
            "router.port: expected a port in 1-65535: where clients reach the replica, got 0"
        ]


def test_a_document_is_one_only_with_both_tables_and_loads_with_its_name_in_every_problem() -> None:
    assert not is_disaggregated({"prefill": {}})
    assert not is_disaggregated({"decode": {}})
    with pytest.raises(SpecError) as caught:
        load_disaggregated({"prefill": {}, "decode": {}, "bogus": 1}, name="pd.toml")
    assert caught.value.problems[0].startswith("pd.toml: disaggregated.")
    with pytest.raises(SpecError) as caught:
        load_disaggregated({"prefill": {}, "decode": {}, "bogus": 1})
    assert caught.value.problems[0].startswith("disaggregated.")
    assert "disaggregated.bogus: unknown field" in caught.value.problems
    loose = load_disaggregated(
        {
            "prefill": {"profile": {"name": "p", "engine": "sim"}},
            "decode": {"profile": {"name": "p", "engine": "sim"}},
            "bogus": 1,
        },
        lenient=True,
    )
    assert loose.prefill.profile.name == "p"
    with pytest.raises(SpecError) as caught:
        load_disaggregated("[prefill\n")
    assert caught.value.problems[0].startswith("disaggregated")
    with pytest.raises(SpecError) as caught:
        load_disaggregated(
            {
                "api_key": "<secret>",
                "prefill": {"profile": {"name": "p", "engine": "sim"}},
                "decode": {"profile": {"name": "p", "engine": "sim"}},
            }
        )
    assert list(caught.value.problems) == ["disaggregated.api_key: holds the mask '<secret>', not a key"]


def test_the_router_runs_on_the_first_prefills_first_node_unless_told() -> None:
    from enginekit.replica.disaggregated import router_host

    at = spec(
        router=Router(port=8000), **{"prefill": attrs.evolve(roles()["prefill"]), "decode": roles()["decode"]}
    )
    assert router_host(at) == ("127.0.0.1", "127.0.0.1")
    nowhere = spec(prefill=Role(profile=profile(), instances=(Instance(),)), router=Router(port=8000))
    assert router_host(nowhere) == ("", "127.0.0.1")
    none = spec(prefill=Role(profile=profile(), instances=()), router=Router(port=8000))
    assert router_host(none) == ("", "127.0.0.1")


@pytest.mark.parametrize(
    ("addr", "host"),
    [
        ("", "this host"),
        ("LOCALHOST.", "this host"),
        ("::ffff:127.0.0.1", "this host"),
        ("::ffff:10.0.0.1", "10.0.0.1"),
        ("Node-1.Example.", "node-1.example"),
        ("FD00:0::1", "fd00::1"),
    ],
)
def test_a_host_is_named_one_way(addr: str, host: str) -> None:
    from enginekit.replica.disaggregated import _host

    assert _host(addr) == host


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("LocalHost.", True),
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("0:0:0:0:0:0:0:1", True),
        ("::ffff:127.0.0.1", True),
        ("127.attacker.example", False),
        ("localhost.example", False),
        ("::ffff:10.0.0.1", False),
        ("10.0.0.1", False),
        ("0.0.0.0", False),
        ("", False),
    ],
)
def test_loopback_is_judged_as_an_address_in_any_spelling(host: str, loopback: bool) -> None:
    from enginekit.spec.rules import is_loopback

    assert is_loopback(host) is loopback


def test_a_router_on_another_host_than_instances_on_loopback_is_refused() -> None:
    assert disaggregated_problems(spec(router=Router(addr="10.0.0.9", port=8000), **roles())) == [
        "router.addr: 10.0.0.9 is another host than the instances at a loopback address, which a router "
        "there cannot reach: run it on their host, or give them addresses it reaches"
    ]
    assert disaggregated_problems(spec(router=Router(addr="localhost", port=8000), **roles())) == []
