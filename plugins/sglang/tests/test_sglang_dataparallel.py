"""SGLang's data-parallel attention and expert parallel: command lines from the layout, in every release."""

from __future__ import annotations

from typing import Any

import pytest
from enginekit import SpecError
from enginekit.plugin import Command, Coordination, ShardSpec, parse_version
from enginekit.replica.spec import expand, load_replica, replica_layout
from enginekit.testing import engine_for
from enginekit_sglang import SglangConfig, SglangEngine
from enginekit_sglang.dataparallel import (
    ALL2ALL_BACKENDS,
    all2all_backends,
    expert_args,
    first_with,
    layout_rules,
    waits_for_leader,
)
from enginekit_sglang.flags import SYNTAX, table

RELEASES = table().releases
KEY = "sk-sglang-dp-0123456789abcdef"


def replica(**profile: Any) -> dict[str, Any]:
    """DeepSeek-V3 over two nodes of eight GPUs: 16 attention ranks of one GPU, experts over all 16."""
    fields = {
        "name": "dsv3",
        "engine": "sglang",
        "model_path": "/models/deepseek-ai/DeepSeek-V3",
        "served_model_name": "deepseek-v3",
        "tp": 1,
        "dp": 16,
        "dp_per_node": 8,
        "nodes": 2,
        "gpus_per_node": 8,
        "expert_parallel": True,
        "all2all": "deepep",
    }
    return {
        "replica_id": "dsv3",
        "leader_port": 5757,
        "http_port": 30000,
        "api_key": KEY,
        "placement": {
            "gpu_indices": list(range(8)),
            "hcas": ["mlx5_0:1", "mlx5_1:1"],
            "mgmt_interface": "eth0",
            "fabric": "ib:pod-a",
        },
        "nodes": [{"addr": "10.0.0.1"}, {"addr": "10.0.0.2"}],
        "profile": fields | profile,
    }


def engine(release: str = "0.5.23") -> Any:
    return engine_for(SglangEngine(SglangConfig(version=release)), "sglang")


def commands(doc: dict[str, Any], release: str = "0.5.23") -> list[tuple[ShardSpec, Command]]:
    planner = engine(release)
    out = []
    for shard in expand(load_replica(doc)):
        [command] = planner.plan(shard).commands
        out.append((shard, command))
    return out


def launched(command: Command) -> list[str]:
    """What SGLang parses: everything after ``-I -m MODULE`` or the launcher's ``-I -c CODE``."""
    assert command.args[0] == "-I"
    return list(command.args[3:])


def test_two_nodes_of_attention_ranks_and_deepep_pinned_on_the_newest_release() -> None:
    (head_spec, head), (worker_spec, worker) = commands(replica())
    common = [
        "--model-path", "/models/deepseek-ai/DeepSeek-V3",
    ]  # fmt: skip
    assert launched(head) == [
        *common,
        "--host", "10.0.0.1",
        "--port", "30000",
        "--served-model-name", "deepseek-v3",
        "--nnodes", "2",
        "--node-rank", "0",
        "--dist-init-addr", "10.0.0.1:5757",
        "--attn-dp-size", "16",
        "--enable-metrics",
        "--tp-size", "16",
        "--pp-size", "1",
        "--ep-size", "16",
        "--moe-a2a-backend", "deepep",
    ]  # fmt: skip
    assert launched(worker) == [
        *common,
        "--host", "10.0.0.2",
        "--port", "30000",
        "--served-model-name", "deepseek-v3",
        "--nnodes", "2",
        "--node-rank", "1",
        "--dist-init-addr", "10.0.0.1:5757",
        "--attn-dp-size", "16",
        "--enable-metrics",
        "--tp-size", "16",
        "--pp-size", "1",
        "--ep-size", "16",
        "--moe-a2a-backend", "deepep",
    ]  # fmt: skip
    assert (head.name, worker.name) == ("sglang", "sglang-rank1")
    assert (head_spec.api_key, worker_spec.api_key) == (KEY, "")
    assert worker_spec.dp_rank == 8
    # Node 0 opens 5757 only once node 1 has fetched its worker ports at 5770: no holding it.
    assert (head.wait_for_leader_port, worker.wait_for_leader_port) == (False, False)


