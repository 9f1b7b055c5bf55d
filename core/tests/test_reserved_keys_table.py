"""Every reserved env key, with the reason no profile may set it: removing one fails a row that says what was lost.

Reserved keys are derived from the shard spec (which GPUs, which NIC, which rendezvous)
or carry a secret enginekit hands over itself. This file holds its OWN copy of the list:
a test iterating ``envpolicy.RESERVED`` cannot notice an entry disappearing from it.
Nothing a site writes opens a reserved key, so each row also checks that ``allow`` and
``allow_prefixes`` leave it closed.

These are the engine-neutral keys. The names one engine generates or reads its key from
are declared in that engine's ``policy()`` (``reserved_env``, ``secret_env``) and pinned
in the plugin's own tests; test_engine_env_policy.py pins how the core applies them.

Reserving a new key? Add its row here, with its reason: the completeness test fails
until you do.
"""

from __future__ import annotations

import pytest
from enginekit import Profile, ShardSpec
from enginekit.placement.env import placement_env
from enginekit.policy.env import RESERVED, RESERVED_PREFIXES, EnvPolicy

VERDICT = (True, "reserved: derived from the shard spec")

_GPUS = "placement's GPUs: any other value lets the shard take a card another shard holds"
_NIC = "placement's fabric: another interface reaches a fabric where the peers are unreachable, and the job hangs"
_RANK = "the process's place in its group: a wrong one joins as another rank or another group"
_RENDEZVOUS = (
    "the rendezvous placement chose: another one joins the ranks to a host the profile's author picks"
)
_API_KEY = "the API key comes from the shard spec's api_key only: a profile value would replace or publish it"
_PROCESS = "the process environment enginekit or the operator's unit sets up for the engine"

#: (key, why a profile may not set it)
RESERVED_ROWS: tuple[tuple[str, str], ...] = (
    ("CUDA_VISIBLE_DEVICES", _GPUS),
    (
        "CUDA_DEVICE_ORDER",
        "PCI bus order makes placement's indices (nvidia-smi's) mean the same cards to CUDA",
    ),
    ("NVIDIA_VISIBLE_DEVICES", "the container runtime exposes the GPUs it names: " + _GPUS),
    ("NVIDIA_DRIVER_CAPABILITIES", "the container runtime mounts the driver capabilities it names"),
    ("HIP_VISIBLE_DEVICES", "ROCm's CUDA_VISIBLE_DEVICES: " + _GPUS),
    ("ROCR_VISIBLE_DEVICES", "ROCm's runtime device list: " + _GPUS),
    ("NCCL_SOCKET_IFNAME", "bootstrap on the management interface: " + _NIC),
    ("NCCL_IB_HCA", "only the chosen fabric's adapters: " + _NIC),
    ("NCCL_OOB_NET_IFNAME", "NCCL's out-of-band interface: " + _NIC),
    ("GLOO_SOCKET_IFNAME", "Gloo's bootstrap interface: " + _NIC),
    ("NCCL_IB_GID_INDEX", "the routable RoCE v2 GID placement found: another entry hangs the job"),
    ("UCX_NET_DEVICES", "UCX's devices: " + _NIC),
    ("UCX_IB_GID_INDEX", "UCX's RoCE GID entry: the routable RoCE v2 one placement found"),
    ("MASTER_ADDR", "torch.distributed's rendezvous host: " + _RENDEZVOUS),
    ("MASTER_PORT", "torch.distributed's rendezvous port: " + _RENDEZVOUS),
    ("RANK", _RANK),
    ("WORLD_SIZE", _RANK),
    ("LOCAL_RANK", _RANK),
    ("LOCAL_WORLD_SIZE", _RANK),
    ("PATH", "which program runs for every name the engine, its compilers and its shells exec"),
    ("HOME", "where tools read dotfiles and caches (~/.netrc, ~/.cache/huggingface, ~/.triton)"),
    ("USER", "the identity tools and caches key on: " + _PROCESS),
    ("LOGNAME", "the identity tools and caches key on: " + _PROCESS),
    ("SHELL", "the program tools run as a shell"),
    ("TMPDIR", "where temporary files and JIT builds, later loaded as code, are written"),
    ("XDG_CACHE_HOME", "where caches, compiled kernels included, are read from"),
    ("XDG_CONFIG_HOME", "where tools read their configuration"),
    ("XDG_RUNTIME_DIR", "where sockets of the node's services are found"),
)

