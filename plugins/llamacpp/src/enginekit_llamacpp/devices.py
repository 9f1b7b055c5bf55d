"""The seed's ``CPUFallback`` for llama.cpp: the ``--list-devices`` command and a parser for its output."""

from __future__ import annotations

import re

from enginekit.plugin import Command, CommandBuilder, EngineError, ShardSpec

#: ``common_print_available_devices`` (common/arg.cpp) prints this to stdout, then one
#: line per non-CPU device, ``  CUDA0: NVIDIA H100 80GB HBM3 (81079 MiB, 80520 MiB free)``,
#: or ``  (none)`` when the build sees none.
HEADER = "Available devices:"
NONE = "(none)"
_DEVICE = re.compile(r"  (?P<name>\S+): (?P<description>.*?)(?: \(\d+ MiB, \d+ MiB free\))?\Z")


def listing_command(executable: str, shard: ShardSpec | None = None) -> Command:
    """``llama-server --list-devices``: it prints what the build sees and exits, loading no model.

    Given the shard, it carries the shard's placement variables (its CUDA_VISIBLE_DEVICES),
    so it answers for the shard's devices; without one it answers for the whole node.
    """
    args, name = ("--list-devices",), "llama-server --list-devices"
    if shard is None:
        return Command(path=executable, args=args, name=name)
    return CommandBuilder(shard).command(executable, args, name=name)


def parse_listing(output: str) -> list[str]:
    """The devices in ``--list-devices`` output, as ``"CUDA0: NVIDIA H100 80GB HBM3"``.

    Empty when the build sees no GPU: a CPU-only build, or a GPU build that finds no usable
    card (it prints ``(none)`` too), either of which would serve from the CPU. Lines before
    the header (backend loading logs on stderr, when the streams were merged) are skipped.

    :raises EngineError: when ``output`` is not a device listing at all, so that a crash or
        a wrong program is never read as "no GPU" or as "GPUs present".
    """
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == HEADER]
    if not starts:
        raise EngineError(f"not llama-server --list-devices output: no {HEADER!r} line in {_excerpt(output)}")
    devices: list[str] = []
    saw_none = False
    for line in lines[starts[0] + 1 :]:
        match = _DEVICE.match(line.rstrip())
        if line.strip() == NONE:
            saw_none = True
        elif match:
            devices.append(f"{match['name']}: {match['description']}")
    if not devices and not saw_none:
        raise EngineError(
            f"llama-server --list-devices listed neither devices nor {NONE!r}: {_excerpt(output)}"
        )
    return devices


def _excerpt(output: str) -> str:
    text = output.strip()
    return repr(text[:200] + ("…" if len(text) > 200 else ""))
