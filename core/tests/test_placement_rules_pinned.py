"""Placement rules a root process on a GPU node relies on, each pinned with the reason it exists.

Every test here was written against a change that no other test noticed (issue 17's
mutation run): if one fails, the rule in its name was broken, not merely reworded.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from enginekit import Adapter, Command, ShardSpec, hookimpl
from enginekit.placement.builder import CommandBuilder
from enginekit.placement.env import (
    GENERATED,
    TUNABLE,
    DroppedVar,
    EnvBuild,
    apply_profile_env,
    nccl_env,
    placement_env,
)
from enginekit.policy.engine import EnginePolicy
from enginekit.policy.env import DEFAULT_POLICY
from enginekit.spec.model import is_mig
from enginekit.spec.rules import check_spec
from enginekit.testing import engine_for

Make = Callable[..., ShardSpec]

GPU = "GPU-4f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6"
GPU2 = "GPU-5f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6"
MIG = "MIG-4f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6"
MIG_OLD = "MIG-GPU-4f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6/1/0"


def _names_field(problems: list[str], where: str) -> bool:
    """Whether a control-character problem names ``where`` (the wording after it may change)."""
    return any(p.startswith(f"shard spec s1: {where}: contains ") for p in problems)


# --- ncclenv: the RoCE GID index ------------------------------------------------------------


@pytest.mark.parametrize("gid", [0, 1, 3])
def test_every_roce_gid_index_is_exported_index_zero_included(make_shard: Make, gid: int) -> None:
    # GID 0 is a real table entry (the first RoCE v2 GID on many hosts): leaving it out
    # makes NCCL fall back to its default, a link-local v1 GID, and the job hangs.
    env = nccl_env(make_shard(hcas=("mlx5_0:1",), gid_index=gid))
    assert env.get("NCCL_IB_GID_INDEX") == str(gid), f"GID index {gid} was not given to NCCL"


def test_infiniband_without_gid_index_leaves_nccl_default(make_shard: Make) -> None:
    assert "NCCL_IB_GID_INDEX" not in nccl_env(make_shard(hcas=("mlx5_0:1",), gid_index=None))


# --- speccheck: control characters anywhere a string reaches the engine ----------------------


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"profile_adapters": (Adapter(name="a\nb", path="/a"),)}, "profile.adapters[0].name"),
        ({"profile_adapters": (Adapter(name="a", path="/a\x00.so"),)}, "profile.adapters[0].path"),
        (
            {"profile_adapters": (Adapter(name="a", path="/a"), Adapter(name="b", path="/b\r"))},
            "profile.adapters[1].path",
        ),
        ({"profile_env": {"NCCL_ALGO": "Ring\nLD_PRELOAD=/x.so"}}, "profile.env.NCCL_ALGO"),
        ({"profile_env": {"NCCL_ALGO": "Ring\x7f"}}, "profile.env.NCCL_ALGO"),
        ({"profile_env": {"NCCL\nX": "1"}}, "profile.env.'NCCL\\nX'"),
        ({"hcas": ("mlx5_0\t",)}, "hcas[0]"),
        ({"mgmt_interface": "eth0\x1b"}, "mgmt_interface"),
        ({"profile_name": "p\n"}, "profile.name"),
        ({"replica_id": "r\x00"}, "replica_id"),
    ],
)
def test_control_characters_are_refused_in_every_string_field(
    make_shard: Make, fields: dict[str, object], where: str
) -> None:
    # A NUL ends a string early at exec, a newline splits KEY=VALUE lines in an env file
    # and forges log lines; adapters and env values reach the engine like any argument.
    problems = check_spec(make_shard(**fields))
    assert _names_field(problems, where), f"a control character in {where} was let through: {problems}"


def test_a_clean_spec_with_adapters_and_env_passes_the_control_scan(make_shard: Make) -> None:
    spec = make_shard(
        profile_adapters=(Adapter(name="sql", path="/adapters/sql"),),
        profile_env={"NCCL_ALGO": "Ring"},
    )
    assert check_spec(spec) == []


def test_the_api_key_is_never_named_by_the_control_scan(make_shard: Make) -> None:
    # The key is judged on its own (printable ASCII) and never echoed, not even its path.
    problems = check_spec(make_shard(api_key="k\x01" + "y" * 20, profile_args=("a\nb",)))
    assert not any(p.startswith("shard spec s1: api_key: contains") for p in problems)
    assert _names_field(problems, "profile.args[0]")


# --- speccheck: ports ------------------------------------------------------------------------


@pytest.mark.parametrize("port", [-1, 65536, 70000])
def test_a_single_node_leader_port_is_range_checked_when_given(make_shard: Make, port: int) -> None:
    # A single node needs no leader port, but one that is given still reaches an engine's
    # flags (--master-port) and must be a port.
    assert f"shard spec s1: leader_port: expected a port in 1-65535, got {port}" in check_spec(
        make_shard(leader_port=port)
    )


@pytest.mark.parametrize("port", [1, 29500, 65535])
def test_a_single_node_leader_port_in_range_is_accepted(make_shard: Make, port: int) -> None:
    assert check_spec(make_shard(leader_port=port)) == []


@pytest.mark.parametrize(("port", "ok"), [(0, False), (1, True), (65535, True), (65536, False)])
def test_port_range_is_inclusive_at_both_ends(make_shard: Make, port: int, ok: bool) -> None:
    problems = check_spec(make_shard(http_port=port))
    assert (problems == []) is ok, problems
    kv = check_spec(make_shard(kv_events_port=port, kv_events_mode="connect"))
    # kv_events_port 0 means "no events", so only the upper end applies to it.
    assert (kv == []) is (ok or port == 0), kv


@pytest.mark.parametrize(("port", "ok"), [(65534, True), (65535, False)])
def test_a_binding_publisher_needs_the_port_after_its_own_for_its_replay(
    make_shard: Make, port: int, ok: bool
) -> None:
    problems = check_spec(make_shard(kv_events_port=port))
    assert (problems == []) is ok, problems
    if not ok:
        assert problems == [
            "shard spec s1: kv_events_port: 65535 leaves no room for the ports a binding publisher takes "
            "up to 65536 (each data-parallel rank's, then each rank's replay endpoint): at most 65534, or "
            "kv_events_mode 'connect'"
        ]


@pytest.mark.parametrize("field", ["http_port", "leader_port"])
@pytest.mark.parametrize(
    ("mode", "port", "clash"),
    [("bind", 5558, True), ("bind", 5557, True), ("bind", 5559, False), ("connect", 5558, False)],
)
def test_a_binding_publisher_s_ports_are_the_shard_s_own(
    make_shard: Make, field: str, mode: str, port: int, clash: bool
) -> None:
    problems = check_spec(make_shard(kv_events_port=5557, kv_events_mode=mode, **{field: port}))
    expected = (
        f"shard spec s1: {field}: {port} is one of the ports the KV-event publisher binds, 5557-5558 "
        f"(kv_events_port, each data-parallel rank's, then each rank's replay endpoint)"
    )
    assert (expected in problems) is clash, problems


def test_kv_events_mode_is_bind_or_connect(make_shard: Make) -> None:
    assert check_spec(make_shard(kv_events_mode="Bind")) == [
        "shard spec s1: kv_events_mode: expected 'bind' or 'connect', got 'Bind'"
    ]


def test_multi_node_leader_port_is_required(make_shard: Make) -> None:
    spec = make_shard(nnodes=2, rank=1, leader_addr="10.0.0.1", profile_nodes=2, profile_gpus_per_node=1)
    assert "shard spec s1: leader_port: expected a port in 1-65535, got 0" in check_spec(spec)


# --- speccheck: GPU UUIDs and MIG --------------------------------------------------------------


@pytest.mark.parametrize(
    "uuid",
    [
        f"{GPU},{GPU2}",  # two devices smuggled through one entry of CUDA_VISIBLE_DEVICES
        f"{GPU},0",
        f"{GPU} ",
        f"{GPU}\n",
        f"{MIG},{GPU}",
        f"{MIG_OLD}x",
        f"x{GPU}",
        GPU[:-1],
    ],
)
def test_a_device_uuid_must_be_exactly_one_uuid(make_shard: Make, uuid: str) -> None:
    # CUDA_VISIBLE_DEVICES is a comma list: anything after the UUID names more devices
    # than placement gave the shard, or ones another shard holds.
    problems = check_spec(make_shard(gpu_indices=(0,), gpu_uuids=(uuid,)))
    assert f"shard spec s1: gpu_uuids: expected MIG-<uuid> or GPU-<uuid>, got {uuid!r}" in problems


@pytest.mark.parametrize("uuid", [GPU, "GPU-" + GPU[4:].upper(), MIG, "MIG-" + MIG[4:].upper(), MIG_OLD])
def test_well_formed_device_uuids_are_accepted(make_shard: Make, uuid: str) -> None:
    assert check_spec(make_shard(gpu_indices=(0,), gpu_uuids=(uuid,))) == []


def test_two_whole_gpus_by_uuid_are_accepted(make_shard: Make) -> None:
    assert check_spec(make_shard(gpu_indices=(0, 1), gpu_uuids=(GPU, GPU2), profile_tp=2)) == []


@pytest.mark.parametrize("tp", [2, 4])
def test_a_mig_shard_serves_a_profile_of_one_gpu_per_node_only(make_shard: Make, tp: int) -> None:
    # A MIG shard has exactly one instance; a profile needing more GPUs per node would
    # start with one and wait forever for the rest of its tensor-parallel group.
    problems = check_spec(make_shard(gpu_indices=(1000,), gpu_uuids=(MIG,), profile_tp=tp))
    assert (
        f"shard spec s1: gpu_uuids: profile 'p' needs {tp} GPUs per node, but a MIG shard has one instance"
        in problems
    )


def test_a_mig_shard_with_gpus_per_node_above_one_is_refused(make_shard: Make) -> None:
    spec = make_shard(
        gpu_indices=(1000,), gpu_uuids=(MIG,), profile_tp=2, profile_gpus_per_node=2, profile_pp=1
    )
    assert any("a MIG shard has one instance" in p for p in check_spec(spec))


def test_a_mig_shard_may_not_add_a_whole_gpu(make_shard: Make) -> None:
    # CUDA enumerates one MIG device per process and no whole GPU once a MIG one is visible.
    problems = check_spec(make_shard(gpu_indices=(1000, 0), gpu_uuids=(MIG, GPU), profile_tp=2))
    assert (
        "shard spec s1: gpu_uuids: a shard on MIG gets exactly one instance (CUDA enumerates one "
        "MIG device per process), got 2 devices"
    ) in problems


MIG_LOWER = MIG.lower()


@pytest.mark.parametrize(
    "uuid", [MIG_LOWER, "Mig-" + MIG[4:], MIG_OLD.lower(), GPU.lower(), "gpu-" + GPU[4:].upper()]
)
def test_a_device_uuid_prefix_is_read_in_either_case(make_shard: Make, uuid: str) -> None:
    # nvidia-smi prints upper case, but UUIDs get copied through lower-case systems: the
    # same device whatever the case, and a MIG instance is a MIG instance.
    assert check_spec(make_shard(gpu_indices=(0,), gpu_uuids=(uuid,))) == []
    assert make_shard(gpu_indices=(0,), gpu_uuids=(uuid,)).on_mig() is uuid.lower().startswith("mig-")


@pytest.mark.parametrize("uuid", [MIG, MIG_LOWER, "mIg-" + MIG[4:], MIG_OLD, MIG_OLD.lower()])
def test_is_mig_ignores_case_and_a_whole_gpu_is_never_one(uuid: str) -> None:
    assert is_mig(uuid)
    assert not is_mig(GPU)
    assert not is_mig(GPU.lower())
    assert not is_mig("")
    assert not is_mig("MI")


def test_a_lower_case_mig_shard_may_not_add_a_whole_gpu(make_shard: Make) -> None:
    # Read case-sensitively, a lower-case MIG instance would pass as a second whole GPU.
    spec = make_shard(gpu_indices=(1000, 0), gpu_uuids=(MIG_LOWER, GPU), profile_tp=2)
    assert spec.on_mig()
    assert (
        "shard spec s1: gpu_uuids: a shard on MIG gets exactly one instance (CUDA enumerates one "
        "MIG device per process), got 2 devices"
    ) in check_spec(spec)


def test_a_lower_case_mig_shard_serves_a_profile_of_one_gpu_per_node_only(make_shard: Make) -> None:
    problems = check_spec(make_shard(gpu_indices=(1000,), gpu_uuids=(MIG_LOWER,), profile_tp=2))
    assert (
        "shard spec s1: gpu_uuids: profile 'p' needs 2 GPUs per node, but a MIG shard has one instance"
        in problems
    )


def test_uuids_and_indices_must_name_the_same_number_of_devices(make_shard: Make) -> None:
    problems = check_spec(make_shard(gpu_indices=(0, 1), gpu_uuids=(GPU,), profile_tp=2))
    assert (
        "shard spec s1: gpu_uuids: names 1 device(s) but gpu_indices has 2; they name the same "
        "devices in the same order"
    ) in problems


# --- engine: the engine's answer wins where it should --------------------------------------------


class _Answers:
    """A fake engine that answers serves_http as told and lists devices with its own env."""

    def __init__(self, serves: bool | None, listing_env: dict[str, str] | None = None) -> None:
        self.serves = serves
        self.listing_env = listing_env or {}

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("engine", [])]

    @hookimpl
    def serves_http(self) -> bool | None:
        return self.serves

    @hookimpl
    def device_listing(self) -> Command:
        return Command(path="list-devices", env=self.listing_env, why=dict.fromkeys(self.listing_env, "own"))


@pytest.mark.parametrize(
    ("serves", "rank", "expected"),
    [
        (True, 1, True),  # an engine whose workers each serve (a router in front of every rank)
        (False, 0, False),  # an engine whose leader does not serve (a sidecar does)
        (None, 0, True),  # no answer: the leader serves
        (None, 1, False),  # no answer: a worker does not
    ],
)
def test_serves_http_follows_the_engines_answer_and_defaults_to_the_leader(
    make_shard: Make, serves: bool | None, rank: int, expected: bool
) -> None:
    # A supervisor health-checks exactly the ranks this says serve: a wrong True fails a
    # healthy replica on a port nobody listens on, a wrong False routes no traffic to it.
    spec = make_shard(
        "answers",
        rank=rank,
        nnodes=2,
        leader_addr="10.0.0.1",
        leader_port=29500,
        profile_nodes=2,
        profile_gpus_per_node=1,
        profile_pp=2,
    )
    engine = engine_for(_Answers(serves), "answers")
    assert engine.serves_http(spec) is expected
    assert engine.plan(spec).serves_http is expected


def test_device_listing_keeps_the_engines_own_variables_over_placement(make_shard: Make) -> None:
    # An engine that must see every device to report what its build can use says so in
    # its own env; placement fills in only what the engine did not set.
    spec = make_shard("answers", gpu_indices=(2, 3), profile_tp=2)
    own = {"CUDA_VISIBLE_DEVICES": "0", "MYENGINE_CUDA_ENABLE": "1"}
    listing = engine_for(_Answers(None, own), "answers").device_listing(spec)
    assert listing is not None
    assert listing.env["CUDA_VISIBLE_DEVICES"] == "0", "placement overrode the engine's own variable"
    assert listing.why["CUDA_VISIBLE_DEVICES"] == "own"
    assert listing.env["MYENGINE_CUDA_ENABLE"] == "1"
    assert listing.env["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID", "placement's variables were not added"


def test_device_listing_without_a_shard_is_the_engines_command_unchanged(make_shard: Make) -> None:
    listing = engine_for(_Answers(None, {"A": "1"}), "answers").device_listing()
    assert listing == Command(path="list-devices", env={"A": "1"}, why={"A": "own"})


def test_device_listing_with_a_shard_sees_the_shards_devices(make_shard: Make) -> None:
    listing = engine_for(_Answers(None), "answers").device_listing(
        make_shard("answers", gpu_indices=(2, 3), profile_tp=2)
    )
    assert listing is not None
    assert listing.env["CUDA_VISIBLE_DEVICES"] == "2,3"


# --- ncclenv: what an operator reads for each variable (render --explain) -----------------------

_PCI = (
    "placement's indices are nvidia-smi's, which counts by PCI bus; CUDA counts fastest "
    "first, and on a node with two kinds of GPU the shard would get another shard's card"
)
_NO_FABRIC = "no fabric (single node, or a node without one): NCCL stops looking for IB instead of timing out"
_HCA = (
    "only the chosen fabric's adapters: left unset, NCCL may pick an adapter of another "
    "fabric where the peer is unreachable, and the job hangs instead of failing"
)
_GID = (
    "RoCE: the routable RoCE v2 GID entry; NCCL's default is a link-local v1 one on "
    "most hosts, and a job on it hangs"
)
_MNNVL = (
    "inside a multi-node NVLink domain: NCCL carries collectives over NVLink "
    "between nodes only when told to, and needs cuMem (and IMEX) for it"
)
_BOOTSTRAP = (
    "bootstrap pinned to the management interface; otherwise every interface is "
    "probed, including IB-over-IP addresses that cannot route between fabrics"
)


def test_every_placement_variable_carries_its_reviewed_explanation(make_shard: Make) -> None:
    # `render --explain` shows these to the operator deciding whether a plan is right: each
    # says what goes wrong without the variable. Rewording one is a reviewed change.
    gpus = placement_env(make_shard(gpu_indices=(2, 3), profile_tp=2))
    assert gpus.why == {
        "CUDA_VISIBLE_DEVICES": "pins the shard to its GPUs, so two shards on one node cannot fight over a card",
        "CUDA_DEVICE_ORDER": _PCI,
        "NCCL_IB_DISABLE": _NO_FABRIC,
    }
    cpu = placement_env(make_shard(gpu_indices=()))
    assert cpu.env["CUDA_VISIBLE_DEVICES"] == ""
    assert cpu.why["CUDA_VISIBLE_DEVICES"] == (
        "a CPU shard: hide every GPU so the engine cannot take one another shard holds"
    )
    mig = placement_env(make_shard(gpu_indices=(1000,), gpu_uuids=(MIG,)))
    assert mig.why["CUDA_VISIBLE_DEVICES"] == (
        "pins the shard to its devices by UUID: a MIG instance has no index CUDA knows"
    )
    fabric = placement_env(
        make_shard(
            nnodes=2,
            leader_addr="10.0.0.1",
            leader_port=29500,
            profile_nodes=2,
            profile_gpus_per_node=1,
            hcas=("mlx5_0:1",),
            gid_index=3,
            mgmt_interface="eth0",
            fabric="nvl:rack-1",
        )
    )
    assert fabric.why == {
        "CUDA_VISIBLE_DEVICES": "pins the shard to its GPUs, so two shards on one node cannot fight over a card",
        "CUDA_DEVICE_ORDER": _PCI,
        "NCCL_IB_HCA": _HCA,
        "NCCL_IB_DISABLE": "the shard has a fabric: RDMA is the path",
        "NCCL_IB_GID_INDEX": _GID,
        "NCCL_MNNVL_ENABLE": _MNNVL,
        "NCCL_CUMEM_ENABLE": _MNNVL,
        "NCCL_SOCKET_IFNAME": _BOOTSTRAP,
        "GLOO_SOCKET_IFNAME": _BOOTSTRAP,
    }
    assert set(fabric.env) == set(fabric.why)


def test_whole_gpus_by_uuid_are_listed_in_order_comma_separated(make_shard: Make) -> None:
    # CUDA_VISIBLE_DEVICES is a comma list, in the order placement gave: rank i gets entry i.
    spec = make_shard(gpu_indices=(3, 1), gpu_uuids=(GPU2, GPU), profile_tp=2)
    assert nccl_env(spec)["CUDA_VISIBLE_DEVICES"] == f"{GPU2},{GPU}"


def test_a_profile_may_override_only_the_tunable_variables_an_engine_generated(make_shard: Make) -> None:
    # Anything else an engine generates is its wiring for this shard: a profile value
    # there would make the plan say one thing and the process run another.
    spec = make_shard(
        profile_env={"MYENGINE_WIRING": "profile", "NCCL_IB_DISABLE": "1", "MYENGINE_TUNING": "x"}
    )
    built = EnvBuild(
        env={"MYENGINE_WIRING": "engine", "NCCL_IB_DISABLE": "0"},
        why={"MYENGINE_WIRING": "the engine's", "NCCL_IB_DISABLE": "fabric"},
    )
    policy = DEFAULT_POLICY.for_engine(EnginePolicy(open_env="MYENGINE_"))
    result = apply_profile_env(built, spec, policy)
    assert result.env == {"MYENGINE_WIRING": "engine", "NCCL_IB_DISABLE": "1", "MYENGINE_TUNING": "x"}
    assert result.dropped == (DroppedVar("MYENGINE_WIRING", GENERATED),)
    assert GENERATED.startswith("reserved: ")
    assert {"NCCL_IB_DISABLE", "NCCL_MNNVL_ENABLE", "NCCL_CUMEM_ENABLE"} == TUNABLE


@pytest.mark.parametrize(
    ("fields", "field", "host"),
    [
        ({"bind_addr": "fd00::7"}, "bind_addr", "fd00::7"),
        ({"bind_addr": "", "leader_addr": "fd00::1"}, "leader_addr", "fd00::1"),
        ({"bind_addr": "0.0.0.0", "leader_addr": "fd00::1"}, "leader_addr", "fd00::1"),
    ],
)
def test_a_binding_publisher_never_sends_subscribers_to_an_ipv6_address(
    make_shard: Make, fields: dict[str, str], field: str, host: str
) -> None:
    problems = check_spec(make_shard(kv_events_port=5557, profile_kv_events=True, **fields))
    assert problems == [
        f"shard spec s1: {field}: {host} is an IPv6 address, where the plan's kv_events would send "
        f"subscribers, and a binding KV-event publisher listens on IPv4 only (tcp://*:5557 without "
        f"ZMQ's IPV6 option, as vLLM, SGLang and the simulator bind it): an IPv4 address or a host "
        f"name, or kv_events_mode 'connect'"
    ]
    assert (
        check_spec(
            make_shard(kv_events_port=5557, kv_events_mode="connect", profile_kv_events=True, **fields)
        )
        == []
    )
    # A profile that publishes nothing sends nobody anywhere.
    assert check_spec(make_shard(kv_events_port=5557, **fields)) == []


@pytest.mark.parametrize(
    "fields",
    [
        {"bind_addr": "10.0.0.7", "leader_addr": "fd00::1"},  # its own IPv4 address is where they go
        {"bind_addr": "::ffff:10.0.0.7"},  # dialled over IPv4
        {"bind_addr": "node-7.cluster.local"},
        # A worker node's subscribers are sent to loopback, not to the leader's address.
        {"bind_addr": "", "leader_addr": "fd00::1", "rank": 1, "nnodes": 2, "leader_port": 29500},
    ],
)
def test_a_binding_publisher_may_sit_beside_an_ipv6_address_it_does_not_send_subscribers_to(
    make_shard: Make, fields: dict[str, object]
) -> None:
    extra = {"profile_nodes": 2, "profile_gpus_per_node": 1} if fields.get("nnodes") == 2 else {}
    problems = check_spec(make_shard(kv_events_port=5557, profile_kv_events=True, **fields, **extra))
    assert not [p for p in problems if "IPv6" in p], problems