def test_up_to_0_5_21_attention_ranks_are_dp_size_with_enable_dp_attention() -> None:
    (_, head), (_, worker) = commands(replica(), release="0.5.21")
    for command in (head, worker):
        args = launched(command)
        at = args.index("--dist-init-addr")
        assert args[at : at + 5] == [
            "--dist-init-addr",
            "10.0.0.1:5757",
            "--dp-size",
            "16",
            "--enable-dp-attention",
        ]
        assert "--attn-dp-size" not in args
    assert parse_version("0.5.22") > parse_version("0.5.21")
    (_, head), _ = commands(replica(), release="0.5.22")
    assert "--attn-dp-size" in launched(head)
    assert "--enable-dp-attention" not in launched(head)


def test_the_layout_each_shard_is_planned_from_is_the_replicas() -> None:
    doc = replica()
    for release in ("0.5.2", "0.5.4", "0.5.5", "0.5.6", "0.5.15", "0.5.23"):
        planner = engine(release)
        laid = replica_layout(load_replica(doc), planner.layout_rules)
        for shard in expand(load_replica(doc)):
            assert planner.layout(shard) == laid.process(shard.rank, shard.dp_rank), release
            assert planner.serves_http(shard) is (laid.process(shard.rank).role == "api-server")


def test_the_ports_sglang_derives_from_the_dist_init_port_are_the_leaders() -> None:
    laid = replica_layout(load_replica(replica()), engine("0.5.23").layout_rules)
    head, worker = laid.processes()
    assert [str(listener) for listener in head.listens] == [
        "http 30000",
        "dist-init 5757",
        "zmq 5758-5763",
        "dp-handshake 5770",
    ]
    assert [str(listener) for listener in worker.listens] == ["health-stub 30000"]
    assert [str(kept) for kept in worker.reserves] == ["dist-init 5757", "zmq 5758-5763"]
    assert [str(dial) for dial in worker.dials] == [
        "dist-init -> node 0 10.0.0.1:5757",
        "zmq -> node 0 10.0.0.1:5758",
        "dp-handshake -> node 0 10.0.0.1:5770",
    ]


def rules_ports(release: str) -> list[Coordination]:
    return list(layout_rules(parse_version(release)).coordination)


#: What the layout sets between --dist-init-addr and --enable-metrics for DP 16 before 0.5.22.
DP_ATTENTION_ARGS = ["--dist-init-addr", "10.0.0.1:5757", "--dp-size", "16", "--enable-dp-attention"]


def dp_attention_args(args: list[str]) -> list[str]:
    """The arguments from ``--dist-init-addr`` up to ``--enable-metrics``: where the layout's ports go."""
    return args[args.index("--dist-init-addr") : args.index("--enable-metrics")]


def test_each_releases_ports() -> None:
    # Up to 0.5.3.post1: fixed per-rank input ports after the block, no handshake, nothing kept.
    old = [Coordination("dist-init"), Coordination("zmq", 1, 5), Coordination("rank-input", 6, per_rank=True)]
    assert rules_ports("0.5.1") == old
    assert rules_ports("0.5.3.post1") == old
    # 0.5.3.post2 to 0.5.4: the handshake is on the dist-init port itself.
    assert rules_ports("0.5.3.post2") == [Coordination("dist-init"), Coordination("zmq", 1, 5)]
    assert rules_ports("0.5.3.post3") == rules_ports("0.5.3.post2")
    assert rules_ports("0.5.4.post3") == rules_ports("0.5.3.post2")
    # 0.5.5: every node waits for the block to be free.
    kept = [Coordination("dist-init", every_node=True), Coordination("zmq", 1, 5, every_node=True)]
    assert rules_ports("0.5.5") == kept
    assert rules_ports("0.5.6") == [*kept, Coordination("dp-handshake", 13)]
    assert rules_ports("0.5.10.post1") == rules_ports("0.5.6")
    # 0.5.13: the load collector's D+6 joins the block (0.5.12.post1 read without it).
    assert rules_ports("0.5.12.post1") == rules_ports("0.5.6")
    assert rules_ports("0.5.13") == [
        kept[0],
        Coordination("zmq", 1, 6, every_node=True),
        Coordination("dp-handshake", 13),
    ]
    assert rules_ports("0.5.23") == rules_ports("0.5.13")
    rules = layout_rules(parse_version("0.5.23"))
    assert (rules.balancing, rules.expert_parallel, rules.health_stub) == (
        frozenset({"internal"}),
        True,
        True,
    )
    assert rules.all2all == all2all_backends(parse_version("0.5.23"))
    assert layout_rules(parse_version("0.5.2")).all2all == frozenset({"none", "deepep"})
    # 0.5.8's schedulers publish where attn_tp_rank == 0, 0.5.7's only where tp_rank == 0.
    assert layout_rules(parse_version("0.5.8")).kv_events_per_rank is True
    assert layout_rules(parse_version("0.5.7")).kv_events_per_rank is False


