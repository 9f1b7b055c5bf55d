"""SGLang's prefill and decode instances: the mode, transfer backend, bootstrap port and devices from the role."""

from __future__ import annotations

import attrs
import pytest
from enginekit import Profile, ShardSpec
from enginekit.plugin import TRANSFER_LEADER, EngineError
from enginekit.testing import engine_for
from enginekit_sglang import SglangConfig, SglangEngine


def engine():  # type: ignore[no-untyped-def]
    return engine_for(SglangEngine(SglangConfig()), "sglang")


def shard(role: str, **fields: object) -> ShardSpec:
    profile = Profile(name="p", engine="sglang", tp=2, model_path="/models/m")
    base = ShardSpec(
        shard_id=f"{role}-0",
        profile=profile,
        gpu_indices=(0, 1),
        http_port=30000,
        bind_addr="10.1.0.17",
        role=role,
        kv_transfer_port=8998 if role == "prefill" else 0,
    )
    return attrs.evolve(base, **fields)


def args(spec: ShardSpec) -> list[str]:
    (command,) = engine().commands(spec)
    return list(command.args[3:])  # after the launcher's -I -c CODE


def test_a_prefill_runs_the_bootstrap_server_on_its_laid_out_port_over_the_placements_devices() -> None:
    told = args(shard("prefill", hcas=("mlx5_0:1", "mlx5_1:1", "mlx5_0:2")))
    at = told.index("--disaggregation-mode")
    assert told[at:] == [
        "--disaggregation-mode", "prefill",
        "--disaggregation-transfer-backend", "mooncake",
        "--disaggregation-bootstrap-port", "8998",
        "--disaggregation-ib-device", "mlx5_0,mlx5_1",
    ]  # fmt: skip


def test_a_decode_listens_on_no_bootstrap_port_and_takes_the_connector_named() -> None:
    told = args(shard("decode", kv_connector="nixl"))
    at = told.index("--disaggregation-mode")
    assert told[at:] == ["--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "nixl"]
    process = engine().layout(shard("decode", kv_connector="nixl"))
    assert [x.name for x in process.listens] == ["http"]


def test_the_layout_has_the_bootstrap_server_on_the_prefills_first_process_only() -> None:
    rules = engine().layout_rules
    assert rules.kv_transfer is not None
    assert rules.kv_transfer.scope == TRANSFER_LEADER
    assert rules.kv_transfer.roles == frozenset({"prefill"})
    process = engine().layout(shard("prefill"))
    assert [(x.name, x.port, x.count) for x in process.listens] == [
        ("http", 30000, 1),
        ("kv-transfer", 8998, 1),
    ]


@pytest.mark.parametrize(
    "given",
    [
        ("--disaggregation-mode", "prefill"),
        ("--disaggregation-bootstrap-port=9999",),
        ("--disaggregation-transfer-backend", "nixl"),
        ("--disaggregation-ib-device", "mlx5_3"),
    ],
)
def test_a_role_refuses_the_profiles_own_disaggregation_flags_naming_the_fields(
    given: tuple[str, ...],
) -> None:
    profile = Profile(name="p", engine="sglang", tp=2, model_path="/models/m", args=given)
    with pytest.raises(
        EngineError, match=r"args: --disaggregation-[a-z-]+ is set from the shard's role \('prefill'\)"
    ):
        engine().commands(shard("prefill", profile=profile))


def test_a_backend_enginekit_does_not_configure_and_a_prefill_without_its_port_are_refused() -> None:
    with pytest.raises(
        EngineError, match="kv_connector: enginekit configures SGLang's mooncake or nixl transfer backend"
    ):
        engine().commands(shard("decode", kv_connector="mori"))
    with pytest.raises(
        EngineError, match="kv_transfer_port: a prefill instance's bootstrap server needs its port"
    ):
        engine().commands(shard("prefill", kv_transfer_port=0))


def test_an_aggregated_shard_is_told_nothing_of_it() -> None:
    told = args(shard("aggregated", kv_transfer_port=0))
    assert not any(arg.startswith("--disaggregation") for arg in told)


def test_an_unnamed_shard_is_named_so_in_a_refusal() -> None:
    with pytest.raises(EngineError, match=r"^shard \(unnamed\): kv_connector: enginekit configures SGLang's"):
        engine().commands(shard("decode", shard_id="", kv_connector="mori"))
