"""What makes a profile unable to start on the configured vLLM: refused before anything is launched."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from enginekit import GPUInfo, Profile
from enginekit.checks import require_compute_capability

from enginekit_vllm.argpolicy import arg_problems, quantization
from enginekit_vllm.config import VllmConfig
from enginekit_vllm.versions import (
    GPU_FLOOR,
    NATIVE_MULTINODE_SINCE,
    QUANT_FLOORS,
    REMOVED_QUANTIZATIONS,
    mig_problem,
    newest_at_or_below,
    shown,
)

#: nvidia-smi names a MIG instance after its profile: "NVIDIA A100-SXM4-40GB MIG 3g.20gb".
_MIG_NAME = re.compile(r"\bMIG\b")


def profile_problems(config: VllmConfig, profile: Profile, gpus: Sequence[GPUInfo]) -> list[str]:
    """Every engine-specific reason ``profile`` cannot run under ``config`` on ``gpus``."""
    prefix = f"profile {profile.name!r}: "
    problems = arg_problems(profile.name, profile.args, config.allow_args, model_path=profile.model_path)
    problems += [prefix + p for p in _own_problems(config, profile, gpus)]
    problems += _capability_problems(config, profile, gpus)
    return problems


def _own_problems(config: VllmConfig, profile: Profile, gpus: Sequence[GPUInfo]) -> Iterator[str]:
    release = config.release
    if profile.served_model_name.startswith("-"):
        yield (
            f"served_model_name {profile.served_model_name!r} starts with '-', where vLLM's "
            f"parser reads a flag; choose a name that starts with a letter or digit"
        )
    if profile.node_count > 1 and config.multinode == "native" and release < NATIVE_MULTINODE_SINCE:
        yield (
            f"nodes = {profile.node_count} needs multi-node serving, and the node config's "
            f'engines.vllm.multinode = "native" needs vLLM {shown(NATIVE_MULTINODE_SINCE)} or newer '
            f"(--nnodes, --node-rank, --master-addr and --master-port arrived then), but "
            f'engines.vllm.version is {config.version!r}: set engines.vllm.multinode = "ray", '
            f"or upgrade vLLM"
        )
    method = quantization(profile.args)
    removed = REMOVED_QUANTIZATIONS.get(method)
    if removed is not None and release >= removed[1]:
        yield (
            f"args: --quantization {method} is not a method of vLLM {config.version} (last seen "
            f"in {shown(removed[0])}, gone by {shown(removed[1])}): choose a method this release "
            f"has, or set engines.vllm.version to the release the node really runs"
        )
    mig = [gpu for gpu in gpus if _MIG_NAME.search(gpu.name)]
    why = mig_problem(release)
    if mig and why is not None:
        yield (
            f"GPU {mig[0].index} ({mig[0].name}) is a MIG instance, and {why}: place this "
            f"profile on whole GPUs"
        )


def _capability_problems(config: VllmConfig, profile: Profile, gpus: Sequence[GPUInfo]) -> list[str]:
    release = config.release
    problems: list[str] = []
    floor_release = newest_at_or_below(GPU_FLOOR, release)
    if release >= floor_release:
        problems += require_compute_capability(
            profile, gpus, GPU_FLOOR[floor_release], f"vLLM {config.version}"
        )
    if problems:
        return [p + "; place the profile on newer GPUs" for p in problems]
    method = quantization(profile.args)
    table_release = newest_at_or_below(QUANT_FLOORS, release)
    floor = QUANT_FLOORS[table_release].get(method)
    if floor is None:
        return []
    why = f"args: --quantization {method} in vLLM {config.version}"
    if table_release != release:
        why += f" (floor as read from vLLM {shown(table_release)}, the nearest release read)"
    return [
        p + "; place the profile on newer GPUs or choose another quantization"
        for p in require_compute_capability(profile, gpus, floor, why)
    ]