@pytest.mark.parametrize(("release", "block"), [("0.5.12.post1", "5758-5762"), ("0.5.13", "5758-5763")])
def test_the_load_collector_at_d_plus_6_is_laid_out_from_0_5_13(release: str, block: str) -> None:
    """0.5.13's ``PortArgs.init_new`` derives ``load_collector_port = port_base + 5`` (D+6).

    0.5.12.post1's stops at D+5, so the block is one port shorter there and on the other node.
    """
    head, worker = replica_layout(load_replica(replica()), engine(release).layout_rules).processes()
    assert [str(listener) for listener in head.listens] == [
        "http 30000",
        "dist-init 5757",
        f"zmq {block}",
        "dp-handshake 5770",
    ]
    assert [str(kept) for kept in worker.reserves] == ["dist-init 5757", f"zmq {block}"]
    assert [str(dial) for dial in worker.dials] == [
        "dist-init -> node 0 10.0.0.1:5757",
        "zmq -> node 0 10.0.0.1:5758",
        "dp-handshake -> node 0 10.0.0.1:5770",
    ]
    # The port moves nothing on the command line: SGLang derives it from --dist-init-addr.
    for _, command in commands(replica(), release=release):
        assert dp_attention_args(launched(command)) == DP_ATTENTION_ARGS


def test_the_worker_port_handshake_replaces_the_fixed_rank_ports_from_0_5_3_post2() -> None:
    """0.5.3.post1's ``PortArgs.init_new`` gives rank r D+6+r.

    0.5.3.post2's takes ``worker_ports[dp_rank]``, random ports node 0 binds and hands out.
    """
    head, worker = replica_layout(
        load_replica(replica(all2all="")), engine("0.5.3.post1").layout_rules
    ).processes()
    assert [str(listener) for listener in head.listens] == [
        "http 30000",
        "dist-init 5757",
        "zmq 5758-5762",
        "rank-input 5763-5778",
    ]
    assert [str(dial) for dial in worker.dials] == [
        "dist-init -> node 0 10.0.0.1:5757",
        "zmq -> node 0 10.0.0.1:5758",
        "rank-input -> node 0 10.0.0.1:5771",
    ]
    head, worker = replica_layout(
        load_replica(replica(all2all="")), engine("0.5.3.post2").layout_rules
    ).processes()
    # The handshake runs on D itself, before the TCPStore: no port of its own, none per rank.
    assert [str(listener) for listener in head.listens] == ["http 30000", "dist-init 5757", "zmq 5758-5762"]
    assert [str(dial) for dial in worker.dials] == [
        "dist-init -> node 0 10.0.0.1:5757",
        "zmq -> node 0 10.0.0.1:5758",
    ]
    assert (head.reserves, worker.reserves) == ((), ())
    # The command is the same on both sides of the boundary: SGLang derives every port from D.
    for release in ("0.5.3.post1", "0.5.3.post2"):
        for _, command in commands(replica(all2all=""), release=release):
            args = launched(command)
            assert dp_attention_args(args) == DP_ATTENTION_ARGS
            assert "--ep-size" in args


def test_the_fixed_per_rank_ports_of_old_releases_are_laid_out_and_dialed() -> None:
    laid = replica_layout(load_replica(replica(all2all="")), engine("0.5.2").layout_rules)
    head, worker = laid.processes()
    assert "rank-input 5763-5778" in [str(listener) for listener in head.listens]
    assert worker.dialed("rank-input") is not None
    assert worker.dialed("rank-input").port == 5771  # type: ignore[union-attr]
    assert worker.reserves == ()


