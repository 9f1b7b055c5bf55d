"""vLLM's prefill and decode instances: NIXL's settings from the role, the release and the placement."""

from __future__ import annotations

import json

import pytest
from enginekit.plugin import TRANSFER_RANK, TRANSFER_TP_RANK, EngineError
from enginekit.testing import engine_for
from enginekit_vllm import VllmConfig, VllmEngine
from enginekit_vllm.disaggregated import kv_transfer_ports, transfer_problem
from enginekit_vllm.versions import vllm_release
from vllm_specs import profile, single


def plan(release: str, **fields: object):  # type: ignore[no-untyped-def]
    return engine_for(VllmEngine(VllmConfig(version=release)), "vllm").plan(single(**fields))


def transfer_config(args: tuple[str, ...]) -> dict[str, object]:
    (at,) = [i for i, arg in enumerate(args) if arg == "--kv-transfer-config"]
    return json.loads(args[at + 1])  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("release", "role", "expected"),
    [
        # From 0.24.0 kv_both warns as deprecated for NIXL: prefill produces, decode consumes.
        (
            "0.34.0",
            "prefill",
            {"kv_connector": "NixlConnector", "kv_role": "kv_producer", "kv_load_failure_policy": "fail"},
        ),
        (
            "0.24.0",
            "decode",
            {"kv_connector": "NixlConnector", "kv_role": "kv_consumer", "kv_load_failure_policy": "fail"},
        ),
        # kv_load_failure_policy from 0.13.0, recompute by default until 0.17.0: said as fail.
        (
            "0.23.0",
            "decode",
            {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_load_failure_policy": "fail"},
        ),
        (
            "0.13.0",
            "prefill",
            {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_load_failure_policy": "fail"},
        ),
        ("0.12.0", "prefill", {"kv_connector": "NixlConnector", "kv_role": "kv_both"}),
    ],
)
def test_the_transfer_config_is_the_roles_in_the_releases_words(
    release: str, role: str, expected: object
) -> None:
    command = plan(release, role=role, kv_transfer_port=5600).commands[-1]
    assert transfer_config(command.args) == expected
    assert command.env["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "10.0.0.11"  # the shard's own address
    assert command.env["VLLM_NIXL_SIDE_CHANNEL_PORT"] == "5600"
    assert "--kv-transfer-config" in command.why or "VLLM_NIXL_SIDE_CHANNEL_PORT" in command.why


def test_an_aggregated_shard_gets_no_transfer_settings_and_may_give_its_own_connector() -> None:
    command = plan("0.34.0").commands[-1]
    assert "--kv-transfer-config" not in command.args
    assert not any(name.startswith("VLLM_NIXL") for name in command.env)
    offload = '{"kv_connector":"OffloadingConnector","kv_role":"kv_both"}'
    own = plan("0.34.0", profile=profile(args=("--kv-transfer-config", offload))).commands[-1]
    assert own.args[-1] == offload


@pytest.mark.parametrize(
    "spelled", [("--kv-transfer-config", "{}"), ("--kv-transfer-config={}",), ("--kv_transfer_config", "{}")]
)
def test_a_role_refuses_the_profiles_own_transfer_config_naming_the_fields_to_use(
    spelled: tuple[str, ...],
) -> None:
    with pytest.raises(
        EngineError,
        match=r"args: --kv-transfer-config is set from the shard's role \('prefill'\) and kv_connector",
    ):
        plan("0.34.0", role="prefill", kv_transfer_port=5600, profile=profile(args=spelled))


def test_a_connector_enginekit_does_not_configure_is_refused_naming_the_one_it_does() -> None:
    with pytest.raises(
        EngineError,
        match="kv_connector: enginekit configures vLLM's nixl connector for a decode instance, not 'mooncake'",
    ):
        plan("0.34.0", role="decode", kv_connector="mooncake", kv_transfer_port=5600)


def test_a_release_before_nixl_is_refused_naming_the_first_with_it() -> None:
    problem = transfer_problem(single(role="prefill"), vllm_release("0.8.5"))
    assert problem is not None
    assert "vLLM 0.8.5 has no NixlConnector (from 0.9.0)" in problem
    assert transfer_problem(single(role="prefill"), vllm_release("0.9.0")) is None


def test_the_side_channel_ports_are_one_per_engine_from_0_11_1_and_one_per_worker_before() -> None:
    assert kv_transfer_ports(vllm_release("0.11.0")).scope == TRANSFER_TP_RANK
    assert kv_transfer_ports(vllm_release("0.11.1")).scope == TRANSFER_RANK
    for release, count in (("0.11.0", 8), ("0.34.0", 1)):
        engine = engine_for(VllmEngine(VllmConfig(version=release)), "vllm")
        process = engine.layout(single(role="decode", kv_transfer_port=5600))
        assert [(x.port, x.count) for x in process.listens if x.name == "kv-transfer"] == [(5600, count)]


def test_a_shard_without_an_address_of_its_own_is_refused_and_loopback_is_one() -> None:
    engine = engine_for(VllmEngine(VllmConfig(version="0.34.0")), "vllm")
    problems = engine.problems(single(role="prefill", kv_transfer_port=5600, bind_addr=""))
    assert any(
        "bind_addr: a prefill shard is reached by the other instances at its own address" in p
        for p in problems
    )
    command = plan("0.34.0", role="prefill", kv_transfer_port=5600, bind_addr="127.0.0.1").commands[-1]
    assert command.env["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "127.0.0.1"


def test_ucx_takes_the_placements_hcas_and_on_roce_its_gid_index() -> None:
    command = plan("0.34.0", role="decode", kv_transfer_port=5600, hcas=("mlx5_0", "mlx5_1:2"), gid_index=3)
    assert command.commands[-1].env["UCX_NET_DEVICES"] == "mlx5_0:1,mlx5_1:2"
    assert command.commands[-1].env["UCX_IB_GID_INDEX"] == "3"
    infiniband = plan("0.34.0", role="decode", kv_transfer_port=5600, hcas=("mlx5_0",)).commands[-1]
    assert "UCX_IB_GID_INDEX" not in infiniband.env
    # An aggregated shard's UCX is left as it was.
    assert "UCX_NET_DEVICES" not in plan("0.34.0", hcas=("mlx5_0",)).commands[-1].env


def test_the_transfer_config_is_compact_json_and_each_variable_says_why() -> None:
    command = plan("0.34.0", role="prefill", kv_transfer_port=5600).commands[-1]
    at = command.args.index("--kv-transfer-config")
    assert command.args[at + 1] == (
        '{"kv_connector":"NixlConnector","kv_role":"kv_producer","kv_load_failure_policy":"fail"}'
    )
    assert command.why["VLLM_NIXL_SIDE_CHANNEL_HOST"] == (
        "where the other instances' workers reach this one's NIXL side channel: the node's own address "
        "(vLLM's default, localhost, reaches no other host)"
    )
    assert command.why["VLLM_NIXL_SIDE_CHANNEL_PORT"] == (
        "the side channel's base port, from the layout: vLLM derives each engine core's from it (base plus "
        "its data-parallel rank; before 0.11.1 each worker's, plus its rank times the tensor-parallel size "
        "and its tensor-parallel rank), and the layout the same, so no two instances on a node take one port"
    )


def test_an_unnamed_shard_is_named_so_in_a_refusal() -> None:
    with pytest.raises(
        EngineError, match=r"^shard \(unnamed\): kv_connector: enginekit configures vLLM's nixl connector"
    ):
        plan("0.34.0", shard_id="", role="decode", kv_connector="mooncake", kv_transfer_port=5600)


def test_a_data_parallel_or_two_node_instance_is_told_its_role_on_every_process() -> None:
    from vllm_specs import two_node

    engine = engine_for(VllmEngine(VllmConfig(version="0.34.0")), "vllm")
    dp = profile(tp=4, dp=2, dp_per_node=2)
    spec = single(
        profile=dp, role="decode", kv_transfer_port=5600, leader_addr="10.0.0.11", leader_port=29600
    )
    (command,) = engine.commands(spec)
    assert transfer_config(command.args)["kv_role"] == "kv_consumer"
    # Native multi-node: the leader's server and the other node's headless process alike.
    for rank in (0, 1):
        shard = two_node(rank, role="prefill", kv_transfer_port=5600)
        commands = engine.commands(shard)
        assert transfer_config(commands[-1].args)["kv_role"] == "kv_producer", rank
    ray = engine_for(VllmEngine(VllmConfig(version="0.34.0", multinode="ray")), "vllm")
    assert transfer_config(ray.commands(two_node(0, role="prefill", kv_transfer_port=5600))[-1].args)[
        "kv_role"
    ] == ("kv_producer")