#: (prefix, an example under it, why)
RESERVED_PREFIX_ROWS: tuple[tuple[str, str, str], ...] = (
    ("ENGINEKIT_", "ENGINEKIT_API_KEY", "enginekit's launchers take the API key from it: " + _API_KEY),
    ("ENGINEKIT_", "ENGINEKIT_SECRET_FD", "enginekit's own channel to its launchers"),
)


def _policies(key: str) -> list[tuple[str, EnvPolicy]]:
    return [
        ("the default policy", EnvPolicy()),
        ("a site allowing it by name", EnvPolicy(allow={key})),
        ("a site opening its namespace", EnvPolicy(allow_prefixes=(key[:3],))),
    ]


@pytest.mark.parametrize(("key", "reason"), RESERVED_ROWS, ids=[row[0] for row in RESERVED_ROWS])
def test_every_reserved_key_is_refused_whatever_the_site_allows(key: str, reason: str) -> None:
    for spelling in (key, key.lower()):
        for policy_name, policy in _policies(key):
            verdict = policy.unsafe_env(spelling)
            assert verdict == VERDICT, (
                f"{spelling} is no longer reserved under {policy_name} ({reason}); it is now judged {verdict}"
            )


@pytest.mark.parametrize(
    ("prefix", "example", "reason"), RESERVED_PREFIX_ROWS, ids=[row[1] for row in RESERVED_PREFIX_ROWS]
)
def test_every_reserved_prefix_is_refused_whatever_the_site_allows(
    prefix: str, example: str, reason: str
) -> None:
    assert example.startswith(prefix)
    for spelling in (example, example.lower()):
        for policy_name, policy in _policies(example):
            verdict = policy.unsafe_env(spelling)
            assert verdict == VERDICT, (
                f"{spelling} (under {prefix}*) is no longer reserved under {policy_name} ({reason}); "
                f"it is now judged {verdict}"
            )


@pytest.mark.parametrize(("key", "reason"), RESERVED_ROWS, ids=[row[0] for row in RESERVED_ROWS])
def test_a_profile_value_for_a_reserved_key_is_dropped_at_launch(key: str, reason: str) -> None:
    # The second line of defence: whatever validated the profile, the env built for the
    # root process never takes a reserved key from it.
    policy = EnvPolicy(allow={key})
    assert (key, VERDICT[1]) in policy.problems({key: "x"}), f"{key} would reach the engine: {reason}"


def test_every_reserved_key_has_a_row_with_its_reason_here() -> None:
    mine = {row[0] for row in RESERVED_ROWS}
    missing = sorted(set(RESERVED) - mine) + sorted(
        f"{p}*" for p in set(RESERVED_PREFIXES) - {row[0] for row in RESERVED_PREFIX_ROWS}
    )
    assert not missing, f"reserved keys without a row (and a reason) in this file: {missing}"


#: What placement generates that a profile may still tune, and why that is safe.
TUNABLE_PLACEMENT_KEYS = {
    "NCCL_IB_DISABLE": "forcing sockets on a fabric is slow, never unsafe",
    "NCCL_MNNVL_ENABLE": "the per-cluster escape hatch for multi-node NVLink",
    "NCCL_CUMEM_ENABLE": "the per-cluster escape hatch for multi-node NVLink",
}


def test_everything_placement_derives_is_reserved_or_deliberately_tunable() -> None:
    # A new placement variable that is neither would be silently overridable by profiles.
    spec = ShardSpec(
        rank=0,
        nnodes=2,
        leader_addr="10.0.0.1",
        leader_port=29500,
        gpu_indices=(0, 1),
        hcas=("mlx5_0:1",),
        gid_index=3,
        mgmt_interface="eth0",
        fabric="nvl:rack-1",
        http_port=8000,
        profile=Profile(name="p", engine="x", tp=2, gpus_per_node=2, nodes=2, model_path="/m"),
    )
    for key in placement_env(spec).env:
        assert key in TUNABLE_PLACEMENT_KEYS or EnvPolicy().unsafe_env(key) == VERDICT, (
            f"placement sets {key}, which a profile could override: reserve it or say why it is tunable"
        )