def test_each_release_has_the_all_to_all_backends_its_parser_lists() -> None:
    # 0.5.3.post1's parser lists none and deepep, 0.5.3.post2's adds mooncake.
    assert all2all_backends(parse_version("0.5.3.post1")) == frozenset({"none", "deepep"})
    assert all2all_backends(parse_version("0.5.3.post2")) == frozenset({"none", "deepep", "mooncake"})
    assert "ascend_fuseep" not in all2all_backends(parse_version("0.5.5.post3"))
    assert "ascend_fuseep" in all2all_backends(parse_version("0.5.6"))
    assert all2all_backends(parse_version("0.5.9")) == frozenset(
        {"none", "deepep", "mooncake", "mori", "ascend_fuseep", "flashinfer"}
    )
    assert "nixl" in all2all_backends(parse_version("0.5.10"))
    # 0.5.11's MOE_A2A_BACKEND_CHOICES lacks megamoe, 0.5.12's has it.
    before = all2all_backends(parse_version("0.5.11"))
    assert all2all_backends(parse_version("0.5.12")) == before | {"megamoe"}
    assert "megamoe" not in all2all_backends(parse_version("0.5.11"))
    assert first_with("megamoe") == parse_version("0.5.12")
    assert len(all2all_backends(parse_version("0.5.23"))) == 12
    assert "deepep_v2" not in all2all_backends(parse_version("0.5.20"))
    # A release older than the table takes the oldest list.
    assert all2all_backends(parse_version("0.4.9")) == frozenset({"none", "deepep"})
    assert first_with("mooncake") == parse_version("0.5.3.post2")
    assert first_with("pplx") == parse_version("0.5.21")
    assert first_with("nope") is None
    assert min(ALL2ALL_BACKENDS) == parse_version("0.5.1")


def test_a_backend_the_release_lacks_is_refused_naming_the_release_and_when_it_came() -> None:
    shard = expand(load_replica(replica(all2all="mooncake")))[0]
    assert engine("0.5.2").problems(shard) == [
        "profile 'dsv3': all2all: SGLang 0.5.2 has no all-to-all backend 'mooncake' (it has deepep, none; "
        "it came in 0.5.3.post2)"
    ]
    assert engine("0.5.3.post1").problems(shard)[0].endswith("it came in 0.5.3.post2)")
    assert engine("0.5.3.post2").problems(shard) == []
    assert engine("0.5.4").problems(shard) == []
    unknown = expand(load_replica(replica(all2all="naive")))[0]
    assert engine("0.5.23").problems(unknown) == [
        "profile 'dsv3': all2all: SGLang 0.5.23 has no all-to-all backend 'naive' (it has ascend_fuseep, "
        "ascend_tp, deepep, deepep_v2, flashinfer, flashinfer_megamoe, megamoe, mooncake, mori, nixl, "
        "none, pplx)"
    ]


def test_kv_events_under_data_parallel_need_every_rank_publishing() -> None:
    doc = replica(kv_events=True)
    doc["placement"]["kv_events_port"] = 5557
    shard = expand(load_replica(doc))[0]
    assert engine("0.5.7").problems(shard) == [
        "profile 'dsv3': kv_events: with data-parallel attention SGLang 0.5.7 publishes the KV-cache "
        "events of its first rank only, so a router would see one rank's cache; every rank publishes "
        "from 0.5.8"
    ]
    assert engine("0.5.8").problems(shard) == []
    two = replica(kv_events=True, dp=2, dp_per_node=1, gpus_per_node=1)
    two["placement"]["kv_events_port"] = 5557
    two["placement"]["gpu_indices"] = [0]
    assert engine("0.5.7").problems(expand(load_replica(two))[0])[0].startswith("profile 'dsv3': kv_events:")
    laid = replica_layout(load_replica(doc), engine("0.5.8").layout_rules)
    assert [str(one) for p in laid.processes() for one in p.listens if one.name == "kv-events"] == [
        "kv-events 5557-5564",
        "kv-events 5565-5572",
    ]
    # Without data parallel, one node's events are as before whatever the release.
    single = replica(dp=1, dp_per_node=0, tp=8, nodes=1, gpus_per_node=0, kv_events=True)
    single["nodes"] = single["nodes"][:1]
    single["placement"]["kv_events_port"] = 5557
    assert engine("0.5.7").problems(expand(load_replica(single))[0]) == []


def kv_event_listeners(doc: dict[str, Any], release: str) -> list[list[str]]:
    """Each node's KV-event listeners in ``release``'s layout of ``doc``."""
    laid = replica_layout(load_replica(doc), engine(release).layout_rules)
    return [[str(one) for one in process.listens if one.name == "kv-events"] for process in laid.processes()]


