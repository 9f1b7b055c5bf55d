"""llama-server's flags: how its parser reads them, and which ones enginekit sets, gates or refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from enginekit.plugin import Allowable  # the config fields' module: no reading of arguments

if TYPE_CHECKING:
    from enginekit.plugin import OptionTable

#: The program's name in a llama.cpp build (``<build>/bin/llama-server``).
EXECUTABLE = "llama-server"
#: The key's variable: ``--api-key``'s env twin is LLAMA_API_KEY, not LLAMA_ARG_API_KEY
#: (``common/arg.cpp``, ``.set_env("LLAMA_API_KEY")``).
API_KEY_ENV = "LLAMA_API_KEY"
#: ggml-cuda names its devices ``CUDA0``, ``CUDA1``… in the order CUDA enumerates them,
#: i.e. the order of CUDA_VISIBLE_DEVICES (``ggml-cuda.cu``: GGML_CUDA_NAME + index).
CUDA_DEVICE = "CUDA{}"
CONFIG_KEY = "engines.llamacpp.allow_args"

#: Every other spelling of the flags below, mapped to the canonical long flag.
ALIASES: dict[str, str] = {
    "-m": "--model",
    "-mu": "--model-url",
    "-hf": "--hf-repo",
    "-hfr": "--hf-repo",
    "-hff": "--hf-file",
    "-hft": "--hf-token",
    "-dr": "--docker-repo",
    "-a": "--alias",
    "-ngl": "--n-gpu-layers",
    "--gpu-layers": "--n-gpu-layers",
    "-dev": "--device",
    "-sm": "--split-mode",
    "-ts": "--tensor-split",
    "-mg": "--main-gpu",
    "-t": "--threads",
    "-tb": "--threads-batch",
    "-ag": "--agent",
    "--webui-mcp-proxy": "--ui-mcp-proxy",
    "-q": "--quantization",
    "-mmu": "--mmproj-url",
    "-hfd": "--hf-repo-draft",
    "-hfrd": "--hf-repo-draft",
    "--spec-draft-hf": "--hf-repo-draft",
    "-hfv": "--hf-repo-v",
    "-hfrv": "--hf-repo-v",
    "-hffv": "--hf-file-v",
    "-f": "--file",
    "-sysf": "--system-prompt-file",
    "-bf": "--binary-file",
    "-jf": "--json-schema-file",
    "-lcs": "--lookup-cache-static",
    "-lcd": "--lookup-cache-dynamic",
    "-mm": "--mmproj",
    "-md": "--model-draft",
    "--spec-draft-model": "--model-draft",
    "-mv": "--model-vocoder",
    "--webui-config-file": "--ui-config-file",
    "-C": "--cpu-mask",
    "-Cr": "--cpu-range",
    "-Cb": "--cpu-mask-batch",
    "-Crb": "--cpu-range-batch",
    "-td": "--threads-draft",
    "-tbd": "--threads-batch-draft",
    "-Cd": "--cpu-mask-draft",
    "-Crd": "--cpu-range-draft",
    "-Cbd": "--cpu-mask-batch-draft",
    "-Crbd": "--cpu-range-batch-draft",
    # The draft twins' long names from b9445 on: without them a profile could pin or
    # raise the draft model's threads past MANAGED and the priority gate.
    "--spec-draft-threads": "--threads-draft",
    "--spec-draft-threads-batch": "--threads-batch-draft",
    "--spec-draft-cpu-mask": "--cpu-mask-draft",
    "--spec-draft-cpu-mask-batch": "--cpu-mask-batch-draft",
    "--spec-draft-cpu-range": "--cpu-range-draft",
    "--spec-draft-cpu-strict": "--cpu-strict-draft",
    "--spec-draft-cpu-strict-batch": "--cpu-strict-batch-draft",
    "--spec-draft-prio": "--prio-draft",
    "--spec-draft-prio-batch": "--prio-batch-draft",
}

_MODEL = "set the profile's model_path to the GGUF file instead"
_GPUS = "offload and split follow the shard's GPUs (the shard spec's gpu_indices, the profile's tp); drop it"
_THREADS = "a CPU shard gets the cores placement reserved for it (the shard spec's threads); drop it"
_CORES = (
    "placement decides where a shard's threads run (the shard spec's threads), and pinning them "
    "to cores of its own choosing could put them on cores another shard holds; drop it"
)
_KEY = "set the shard spec's api_key, which reaches llama-server as LLAMA_API_KEY"
_LORA = "list them in the profile's adapters instead"

#: Flags enginekit sets from the spec, mapped to what to do instead. llama-server takes
#: the last of a repeated flag, so a second one here would quietly win.
MANAGED: dict[str, str] = {
    "--model": _MODEL,
    "--model-url": _MODEL,
    "--hf-repo": _MODEL,
    "--hf-file": _MODEL,
    "--docker-repo": _MODEL,
    "--host": "set the shard spec's bind_addr instead",
    "--port": "set the shard spec's http_port instead",
    "--alias": "set the profile's served_model_name instead",
    "--n-gpu-layers": _GPUS,
    "--device": _GPUS,
    "--split-mode": _GPUS,
    "--tensor-split": _GPUS,
    "--main-gpu": _GPUS,
    "--threads": _THREADS,
    "--threads-batch": _THREADS,
    "--threads-draft": _THREADS,
    "--threads-batch-draft": _THREADS,
    # Which cores the threads run on (common/arg.cpp: a mask or range sets mask_valid, and
    # ggml pins each thread to it; --cpu-strict pins one thread per core; --numa spreads
    # or confines the threads by NUMA node). The draft twins exist in some releases only.
    "--cpu-mask": _CORES,
    "--cpu-range": _CORES,
    "--cpu-strict": _CORES,
    "--cpu-mask-batch": _CORES,
    "--cpu-range-batch": _CORES,
    "--cpu-strict-batch": _CORES,
    "--cpu-mask-draft": _CORES,
    "--cpu-range-draft": _CORES,
    "--cpu-strict-draft": _CORES,
    "--cpu-mask-batch-draft": _CORES,
    "--cpu-range-batch-draft": _CORES,
    "--cpu-strict-batch-draft": _CORES,
    "--numa": _CORES,
    "--lora": _LORA,
    "--lora-scaled": _LORA,
    "--metrics": "it is always on, for metrics_path; drop it",
    "--api-prefix": "it moves /health and /metrics off the paths the supervisor checks; drop it",
    # A host file of keys, read as root: the key is the shard spec's, and nothing else.
    "--api-key-file": "secrets never go in args: " + _KEY,
    # Router mode: llama-server then serves the models of a directory or preset file,
    # starting a server of its own for each, instead of the profile's model_path.
    "--models-dir": _MODEL,
    "--models-preset": _MODEL,
}

#: Flags whose value is a secret, mapped to what to do instead: any local user can read a
#: command line, so they are refused whatever the site allows.
SECRET: dict[str, str] = {
    "--api-key": _KEY,
    "--hf-token": "a model_path on this node needs no download; drop it",
}

#: Built-in model presets (``--gpt-oss-20b-default``, ``--fim-qwen-7b-spec``…): each names
#: a Hugging Face repository to download and serve instead of the profile's model_path.
PRESET_SUFFIXES = ("-default", "-spec")
PRESET_WHY = "picks a built-in model that llama-server downloads from Hugging Face; " + _MODEL

#: Flags that reach outside the process, mapped to why; refused unless the site's
#: ``allow_args`` names them. Their env twins (LLAMA_ARG_RPC…) are denied by ``policy``.
RISKY: dict[str, str] = {
    "--rpc": (
        "sends the model and its computation to remote RPC servers, whose protocol has no "
        "authentication (llama.cpp: 'vulnerable to all sorts of attack vectors')"
    ),
    "--path": "serves a directory of this node over HTTP",
    "--media-path": "lets any request read the files under a directory of this node",
    "--tools": "lets the model run built-in tools on this node, exec_shell_command among them",
    "--agent": "enables every built-in tool, exec_shell_command among them, and the MCP proxy",
    "--mcp-servers-config": "starts the MCP server programs a file names",
    "--mcp-servers-json": "starts the MCP server programs the argument names",
    "--ui-mcp-proxy": "proxies requests from the web UI to any URL",
    "--slots": "re-opens /slots, which shows every client's prompts and replies in progress",
    "--log-file": "writes the server's log to the file it names, as root",
    "--slot-save-path": (
        "lets any client save a slot's prompt cache to, and restore it from, the directory it "
        "names (POST /slots), as root"
    ),
    "--mmproj-url": "downloads a multimodal projector from the URL it names and parses it",
    "--hf-repo-draft": "downloads a draft model from the Hugging Face repository it names",
    "--hf-repo-v": "downloads a vocoder model from the Hugging Face repository it names",
    "--hf-file-v": "downloads the vocoder model file it names from Hugging Face",
    # Files read as root (common/arg.cpp): their content reaches the model, a client, or
    # a parser, so a profile could read any file of the node through them.
    "--chat-template-file": "reads the chat template from the host file it names, as root",
    "--file": "reads the prompt from the host file it names, as root",
    "--system-prompt-file": "reads the system prompt from the host file it names, as root",
    "--binary-file": "reads prompts from the host file it names, as root",
    "--grammar-file": "reads a grammar from the host file it names, as root",
    "--json-schema-file": "reads a JSON schema from the host file it names, as root",
    "--control-vector": "reads control vectors from the host files it names, as root",
    "--control-vector-scaled": "reads control vectors from the host files it names, as root",
    "--lookup-cache-static": "reads a lookup cache from the host file it names, as root",
    "--lookup-cache-dynamic": "reads and writes a lookup cache at the host path it names, as root",
    "--mmproj": "parses the multimodal projector at the host path it names, as root",
    "--model-draft": "parses the draft model at the host path it names, as root",
    "--model-vocoder": "parses the vocoder model at the host path it names, as root",
    "--ui-config-file": "serves the JSON of the host file it names to the web UI",
    "--log-prompts-dir": "writes every prompt to the directory it names, as root",
    "--video-ffmpeg-dir": "runs the ffmpeg and ffprobe programs of the directory it names",
    "--tools-runtime": "runs the built-in tools in the container or over the SSH host it names",
    # TLS files are the site's: a profile must not pick which host key the server presents.
    "--ssl-key-file": "loads the TLS private key from the host file it names, as root",
    "--ssl-cert-file": "loads the TLS certificate from the host file it names, as root",
}

#: Scheduling priority of the threads (``--prio N``: low -1, normal 0, medium 1, high 2,
#: realtime 3). Above normal, ggml makes each thread SCHED_FIFO (priority 40, 80, 90), which
#: root is granted: they then run ahead of every other shard's threads and the agent's, and
#: a busy one starves them. Refused above normal unless the site's ``allow_args`` names
#: the flag; the batch and draft twins take the same values.
PRIORITY = frozenset({"--prio", "--prio-batch", "--prio-draft", "--prio-batch-draft"})
#: The priorities that run no thread ahead of others'.
SAFE_PRIORITIES = frozenset({-1, 0})
PRIORITY_WHY = (
    "raises its threads above normal scheduling priority: medium, high and realtime make them "
    "real-time SCHED_FIFO threads, which run as root ahead of every other shard and the agent "
    "(low -1 and normal 0 pass)"
)


def table() -> OptionTable:
    """Every option of every llama.cpp build read, from ``options_table.py`` (read once)."""
    from enginekit.plugin import OptionTable

    return OptionTable.from_package("enginekit_llamacpp")


#: What no site can allow: what enginekit sets, and what carries a secret.
NEVER_ALLOWED = frozenset(MANAGED) | frozenset(SECRET)

#: Other engines' quantization flags, mapped to what llama-server does instead: a GGUF
#: file carries its quantization, and llama-server refuses the unknown flag at start.
NOT_GGUF: dict[str, str] = {
    "--quantization": (
        "a GGUF file carries its own quantization: put the quantized file (e.g. Q4_K_M) in model_path"
    ),
    "--dtype": "a GGUF file carries its own weight types: put the file you want in model_path",
    "--kv-cache-dtype": (
        "llama-server sets the KV cache's type with --cache-type-k and --cache-type-v (e.g. q8_0)"
    ),
}


#: Every flag this module names, whether or not a build read has it.
NAMED = frozenset([*MANAGED, *SECRET, *RISKY, *PRIORITY, *NOT_GGUF])
#: What ``allow_args`` may name: the risky and priority flags, or a long option neither a
#: read build nor this module has (a newer build's, which the site vouches for).
ALLOWABLE = Allowable(frozenset(RISKY) | PRIORITY, lambda: table().options | NAMED, underscores=True)


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
