"""The seed's CPUFallback: the ``--list-devices`` command and its parser, on the output forms llama-server prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from enginekit import Command, EngineError
from enginekit.testing import engine_for
from enginekit_llamacpp import LlamaCppEngine

#: A CPU-only build of llama.cpp 0c1e57098, stdout.
CPU_ONLY = "Available devices:\n  (none)\n"
#: A CUDA build on two GPUs: the line format of common_print_available_devices.
TWO_GPUS = (
    "Available devices:\n"
    "  CUDA0: NVIDIA H100 80GB HBM3 (81079 MiB, 80520 MiB free)\n"
    "  CUDA1: NVIDIA H100 80GB HBM3 (81079 MiB, 81000 MiB free)\n"
)
#: stdout and stderr merged: a CUDA build logs its devices on stderr first.
MERGED = (
    "ggml_cuda_init: found 1 CUDA devices (Total VRAM: 143771 MiB):\n"
    "  Device 0: NVIDIA H200, compute capability 9.0, VMM: yes, VRAM: 143771 MiB\n"
    "load_backend: loaded CUDA backend from /opt/llama/lib/libggml-cuda.so\n"
    "Available devices:\r\n"
    "  CUDA0: NVIDIA H200 (143771 MiB, 143000 MiB free)\r\n"
)


def test_listing_is_list_devices_of_the_configured_or_installed_build() -> None:
    assert engine_for(LlamaCppEngine(), "llamacpp").device_listing() == Command(
        path="llama-server", args=("--list-devices",), name="llama-server --list-devices"
    )
    installed = engine_for(LlamaCppEngine(), "llamacpp", installed=Path("/opt/llama.cpp/b6000"))
    listing = installed.device_listing()
    assert listing is not None
    assert listing.argv() == ["/opt/llama.cpp/b6000/bin/llama-server", "--list-devices"]
    assert dict(listing.env) == {}


def test_a_build_without_gpus_lists_none() -> None:
    assert engine_for(LlamaCppEngine(), "llamacpp").parse_devices(CPU_ONLY) == []


def test_a_cuda_build_lists_its_devices_without_the_memory_figures() -> None:
    assert engine_for(LlamaCppEngine(), "llamacpp").parse_devices(TWO_GPUS) == [
        "CUDA0: NVIDIA H100 80GB HBM3",
        "CUDA1: NVIDIA H100 80GB HBM3",
    ]


def test_logs_before_the_header_are_not_devices() -> None:
    assert engine_for(LlamaCppEngine(), "llamacpp").parse_devices(MERGED) == ["CUDA0: NVIDIA H200"]


def test_other_backends_and_rpc_devices_are_listed_too() -> None:
    output = (
        "Available devices:\n"
        "  Vulkan0: NVIDIA GeForce RTX 4090 (24564 MiB, 23000 MiB free)\n"
        "  RPC[10.0.0.9:50052]: RPC[10.0.0.9:50052] (81079 MiB, 80000 MiB free)\n"
    )
    assert engine_for(LlamaCppEngine(), "llamacpp").parse_devices(output) == [
        "Vulkan0: NVIDIA GeForce RTX 4090",
        "RPC[10.0.0.9:50052]: RPC[10.0.0.9:50052]",
    ]


@pytest.mark.parametrize(
    "output",
    [
        "",
        "error: invalid argument: --list-devices\n",
        "llama-server: error while loading shared libraries: libcuda.so.1: cannot open shared object file\n",
        "Available devices:\n",
    ],
)
def test_output_that_is_no_listing_is_an_error_not_a_cpu_build(output: str) -> None:
    with pytest.raises(EngineError, match=r"list-devices"):
        engine_for(LlamaCppEngine(), "llamacpp").parse_devices(output)