def test_kv_events_with_data_parallel_from_0_5_8_go_to_each_ranks_port_and_not_before() -> None:
    """0.5.8's schedulers publish where ``attn_tp_rank == 0``; 0.5.7's only where ``tp_rank == 0``."""
    doc = replica(kv_events=True)
    doc["placement"]["kv_events_port"] = 5557
    # 0.5.8 has no bind field: a wildcard endpoint is what makes it bind.
    config = '{"publisher":"zmq","endpoint":"tcp://*:5557","bind":true}'
    for _, command in commands(doc, release="0.5.8"):
        args = launched(command)
        assert args[args.index("--kv-events-config") + 1] == config
    assert kv_event_listeners(doc, "0.5.8") == [["kv-events 5557-5564"], ["kv-events 5565-5572"]]
    assert kv_event_listeners(doc, "0.5.7") == [["kv-events 5557"], ["kv-events 5557"]]
    said = r"SGLang 0\.5\.7 publishes the KV-cache events of its first rank only"
    for shard in expand(load_replica(doc)):
        with pytest.raises(SpecError, match=said):
            engine("0.5.7").plan(shard)


def test_pipeline_stages_across_nodes_are_refused_with_data_parallel() -> None:
    shard = expand(load_replica(replica(pp=2, dp=8, dp_per_node=4)))[0]
    assert engine().problems(shard) == [
        "profile 'dsv3': pp: SGLang spreads each pipeline stage over its own nodes, so a data-parallel "
        "rank would span nodes (the layout puts each on one node): run pp = 1, or one node"
    ]
    one = replica(pp=2, dp=4, dp_per_node=0, nodes=1)
    one["nodes"] = one["nodes"][:1]
    assert engine().problems(expand(load_replica(one))[0]) == []


def test_flashinfer_megamoe_needs_one_gpu_per_attention_rank() -> None:
    shard = expand(load_replica(replica(tp=2, dp=8, dp_per_node=4, all2all="flashinfer_megamoe")))[0]
    assert engine().problems(shard) == [
        "profile 'dsv3': all2all: 'flashinfer_megamoe' needs every GPU to be its own attention rank "
        "(SGLang asserts --attn-dp-size equal to --tp-size): set tp = 1 and dp to the GPU count"
    ]
    assert engine().problems(expand(load_replica(replica(all2all="flashinfer_megamoe")))[0]) == []


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("--dp-size", "16"), "set the profile's dp (data-parallel attention ranks)"),
        (("--dp", "16"), "set the profile's dp (data-parallel attention ranks)"),
        (("--data-parallel-size", "16"), "set the profile's dp (data-parallel attention ranks)"),
        (("--attn-dp-size", "16"), "set the profile's dp (data-parallel attention ranks)"),
        (("--attention-data-parallel-size", "16"), "set the profile's dp (data-parallel attention ranks)"),
        (
            ("--enable-dp-attention",),
            "set the profile's dp: data-parallel attention is on when dp is above 1",
        ),
        (("--ep-size", "16"), "set the profile's expert_parallel: the experts spread over all tp x dp GPUs"),
        (("--ep", "16"), "set the profile's expert_parallel: the experts spread over all tp x dp GPUs"),
        (
            ("--expert-parallel-size", "16"),
            "set the profile's expert_parallel: the experts spread over all tp x dp GPUs",
        ),
        (("--moe-a2a-backend", "deepep"), "set the profile's all2all (with expert_parallel)"),
        (("--tp-size", "16"), "set the profile's tp"),
        (("--nnodes", "2"), "set the profile's nodes"),
        (("--node-rank", "1"), "the shard's rank sets it"),
        (("--dist-init-addr", "10.0.0.1:5757"), "the shard's leader_addr and leader_port set it"),
    ],
)
def test_what_the_layout_sets_is_refused_in_args_naming_the_profile_field(
    args: tuple[str, ...], field: str
) -> None:
    shard = expand(load_replica(replica(args=list(args))))[0]
    [problem] = engine().problems(shard)
    assert problem.endswith(f"which enginekit manages; {field}")


