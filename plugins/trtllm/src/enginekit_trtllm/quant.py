"""TensorRT-LLM's quantization floors: what a profile asks for, and the GPUs each needs."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import attrs
from enginekit.plugin import GPUInfo, ParsedArgs, Profile


@attrs.frozen
class Floor:
    """The oldest GPU generation TensorRT-LLM runs one quantization on."""

    label: str
    min_cap: float
    generation: str


# From the hardware matrix in docs/source/features/quantization.md @f53fb4c8, where the
# oldest column with a "Y" sets each floor, and Model Optimizer's matrix for INT8.
_FP8 = Floor("FP8", 8.9, "Ada (compute capability 8.9) or later")
_NVFP4 = Floor("NVFP4", 10.0, "Blackwell (compute capability 10.0) or later")
_MXFP4 = Floor("MXFP4", 10.0, "Blackwell (compute capability 10.0) or later")
_W4A8 = Floor("W4A8", 8.9, "Ada (compute capability 8.9) or later")
_W4A16 = Floor("W4A16 (INT4 AWQ/GPTQ)", 8.0, "Ampere (compute capability 8.0) or later")
_INT8 = Floor("INT8 SmoothQuant", 8.0, "Ampere (compute capability 8.0) or later")

#: trtllm-serve has no ``--quantization``: a checkpoint carries its own (ModelOpt's
#: ``hf_quant_config.json``), which a pure hook cannot read. Its name usually says it
#: (``nvidia/Llama-3.3-70B-Instruct-FP4``, ``…-FP8``), so whole name tokens are read.
NAME_MARKERS: dict[str, Floor] = {
    "fp8": _FP8,
    "nvfp4": _NVFP4,
    "fp4": _NVFP4,
    "mxfp4": _MXFP4,
    "w4a8": _W4A8,
    "awq": _W4A16,
    "gptq": _W4A16,
    "w4a16": _W4A16,
    "int4": _W4A16,
    "int8": _INT8,
    "w8a8": _INT8,
}
#: Formats TensorRT-LLM does not load at all: its quantization docs list GGUF and bitsandbytes as unsupported.
UNSUPPORTED_MARKERS: dict[str, str] = {"gguf": "GGUF", "bnb": "bitsandbytes", "bitsandbytes": "bitsandbytes"}

#: ``--kv_cache_dtype`` choices and their floors (FP8 KV cache is "Y" down to Ampere).
KV_FLOORS: dict[str, Floor] = {
    "fp8": Floor("an FP8 KV cache", 8.0, "Ampere (compute capability 8.0) or later"),
    "nvfp4": Floor("an NVFP4 KV cache", 10.0, "Blackwell (compute capability 10.0) or later"),
}

_TOKEN = re.compile(r"[-_.\s]+")


def name_tokens(model_path: str) -> list[str]:
    """The lower-case tokens of the model path's last component."""
    base = model_path.rstrip("/").rsplit("/", 1)[-1].lower()
    return [t for t in _TOKEN.split(base) if t]


def quantization_problems(profile: Profile, args: ParsedArgs, gpus: Sequence[GPUInfo]) -> Iterator[str]:
    """Every quantization the profile implies that its GPUs (or TensorRT-LLM) cannot run."""
    prefix = f"profile {profile.name!r}"
    tokens = name_tokens(profile.model_path)
    for token in dict.fromkeys(tokens):
        if token in UNSUPPORTED_MARKERS:
            yield (
                f"{prefix}: model_path {profile.model_path!r} names a {UNSUPPORTED_MARKERS[token]} "
                f"checkpoint, which TensorRT-LLM does not load; use a Hugging Face or ModelOpt "
                f"checkpoint, or another engine"
            )
    floors = {NAME_MARKERS[t].label: NAME_MARKERS[t] for t in tokens if t in NAME_MARKERS}
    for floor in floors.values():
        what = f"model_path {profile.model_path!r} names a {floor.label} checkpoint"
        yield from _below(prefix, what, floor, gpus)
    kv = args.values("--kv_cache_dtype")
    if kv and kv[-1] in KV_FLOORS:
        floor = KV_FLOORS[kv[-1]]
        yield from _below(prefix, f"args: --kv_cache_dtype {kv[-1]} asks for {floor.label}", floor, gpus)


def _below(prefix: str, what: str, floor: Floor, gpus: Sequence[GPUInfo]) -> Iterator[str]:
    low = []
    for gpu in gpus:
        try:
            cap = float(gpu.compute_capability)
        except ValueError:
            continue  # unknown: let the engine say it, rather than block on a parse
        if cap < floor.min_cap:
            low.append(f"GPU {gpu.index} ({gpu.name or 'unnamed'}) has {cap:.1f}")
    if low:
        yield (
            f"{prefix}: {what}, which TensorRT-LLM runs only on {floor.generation}, but "
            f"{', '.join(low)}; place the profile on newer GPUs or use another checkpoint"
        )
