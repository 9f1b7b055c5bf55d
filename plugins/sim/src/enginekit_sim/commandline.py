"""The simulated engine's command line: its one option table and parser, shared by plugin and server.

The parser is the one the plugin checks a profile's pass-through arguments with, so the
verdict at validation time is the verdict at start. It imports only the standard library
and the fault syntax: the plugin, which every ``enginekit engines`` imports, reads it
without loading anything of the server.
"""

from __future__ import annotations

import argparse
from typing import Any

from enginekit_sim.faults import FAULTS, parse_faults

#: The variable the API key arrives in; the server takes it out of its environment.
API_KEY_ENV = "ENGINEKIT_API_KEY"
#: Set by the plugin when a cpu-fallback fault applies: the device listing, run in the
#: shard's environment, then reports no GPU.
CPU_FALLBACK_ENV = "ENGINEKIT_SIM_CPU_FALLBACK"
#: The KV cache's capacity in blocks when neither ``--num-gpu-blocks-override`` nor
#: ``--kv-cache-memory-bytes`` is given.
DEFAULT_NUM_GPU_BLOCKS = 2048
#: Bytes of KV cache one token takes, by default: an 8B-class model with grouped-query
#: attention in bf16 (Llama 3.1 8B: 32 layers x 8 KV heads x 128 dimensions x 2 for K and V
#: x 2 bytes = 128 KiB), the size the simulator's latency defaults stand for.
DEFAULT_KV_BYTES_PER_TOKEN = 131_072
#: The largest request body read (64 MiB): a prompt far beyond any context length.
DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024
#: The largest prompt tokenized (8 MiB of UTF-8): about 2M words, past the default context
#: length many times over, and tokenized in well under a second.
DEFAULT_MAX_PROMPT_BYTES = 8 * 1024 * 1024
#: Seconds a streaming client may leave a write unread before it is dropped.
DEFAULT_STREAM_WRITE_TIMEOUT = 30.0