def test_deepep_spellings_of_0_5_2_are_refused_for_the_profile_fields() -> None:
    for flag, field in (
        ("--enable-deepep-moe", 'set the profile\'s expert_parallel and all2all = "deepep"'),
        ("--enable-ep-moe", "set the profile's expert_parallel"),
    ):
        shard = expand(load_replica(replica(args=[flag])))[0]
        assert engine("0.5.2").problems(shard) == [
            f"profile 'dsv3': args: '{flag}' sets {flag}, which enginekit manages; {field}"
        ]
    # The DeepEP mode stays the profile's to pass through.
    shard = expand(load_replica(replica(args=["--deepep-mode", "low_latency"])))[0]
    assert engine().problems(shard) == []
    assert launched(engine().plan(shard).commands[0])[-2:] == ["--deepep-mode", "low_latency"]


def test_a_dp_lm_head_without_data_parallel_attention_is_refused() -> None:
    lone = replica(dp=1, dp_per_node=0, tp=8, nodes=1, gpus_per_node=0, args=["--enable-dp-lm-head"])
    lone["nodes"] = lone["nodes"][:1]
    assert engine().problems(expand(load_replica(lone))[0]) == [
        "profile 'dsv3': args: --enable-dp-lm-head needs data-parallel attention, which SGLang runs when "
        "the profile's dp is above 1"
    ]
    assert engine().problems(expand(load_replica(replica(args=["--enable-dp-lm-head"])))[0]) == []


def test_only_internal_balancing() -> None:
    shard = expand(load_replica(replica(dp_balancing="hybrid")))[0]
    assert engine().problems(shard) == [
        "profile 'dsv3': dp_balancing: engine 'sglang' has no 'hybrid' balancing (it has internal)"
    ]


def test_one_node_of_attention_ranks_pins_the_dist_init_port_on_loopback() -> None:
    doc = replica(tp=2, dp=4, dp_per_node=0, nodes=1, expert_parallel=False, all2all="")
    doc["nodes"] = [{}]
    [(shard, command)] = commands(doc)
    args = launched(command)
    assert "--nnodes" not in args
    at = args.index("--dist-init-addr")
    assert args[at : at + 3] == ["--dist-init-addr", "127.0.0.1:5757", "--attn-dp-size"]
    assert args[args.index("--tp-size") + 1] == "8"
    assert "--ep-size" not in args
    assert command.wait_for_leader_port is False
    assert engine().plan(shard).serves_http is True


def test_an_ipv6_leader_is_bracketed() -> None:
    doc = replica()
    doc["nodes"] = [{"addr": "fd00::1"}, {"addr": "fd00::2"}]
    (_, head), (_, worker) = commands(doc)
    for command in (head, worker):
        args = launched(command)
        assert args[args.index("--dist-init-addr") + 1] == "[fd00::1]:5757"


def test_expert_parallel_without_data_parallel_spans_the_tensor_parallel_group() -> None:
    doc = replica(dp=1, dp_per_node=0, tp=8, nodes=1, gpus_per_node=0)
    doc["nodes"] = doc["nodes"][:1]
    [(_, command)] = commands(doc)
    args = launched(command)
    assert args[-8:] == ["--tp-size", "8", "--pp-size", "1", "--ep-size", "8", "--moe-a2a-backend", "deepep"]
    assert "--attn-dp-size" not in args
    assert "--dist-init-addr" not in args


def test_expert_args_spell_the_whole_group_and_the_backend_only_when_named() -> None:
    prof = load_replica(replica(tp=2, dp=4, dp_per_node=2)).profile
    assert expert_args(prof) == ["--ep-size", "8", "--moe-a2a-backend", "deepep"]
    no_backend = load_replica(replica(all2all="")).profile
    assert expert_args(no_backend) == ["--ep-size", "16"]
    off = load_replica(replica(expert_parallel=False, all2all="")).profile
    assert expert_args(off) == []


def test_which_workers_wait_for_the_leaders_port() -> None:
    dp = load_replica(replica()).profile
    tp_only = load_replica(replica(dp=1, dp_per_node=0, tp=16)).profile
    assert [waits_for_leader(dp, parse_version(r)) for r in ("0.5.5.post3", "0.5.6")] == [True, False]
    assert waits_for_leader(tp_only, parse_version("0.5.23")) is True
    two = load_replica(replica(dp=2, dp_per_node=1, gpus_per_node=1)).profile
    assert waits_for_leader(two, parse_version("0.5.6")) is False
    (_, head), (_, worker) = commands(replica(), release="0.5.5")
    assert (head.wait_for_leader_port, worker.wait_for_leader_port) == (False, True)
    # Workers stay up when the leader goes: they are stopped, as for tensor parallel.
    shards = expand(load_replica(replica()))
    assert [engine().plan(s).on_leader_exit for s in shards] == ["", "must_be_stopped"]


