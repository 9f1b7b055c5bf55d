"""What changed across vLLM releases, each fact with the releases it was read from."""

from __future__ import annotations

from collections.abc import Mapping

import attrs
from enginekit.plugin import Version, newest_at_or_below, parse_version

#: The newest release this plugin was checked against: the node config's default.
NEWEST = "0.34.0"


def vllm_release(text: str) -> Version:
    """A final vLLM release: every fact below is keyed by one, and a pre-release's place is a guess."""
    return parse_version(text, final_only=True)


#: ``--nnodes``, ``--node-rank``, ``--master-addr``, ``--master-port``: absent from 0.11.0's
#: ``engine/arg_utils.py``, present in 0.11.1 (vLLM PR #23691).
NATIVE_MULTINODE_SINCE: Version = vllm_release("0.11.1")

#: 0.23.0's ``Platform.device_id_to_physical_device_id`` calls ``int()`` on every
#: ``CUDA_VISIBLE_DEVICES`` entry (read in the 0.23.0 wheel); 0.24.0 resolves a non-integer
#: entry through NVML (club-3090#750 compared 0.22.0, 0.24.0 and 0.25.1; 0.34.0 read).
UUID_DEVICES_SINCE: Version = vllm_release("0.24.0")

#: From 0.15.0 vLLM's CPU communicator moves a MoE layer's tokens between data-parallel ranks
#: with the all-gather/reduce-scatter manager (``CpuCommunicator``, ``AgRsAll2AllManager``),
#: whose dispatch calls ``all_gatherv``, which the CPU communicator does not have: the base
#: class raises NotImplementedError (``distributed/device_communicators/``, 0.15.0-0.34.0
#: read). Seen on 0.32.0's CPU build at start, with and without --enable-expert-parallel.
CPU_MOE_DATA_PARALLEL_FAILS_SINCE: Version = vllm_release("0.15.0")

#: vLLM release that makes a MIG instance work; None while none does (see ``mig_problem``).
MIG_WORKS_SINCE: Version | None = None

#: ``vllm serve --help`` lists config groups only; ``--help=all`` lists every flag. The
#: grouped help exists in 0.11.0 and 0.34.0; older releases list all.
HELP_ALL_SINCE: Version = vllm_release("0.11.0")

#: The paths the API key guards, read from every release's wheel: ``GUARDED_PREFIX`` in
#: ``entrypoints/serve/middleware/authenticate.py`` (0.29.0 on) or
#: ``entrypoints/serve/utils/server_utils.py`` (0.22.0 to 0.28.0); before 0.22.0 the
#: middleware in ``entrypoints/openai/api_server.py`` tests ``startswith("/v1")`` only.
#: ``/cohere`` is absent from 0.26.0 and present from 0.27.0.
GUARDED_PREFIXES: Mapping[Version, tuple[str, ...]] = {
    vllm_release("0.27.0"): ("/v1", "/v2", "/inference", "/cohere"),
    vllm_release("0.22.0"): ("/v1", "/v2", "/inference"),
    vllm_release("0.11.0"): ("/v1",),
}

#: The compute capability vLLM's CUDA builds need at all ("compute capability 7.5 or
#: higher", 0.34.0 ``docs/getting_started/installation/gpu.cuda.inc.md``).
GPU_FLOOR: Mapping[Version, float] = {vllm_release("0.34.0"): 7.5}

#: ``get_min_capability()`` of each ``--quantization`` method's config class, which vLLM
#: checks before loading (``config/vllm.py``). 0.34.0 and 0.23.0: read from the wheels
#: (``model_executor/layers/quantization/``); 0.11.1: its source at that tag.
QUANT_FLOORS: Mapping[Version, Mapping[str, float]] = {
    vllm_release("0.34.0"): {
        "awq": 7.5, "awq_marlin": 7.5, "auto_awq": 7.5, "fp8": 7.5, "w4afp8": 7.5,
        "fbgemm_fp8": 8.0, "modelopt": 8.0, "modelopt_fp4": 7.5, "modelopt_mxfp8": 8.0,
        "modelopt_mixed": 7.5, "mxfp8": 8.0, "auto_gptq": 6.0, "gptq": 6.0, "gptq_marlin": 6.0,
        "compressed-tensors": 7.0, "experts_int8": 8.0, "quark": 7.0, "moe_wna16": 7.0,
        "torchao": 7.5, "inc": 6.0, "mxfp4": 8.0, "gpt_oss_mxfp4": 8.0, "humming": 7.5,
        "online": 7.5,
    },
    vllm_release("0.23.0"): {
        "awq": 7.5, "awq_marlin": 7.5, "fp8": 7.5, "fbgemm_fp8": 8.0, "fp_quant": 10.0,
        "modelopt": 8.9, "modelopt_fp4": 7.5, "modelopt_mxfp8": 8.0, "modelopt_mixed": 8.9,
        "gguf": 6.0, "auto_gptq": 6.0, "gptq": 6.0, "gptq_marlin": 6.0, "compressed-tensors": 7.0,
        "bitsandbytes": 7.0, "experts_int8": 8.0, "moe_wna16": 7.0, "torchao": 7.5,
        "auto-round": 6.0, "inc": 6.0, "mxfp4": 8.0, "gpt_oss_mxfp4": 8.0, "humming": 7.5,
        "online": 7.5,
    },
    vllm_release("0.11.1"): {
        "fp8": 8.0, "awq": 7.5, "awq_marlin": 8.0, "gptq": 6.0, "gptq_marlin": 8.0,
        "bitsandbytes": 7.0, "gguf": 6.0, "modelopt": 8.9, "modelopt_fp4": 8.0, "mxfp4": 8.0,
        "compressed-tensors": 7.0,
    },
}  # fmt: skip

