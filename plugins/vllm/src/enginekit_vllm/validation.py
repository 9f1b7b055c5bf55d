"""What makes a profile unable to start on the configured vLLM: refused before anything is launched."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from enginekit.plugin import GPUInfo, ParsedArgs, Profile, require_compute_capability

from enginekit_vllm.argpolicy import arg_problems, quantization
from enginekit_vllm.config import VllmConfig
from enginekit_vllm.versions import NATIVE_MULTINODE_SINCE

#: nvidia-smi names a MIG instance after its profile: "NVIDIA A100-SXM4-40GB MIG 3g.20gb".
_MIG_NAME = re.compile(r"\bMIG\b")


def profile_problems(
    config: VllmConfig, profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs
) -> list[str]:
    """Every engine-specific reason ``profile`` cannot run under ``config`` on ``gpus``.

    :param args: ``profile.args`` as the core read them with the policy's syntax; the flags
        the policy refuses outright are the core's to report, not repeated here.
    """
    prefix = f"profile {profile.name!r}: "
    method = quantization(args)
    problems = arg_problems(
        profile.name, args, config.allow_args, model_path=profile.model_path, options=config.options
    )
    problems += [prefix + p for p in _own_problems(config, profile, gpus, method)]
    problems += _capability_problems(config, profile, gpus, method)
    return problems


def _own_problems(
    config: VllmConfig, profile: Profile, gpus: Sequence[GPUInfo], method: str
) -> Iterator[str]:
    facts = config.facts
    if profile.served_model_name.startswith("-"):
        yield (
            f"served_model_name {profile.served_model_name!r} starts with '-', where vLLM's "
            f"parser reads a flag; choose a name that starts with a letter or digit"
        )
    if (
        profile.node_count > 1
        and profile.data_parallel == 1
        and config.multinode == "native"
        and not facts.native_multinode
    ):
        yield (
            f"nodes = {profile.node_count} needs multi-node serving, and the node config's "
            f'engines.vllm.multinode = "native" needs vLLM {NATIVE_MULTINODE_SINCE} or newer '
            f"(--nnodes, --node-rank, --master-addr and --master-port arrived then), but "
            f'engines.vllm.version is {str(config.release)!r}: set engines.vllm.multinode = "ray", '
            f"or upgrade vLLM"
        )
    removed = facts.removed.get(method)
    if removed is not None:
        yield (
            f"args: --quantization {method} is not a method of vLLM {config.release} (last seen "
            f"in {removed[0]}, gone by {removed[1]}): choose a method this release "
            f"has, or set engines.vllm.version to the release the node really runs"
        )
    mig = [gpu for gpu in gpus if _MIG_NAME.search(gpu.name)]
    why = facts.mig_problem
    if mig and why is not None:
        yield (
            f"GPU {mig[0].index} ({mig[0].name}) is a MIG instance, and {why}: place this "
            f"profile on whole GPUs"
        )


def _capability_problems(
    config: VllmConfig, profile: Profile, gpus: Sequence[GPUInfo], method: str
) -> list[str]:
    facts = config.facts
    problems: list[str] = []
    if facts.gpu_floor is not None:
        problems += require_compute_capability(profile, gpus, facts.gpu_floor, f"vLLM {config.release}")
    if problems:
        return [p + "; place the profile on newer GPUs" for p in problems]
    floor = facts.quant_floors.get(method)
    if floor is None:
        return []
    why = f"args: --quantization {method} in vLLM {config.release}"
    if facts.quant_read != facts.release:
        why += f" (floor as read from vLLM {facts.quant_read}, the nearest release read)"
    return [
        p + "; place the profile on newer GPUs or choose another quantization"
        for p in require_compute_capability(profile, gpus, floor, why)
    ]