SHAPES: dict[str, dict[str, Any]] = {
    "two-nodes-attention-dp-deepep": {},
    "two-nodes-attention-dp-tp2-no-backend": {"tp": 2, "dp": 8, "dp_per_node": 4, "all2all": ""},
    "two-nodes-attention-dp-dense": {"expert_parallel": False, "all2all": ""},
}


def shape(name: str) -> dict[str, Any]:
    if name.startswith("one-node"):
        doc = replica(**SHAPES[name])
        doc["nodes"] = doc["nodes"][:1]
        return doc
    return replica(**SHAPES[name])


SHAPES["one-node-attention-dp"] = {"dp": 8, "dp_per_node": 0, "nodes": 1}
SHAPES["one-node-expert-parallel-tp8"] = {"dp": 1, "dp_per_node": 0, "tp": 8, "nodes": 1, "gpus_per_node": 0}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_flag_of_every_shape_exists_in_every_release(release: str, name: str) -> None:
    options = table().for_release(release, setting="x")
    for _, command in commands(shape(name), release=release):
        used = SYNTAX.parse(launched(command)).uses
        missing = sorted(option for option in used if not options.accepts(option))
        assert not missing, f"SGLang {release} has no {missing} ({name})"


def test_a_worker_that_does_not_wait_for_the_leader_is_told_why() -> None:
    _, worker = expand(load_replica(replica()))
    said = "rank 1 starts without waiting for 10.0.0.1:5757: node 0 opens it only after every node"
    assert any(note.startswith(said) for note in engine("0.5.6").plan(worker).notes)
    assert not any(note.startswith(said) for note in engine("0.5.5").plan(worker).notes)
    tp_only = expand(load_replica(replica(dp=1, dp_per_node=0, tp=16)))[1]
    assert not any(note.startswith("rank 1 starts without") for note in engine().plan(tp_only).notes)


def test_a_shard_planned_alone_without_a_leader_address_dials_loopback_on_one_node() -> None:
    prof = load_replica(
        replica(tp=2, dp=4, dp_per_node=0, nodes=1, expert_parallel=False, all2all="")
    ).profile
    shard = ShardSpec(profile=prof, http_port=30000, leader_port=5757, gpu_indices=tuple(range(8)))
    args = launched(engine().plan(shard).commands[0])
    assert args[args.index("--dist-init-addr") + 1] == "127.0.0.1:5757"
    given = ShardSpec(profile=prof, http_port=30000, leader_addr="10.0.0.9", leader_port=5757)
    args = launched(engine().plan(given).commands[0])
    assert args[args.index("--dist-init-addr") + 1] == "10.0.0.9:5757"


def test_two_attention_ranks_are_data_parallel_already() -> None:
    doc = replica(tp=4, dp=2, dp_per_node=0, nodes=1, args=["--enable-dp-lm-head"])
    doc["nodes"] = doc["nodes"][:1]
    [(shard, command)] = commands(doc)
    args = launched(command)
    assert args[args.index("--attn-dp-size") + 1] == "2"
    assert args[args.index("--tp-size") + 1] == "8"
    assert engine().problems(shard) == []


@pytest.mark.parametrize("backend", ["deepep", "pplx"])
def test_an_nvshmem_backend_across_nodes_gets_nvshmem_s_fabric_settings_on_every_node(backend: str) -> None:
    for _, command in commands(replica(all2all=backend)):
        assert {k: v for k, v in command.env.items() if k.startswith("NVSHMEM_")} == {
            "NVSHMEM_HCA_LIST": "mlx5_0:1,mlx5_1:1",
            "NVSHMEM_IB_ENABLE_IBGDA": "1",
            "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME": "eth0",
        }
        assert command.why["NVSHMEM_HCA_LIST"].startswith(f"SGLang's {backend} all-to-all: ")


def test_a_backend_without_nvshmem_gets_none() -> None:
    for backend in ("deepep_v2", "mooncake", ""):
        for _, command in commands(replica(all2all=backend)):
            assert not [k for k in command.env if k.startswith("NVSHMEM_")], backend
    for _, command in commands(replica(expert_parallel=False, all2all="")):
        assert not [k for k in command.env if k.startswith("NVSHMEM_")]