#: Methods a release no longer has: method -> (last release read that has it, first
#: release read that does not). Diffed from the 0.23.0 and 0.34.0 wheels and the sources
#: of 0.11.1, 0.19.1 and 0.27.1. Between the two the exact release is unknown, and the
#: method is let through: vLLM refuses it clearly at start-up.
REMOVED_QUANTIZATIONS: Mapping[str, tuple[Version, Version]] = {
    "gguf": (vllm_release("0.23.0"), vllm_release("0.27.1")),
    "bitsandbytes": (vllm_release("0.27.1"), vllm_release("0.34.0")),
    "fp_quant": (vllm_release("0.23.0"), vllm_release("0.34.0")),
    "auto-round": (vllm_release("0.23.0"), vllm_release("0.34.0")),
    "cpu_awq": (vllm_release("0.19.1"), vllm_release("0.23.0")),
    **dict.fromkeys(
        (
            "deepspeedfp", "tpu_int8", "ptpc_fp8", "bitblas", "gptq_marlin_24", "gptq_bitblas",
            "hqq", "ipex", "rtn", "petit_nvfp4",
        ),
        (vllm_release("0.11.1"), vllm_release("0.23.0")),
    ),
}  # fmt: skip


def mig_problem(version: Version) -> str | None:
    """Why this vLLM cannot run on a MIG instance, or None when it can."""
    if MIG_WORKS_SINCE is not None and version >= MIG_WORKS_SINCE:
        return None
    if version < UUID_DEVICES_SINCE:
        return (
            f"vLLM {version} reads every CUDA_VISIBLE_DEVICES entry with int() and stops "
            f"at start-up on a MIG-... UUID (ValueError; vllm-project/vllm#6551, #41848)"
        )
    return (
        f"vLLM {version} resolves a UUID in CUDA_VISIBLE_DEVICES with NVML and keeps "
        f"nvmlDeviceGetIndex() of the handle, which for a MIG instance is its index among its "
        f"parent GPU's instances; it then reads compute capability, name and memory of "
        f"whichever whole GPU has that index, or fails when none has, so a MIG shard would "
        f"start only by accident"
    )


@attrs.frozen
class ReleaseFacts:
    """What the tables above say about one release, looked up once per config rather than per plan.

    :ivar release: The configured release.
    :ivar native_multinode: vLLM's own multi-node flags exist (``--nnodes``…).
    :ivar uuid_devices: ``CUDA_VISIBLE_DEVICES`` may name GPUs by UUID.
    :ivar help_all: ``vllm serve --help=all`` lists every flag (plain ``--help`` does not).
    :ivar mig_problem: Why it cannot run on a MIG instance, or None when it can.
    :ivar guarded_read: The release the API key's guarded prefixes were read from.
    :ivar guarded_prefixes: The paths the API key guards.
    :ivar gpu_floor: The compute capability it needs at all, or None when none is known.
    :ivar quant_read: The release the quantization floors were read from (the nearest).
    :ivar quant_floors: Each ``--quantization`` method's minimum compute capability.
    :ivar removed: The methods it no longer has, with the releases that show it.
    """

    release: Version
    native_multinode: bool
    uuid_devices: bool
    help_all: bool
    mig_problem: str | None
    guarded_read: Version
    guarded_prefixes: tuple[str, ...]
    gpu_floor: float | None
    quant_read: Version
    quant_floors: Mapping[str, float]
    removed: Mapping[str, tuple[Version, Version]]


def facts_for(release: Version) -> ReleaseFacts:
    """The facts of ``release``: the newest row read at or below it, in each table."""
    guarded = newest_at_or_below(GUARDED_PREFIXES, release)
    floor = newest_at_or_below(GPU_FLOOR, release)
    quant = newest_at_or_below(QUANT_FLOORS, release)
    return ReleaseFacts(
        release=release,
        native_multinode=release >= NATIVE_MULTINODE_SINCE,
        uuid_devices=release >= UUID_DEVICES_SINCE,
        help_all=release >= HELP_ALL_SINCE,
        mig_problem=mig_problem(release),
        guarded_read=guarded,
        guarded_prefixes=GUARDED_PREFIXES[guarded],
        gpu_floor=GPU_FLOOR[floor] if release >= floor else None,
        quant_read=quant,
        quant_floors=QUANT_FLOORS[quant],
        removed={method: seen for method, seen in REMOVED_QUANTIZATIONS.items() if release >= seen[1]},
    )