class ArgsError(Exception):
    """An argument the simulator's parser refuses."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArgsError(message)


def _fault(text: str) -> str:
    try:
        parse_faults([text])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


_BOOL = argparse.BooleanOptionalAction
#: Every option of ``serve``: (spellings, argparse keywords). Data, so the plugin can read
#: the option list without reaching into argparse.
SERVE_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    # Set by enginekit from the shard spec, spelt as vLLM spells them.
    (("--host",), {"default": "", "help": "bind address; empty binds every address"}),
    (("--port",), {"type": int, "default": 8000}),
    (("--served-model-name",), {"nargs": "+", "default": None}),
    (("-tp", "--tensor-parallel-size"), {"type": int, "default": 1}),
    (("-pp", "--pipeline-parallel-size"), {"type": int, "default": 1}),
    (("-n", "--nnodes"), {"type": int, "default": 1}),
    (("-r", "--node-rank"), {"type": int, "default": 0}),
    (("--master-addr",), {"default": "127.0.0.1", "help": "where the leader takes workers' joins"}),
    (("--master-port",), {"type": int, "default": 29501}),
    (("--headless",), {"action": "store_true", "help": "a worker or data-parallel process: serve no HTTP"}),
    (("--enable-lora",), {"action": "store_true"}),
    (("--lora-modules",), {"nargs": "+", "default": [], "help": "name=path or a JSON object"}),
    (("--max-loras",), {"type": int, "default": 1, "help": "accepted for vLLM parity"}),
    (("--kv-events-config",), {"default": "", "help": "vLLM's KV-events JSON"}),
    # Disaggregated prefill and decode, as vLLM's NixlConnector (its side channel from
    # VLLM_NIXL_SIDE_CHANNEL_HOST and _PORT): see enginekit_sim/server/transfer.py.
    (("--kv-transfer-config",), {"default": "", "help": "vLLM's KV-transfer JSON (NixlConnector)"}),
    # Or as SGLang's: the instance's role, its bootstrap server (a prefill's) and its backend.
    (("--disaggregation-mode",), {"choices": ("null", "prefill", "decode"), "default": "null"}),
    (("--disaggregation-bootstrap-port",), {"type": int, "default": 8998}),
    (("--disaggregation-transfer-backend",), {"choices": ("mooncake", "nixl"), "default": "mooncake"}),
    # Data parallel, spelt and numbered as vLLM's (docs/layouts.md): the ranks this process
    # hosts, the balancing mode, and the leader every other process joins.
    (("--data-parallel-size",), {"type": int, "default": 1}),
    (("--data-parallel-size-local",), {"type": int, "default": None, "help": "ranks on this process"}),
    (("--data-parallel-start-rank",), {"type": int, "default": 0, "help": "its first rank"}),
    (("--data-parallel-rank",), {"type": int, "default": None, "help": "its one rank (external balancing)"}),
    (("--data-parallel-address",), {"default": "127.0.0.1", "help": "where the rank-0 process takes joins"}),
    (("--data-parallel-rpc-port",), {"type": int, "default": 29550}),
    (("--data-parallel-hybrid-lb",), {"action": "store_true", "help": "one API server per node"}),
    (("--data-parallel-external-lb",), {"action": "store_true", "help": "one API server per rank"}),
    (("--enable-expert-parallel",), {"action": "store_true", "help": "accepted for vLLM parity"}),
    (("--all2all-backend",), {"default": None, "help": "accepted for vLLM parity"}),
    (("--threads",), {"type": int, "default": 0, "help": "CPU cores reserved for the shard"}),
    # The simulation itself.
    (("--startup-seconds",), {"type": float, "default": 2.0, "help": "time to ready"}),
    (("--ttft-ms",), {"type": float, "default": 50.0, "help": "time to first token"}),
    (("--itl-ms",), {"type": float, "default": 15.0, "help": "inter-token latency"}),
    (("--prefill-ms-per-token",), {"type": float, "default": 0.0, "help": "per prompt token not cached"}),
    (
        ("--kv-transfer-ms-per-token",),
        {"type": float, "default": 0.0, "help": "per prompt token a decode instance reads from a prefill's"},
    ),
    (("--max-num-seqs",), {"type": int, "default": 256, "help": "requests running at once; more queue"}),
    (("--max-model-len",), {"type": int, "default": 4096}),
    (("--seed",), {"type": int, "default": 0}),
    (("--block-size",), {"type": int, "default": 16, "help": "tokens per KV-cache block"}),
    # None when not given, so that giving it beside --kv-cache-memory-bytes can be refused.
    (
        ("--num-gpu-blocks-override",),
        {
            "type": int,
            "default": None,
            "help": f"KV-cache capacity in blocks (default {DEFAULT_NUM_GPU_BLOCKS})",
        },
    ),
    (
        ("--kv-cache-memory-bytes",),
        {
            "type": int,
            "default": None,
            "help": "KV-cache memory in bytes, as vLLM's (plain digits here): the capacity is this "
            "over --block-size x --kv-bytes-per-token, in whole blocks; not with --num-gpu-blocks-override",
        },
    ),
    (
        ("--kv-bytes-per-token",),
        {
            "type": int,
            "default": DEFAULT_KV_BYTES_PER_TOKEN,
            "help": "bytes of KV cache one token takes; the default is an 8B-class model in bf16 "
            "(32 layers x 8 KV heads x 128 dims x 2 for K and V x 2 bytes)",
        },
    ),
    (
        ("--max-body-bytes",),
        {
            "type": int,
            "default": DEFAULT_MAX_BODY_BYTES,
            "help": "largest request body read, counted as it arrives (chunked too); more is 413",
        },
    ),
    (
        ("--max-prompt-bytes",),
        {
            "type": int,
            "default": DEFAULT_MAX_PROMPT_BYTES,
            "help": "largest prompt or rendered chat, in UTF-8 bytes; more is 400",
        },
    ),
    (
        ("--stream-write-timeout",),
        {
            "type": float,
            "default": DEFAULT_STREAM_WRITE_TIMEOUT,
            "help": "seconds a streaming client may leave a write unread before it is dropped",
        },
    ),
    (("--kv-event-format",), {"choices": ("map", "array"), "default": "map"}),
    (("--fault",), {"action": "append", "default": [], "type": _fault, "help": "; ".join(FAULTS.values())}),
    (("--heartbeat-seconds",), {"type": float, "default": 1.0, "help": "leader-worker heartbeat"}),
    (("--join-timeout",), {"type": float, "default": 600.0, "help": "how long a worker tries to join"}),
    # vLLM's switch for its scale-out endpoints: without it POST /v1/completions/render and
    # /v1/chat/completions/render answer 403, as vLLM 0.32's (vllm/entrypoints/scale_out/factories.py).
    (("--enable-scale-out",), {"action": "store_true", "help": "serve the render endpoints"}),
    # vLLM options accepted so a vLLM profile runs unchanged; they change nothing here.
    (("--dtype",), {"default": "auto"}),
    (("--gpu-memory-utilization",), {"type": float, "default": 0.9}),
    (("--enforce-eager",), {"action": "store_true"}),
    (("--enable-prefix-caching",), {"action": _BOOL, "default": True}),
    (("--kv-cache-dtype",), {"default": "auto"}),
    (("--max-num-batched-tokens",), {"type": int, "default": None}),
    (("-q", "--quantization"), {"default": None}),
    (("--trust-remote-code",), {"action": "store_true"}),
)


def option_spellings() -> list[tuple[str, ...]]:
    """The spellings of every ``serve`` option, ``--help`` included, for the plugin's checks."""
    spellings = [names for names, _ in SERVE_OPTIONS] + [("-h", "--help")]
    # A BooleanOptionalAction also answers to its --no- form.
    spellings += [("--no-" + names[-1][2:],) for names, kw in SERVE_OPTIONS if kw.get("action") is _BOOL]
    return spellings


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m enginekit_sim``; it raises :class:`ArgsError` instead of exiting."""
    parser = _Parser(prog="python -m enginekit_sim", allow_abbrev=False)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    devices = sub.add_parser("devices", help="list the GPUs this process was given", allow_abbrev=False)
    devices.add_argument("--fault", action="append", default=[], type=_fault, help="cpu-fallback")
    serve = sub.add_parser("serve", help="run the simulated engine", allow_abbrev=False)
    serve.add_argument("model", help="the model path (nothing is loaded)")
    for names, keywords in SERVE_OPTIONS:
        serve.add_argument(*names, **keywords)
    return parser
