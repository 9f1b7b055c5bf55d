"""SGLang's options as enginekit treats them: managed, secret, code-loading, quantization.

Which options a release accepts, and how many values each takes, come from the option
table (``options_table.py``, every release from 0.5.1 to 0.5.23, read from each one's own
parser); the refusals and value tables below were read from SGLang's source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from enginekit.plugin import Allowable  # the config fields' module: no reading of arguments

if TYPE_CHECKING:
    from enginekit.plugin import ArgSyntax, OptionTable

#: The release whose source the tables below (quantization choices and floors, load
#: formats, the sweep of options that reach paths and hosts) and the plans' notes were
#: read from. The options themselves are checked per release, against the option table.
SOURCE_RELEASE = "0.5.23"

#: The module ``python -m`` would run. ``sglang serve`` is a console script, not a
#: module, and the launcher runs modules only; launch_server still parses the same
#: flags with the same parser (``prepare_server_args``).
MODULE = "sglang.launch_server"

#: Options enginekit sets itself, each with what to use instead. argparse keeps the
#: last occurrence, so a pass-through copy would silently win over the shard spec.
MANAGED: dict[str, str] = {
    "--model-path": "set the profile's model_path",
    "--model": "set the profile's model_path",
    "--host": "the shard's bind_addr sets it",
    "--port": "the shard's http_port sets it",
    # SGLang's TP group is the profile's tp x dp: the layout sets it, with data parallel.
    "--tp-size": "set the profile's tp",
    "--tensor-parallel-size": "set the profile's tp",
    # Data-parallel attention and expert parallel: the layout's (enginekit_sglang.dataparallel).
    "--dp-size": "set the profile's dp (data-parallel attention ranks)",
    "--data-parallel-size": "set the profile's dp (data-parallel attention ranks)",
    "--attn-dp-size": "set the profile's dp (data-parallel attention ranks)",
    "--attention-data-parallel-size": "set the profile's dp (data-parallel attention ranks)",
    "--enable-dp-attention": "set the profile's dp: data-parallel attention is on when dp is above 1",
    "--ep-size": "set the profile's expert_parallel: the experts spread over all tp x dp GPUs",
    "--expert-parallel-size": "set the profile's expert_parallel: the experts spread over all tp x dp GPUs",
    "--ep": "set the profile's expert_parallel: the experts spread over all tp x dp GPUs",
    "--moe-a2a-backend": "set the profile's all2all (with expert_parallel)",
    "--enable-deepep-moe": 'set the profile\'s expert_parallel and all2all = "deepep"',
    "--enable-ep-moe": "set the profile's expert_parallel",
    "--pp-size": "set the profile's pp",
    "--pipeline-parallel-size": "set the profile's pp",
    "--nnodes": "set the profile's nodes",
    "--node-rank": "the shard's rank sets it",
    "--dist-init-addr": "the shard's leader_addr and leader_port set it",
    "--nccl-init-addr": "the shard's leader_addr and leader_port set it",
    "--served-model-name": "set the profile's served_model_name",
    "--enable-lora": "list the adapters in the profile's adapters",
    "--lora-paths": "list the adapters in the profile's adapters",
    "--kv-events-config": "set the profile's kv_events; the agent chooses the port",
    "--enable-metrics": "enginekit always enables it so that metrics_path is served",
    "--device": "enginekit sets it from the shard: cpu for a shard without GPUs",
    # Ports the agent did not assign collide with other shards on the node.
    "--nccl-port": "leave it to SGLang: a fixed port collides with other shards on the node",
    "--grpc-port": "enginekit serves the HTTP API only, on the port the agent assigned",
    # These replace the HTTP server the supervisor health-checks and routes to.
    "--grpc-mode": "enginekit health-checks and routes to SGLang's HTTP server, which this replaces",
    "--smg-grpc-mode": "enginekit health-checks and routes to SGLang's HTTP server, which this replaces",
}

#: Secrets: on a command line they are readable by every local user (/proc/PID/cmdline).
SECRETS: dict[str, str] = {
    "--api-key": "set the shard's api_key, which enginekit hands over through the environment",
    "--admin-api-key": "enginekit has no safe channel for it yet; leave admin endpoints locked",
    "--ssl-keyfile-password": "use an unencrypted key file readable only by the engine's user",
}

#: Options that load or run code named by their value, or that read options enginekit
#: cannot check; refused unless the site config's ``allow_args`` names them.
CODE_LOADING: dict[str, str] = {
    "--trust-remote-code": "runs Python shipped in the model repository",
    "--custom-weight-loader": "imports the functions its value names",
    "--enable-custom-logit-processor": "lets clients send serialized callables the server runs",
    "--forward-hooks": "imports the hook_factory callables its JSON names",
    "--sidecar": "runs the main() of the module its value names",
    "--hicache-storage-backend-extra-config": "imports the module_path its dynamic backend names",
    "--unified-cache-external-linker-config": "imports the linker_module_path its dynamic backend names",
    "--tool-server": "'demo' runs model-written Python; URLs send conversations to other hosts",
    "--config": "reads any option from a file enginekit cannot check",
    "--trust-request-chat-template": "renders the chat templates API clients send",
}

#: Options that make SGLang write where their value says, as root, read what a host path
#: or another host hands it, or send data to another host; refused unless the site
#: config's ``allow_args`` names them. Read from the release's option fields
#: (``arg_groups/fields/model.py``, ``serving.py``, ``observability.py``).
HOST_ACCESS: dict[str, str] = {
    "--download-dir": "downloads model weights into the directory it names, as root",
    "--crash-dump-folder": "writes the last minutes of requests, prompts included, to the folder it names",
    "--debug-tensor-dump-output-folder": "writes tensor dumps to the folder it names, as root",
    "--debug-tensor-dump-input-file": "reads the input of a tensor dump from the file it names, as root",
    "--export-metrics-to-file-dir": "writes per-request metrics files to the directory it names, as root",
    "--log-requests-target": "writes request logs, prompts included, to the directories it names",
    "--file-storage-path": "stores the files API clients upload under the path it names, as root",
    "--msprobe-dump-config": "reads a dump configuration from the file it names and dumps where it says",
    "--modelopt-checkpoint-restore-path": "restores the model from the checkpoint at the path it names",
    "--modelopt-checkpoint-save-path": "writes a checkpoint to the path it names, as root",
    "--modelopt-export-path": "writes the quantized model to the path it names, as root",
    "--remote-instance-weight-loader-seed-instance-ip": "loads the weights from the host it names",
    "--modelexpress-config": "loads the weights from the peer-to-peer service its JSON names",
    "--otlp-traces-endpoint": "sends a trace of every request to the collector it names",
    # Options of older releases only (the option table's 0.5.1 to 0.5.22), read in the
    # release that last had each: renamed to a refused option, or gone since.
    "--oltp-traces-endpoint": "sends a trace of every request to the collector it names",
    "--kt-amx-weight-path": "loads the quantized expert weights from the host folder it names, as root",
    "--ds-channel-config-path": (
        "reads the double-sparsity channel config from the host file it names, as root"
    ),
    "--pdlb-url": "registers this server with the PD load balancer at the URL it names",
    "--speculative-token-map": "downloads or reads the draft vocabulary table it names, as root",
    "--quantization-param-path": "reads KV-cache scaling factors from the host file it names, as root",
    "--rl-quant-profile": "reads a FlashRL quantization profile from the host file it names, as root",
    "--decrypted-config-file": "reads the model config from the host file it names, as root",
    "--decrypted-draft-config-file": "reads the draft model config from the host file it names, as root",
    # TLS files are the site's: a profile must not pick which host key the server presents.
    "--ssl-keyfile": "loads the TLS private key from the host file it names, as root",
    "--ssl-certfile": "loads the TLS certificate from the host file it names, as root",
    "--ssl-ca-certs": "loads the CA certificates from the host file it names, as root",
    # From a sweep of every 0.5.23 option whose name or help names a path, directory,
    # file, URL, endpoint, config file, another service, or a module (``fields/*.py``).
    "--kt-weight-path": "loads the quantized expert weights from the host folder it names, as root",
    "--uno-lora-path": "loads the UNO draft LoRA from the host path or repository it names",
    "--speculative-ngram-external-corpus-path": "reads the corpus from the host file it names, as root",
    "--speculative-dspark-sps-table-path": "reads the SPS cost table from the host file it names, as root",
    "--speculative-dspark-confidence-sts-path": (
        "reads the confidence calibration from the host file it names, as root"
    ),
    "--speculative-adaptive-config": (
        "reads the adaptive-speculation config from the host file it names, as root"
    ),
    "--pdmux-config-path": "reads the PD-multiplexing config from the host file it names, as root",
    "--dllm-algorithm-config": (
        "reads the diffusion algorithm's YAML config from the host file it names, as root"
    ),
    "--lmcache-config-file": (
        "reads an LMCache config from the host file it names, which picks where KV caches go, "
        "disks and remote servers included"
    ),
    "--flexkv-config-file": (
        "reads a FlexKV config from the host file it names, which picks where KV caches go, "
        "disks and remote stores included"
    ),
    "--spec-trace-dir": "writes speculative-decoding trace files to the directory it names, as root",
    "--ple-offload-dir": "writes the offloaded embedding table as a file in the directory it names, as root",
    "--delete-ckpt-after-loading": "deletes the model's checkpoint files after loading them, as root",
    "--weight-cache-socket": (
        "loads the model weights from whatever process listens on the Unix socket it names"
    ),
    # ZMQ endpoints: an ipc:// one is a socket file SGLang creates as root where it says.
    "--forward-pass-metrics-ipc-name": (
        "binds a metrics socket at the endpoint it names (an ipc:// endpoint is a socket file "
        "created as root)"
    ),
    "--decoupled-spec-bind-endpoint": (
        "binds a socket at the endpoint it names (an ipc:// endpoint is a socket file created as root)"
    ),
    "--decoupled-spec-connect-endpoints": "exchanges speculative-decoding state with the peers it names",
    "--encoder-urls": "sends multimodal inputs to the encoder servers it names",
    "--encoder-register-urls": "registers this server with the encoder bootstrap servers it names",
    # KV stores: the file backend writes under /tmp/hicache (nixl under /tmp/hicache_storage)
    # as root by default; the others reach a store (Mooncake, 3FS, AIBrix, …) over the network.
    "--hicache-storage-backend": (
        "keeps the KV cache in the store it names: files under /tmp written as root, or a "
        "remote store reached over the network"
    ),
    "--enable-unified-cache-external-linker": (
        "links the KV cache to an external store (Mooncake by default) reached over the network"
    ),
    "--enable-mm-global-cache": "keeps multimodal embeddings in a Mooncake store reached over the network",
    # Ray actors start in whichever Ray cluster the node runs (the one started last, which
    # may be another replica's), on the GPUs Ray picks rather than the shard's.
    "--use-ray": (
        "runs the schedulers as Ray actors in whichever Ray cluster this node runs, on the GPUs "
        "Ray picks rather than the shard's"
    ),
}

#: Every option refused unless ``allow_args`` names it, mapped to what it does.
RISKY: dict[str, str] = {**CODE_LOADING, **HOST_ACCESS}

#: Options whose value names the repository or directory part of the model is loaded
#: from: refused unless the value is the profile's model_path itself (which SGLang loads
#: anyway), or the site allows the option. ``--speculative-draft-model`` is the draft
#: option's second long spelling (:data:`READ_AS_PREFIX`), read as a prefix of it.
MODEL_SOURCES: dict[str, str] = {
    "--tokenizer-path": "loads the tokenizer from the Hugging Face repository or host path it names",
    "--speculative-draft-model-path": (
        "loads the draft model from the Hugging Face repository or host path it names"
    ),
}

#: Options that take a built-in template's name or a template file's path (SGLang tries
#: the name first, then ``os.path.exists``; ``entrypoints/openai/template_manager.py``):
#: a value with '/' is a path and refused unless allowed, a bare name passes.
TEMPLATES: dict[str, str] = {
    "--chat-template": "reads the chat template from the host path it names, as root",
    "--completion-template": "reads the completion template from the host path it names, as root",
}

#: Load formats that read the model's own files and nothing else (``LOAD_FORMAT_CHOICES``);
#: any other is refused unless allowed. Those below reach other hosts or write.
LOAD_FORMAT_OPTIONS = frozenset({"--load-format", "--speculative-draft-load-format"})
SAFE_LOAD_FORMATS = frozenset(
    """
    auto pt safetensors npcache dummy sharded_state gguf bitsandbytes layered mistral
    fastsafetensors
    """.split()
)
REMOTE_LOAD_FORMATS: dict[str, str] = {
    "remote": "loads the weights through a remote connector (S3, Redis, another server)",
    "remote_instance": "copies the weights from another SGLang instance over the network",
    "runai_streamer": "streams the weights from object storage with the Run:ai streamer",
    "presharded": "writes a resharded checkpoint under the model directory or where its extra config says",
    "flash_rl": "reads a FlashRL quantization profile from a host path",
}

#: ``--model-checksum`` alone checks the model_path repository; with a value it reads the
#: checksums file or repository that value names (``fields/model.py``, nargs "?").
CHECKSUM = "--model-checksum"
#: ``--init-expert-location``: "trivial", inline JSON, or a ``.pt``/``.json`` host file
#: (``eplb/expert_location.py``: torch.load or read_text).
EXPERT_LOCATION = "--init-expert-location"
#: ``--deepep-config``: inline JSON, or, when the value does not parse as JSON, the host
#: file it names (``utils/common.py`` ``load_json_config``: orjson, then ``read_text``).
DEEPEP_CONFIG = "--deepep-config"
#: ``--disaggregation-ib-device``: device names, an inline JSON mapping, or, when the
#: value ends in ``.json``, a host file holding the mapping (``mooncake_transfer_engine.py``).
IB_DEVICE = "--disaggregation-ib-device"
#: ``--weight-cache-mode``: ``off`` loads from disk; ``daemon`` serves the weights on a Unix
#: socket under /tmp; ``client`` loads them from whatever listens on
#: /tmp/sglang_weight_cache_<GPU UUID>.sock (``environ.py``), which any local user can create.
WEIGHT_CACHE_MODE = "--weight-cache-mode"
VALUE_CHECKED = (
    frozenset(MODEL_SOURCES)
    | frozenset(TEMPLATES)
    | LOAD_FORMAT_OPTIONS
    | {CHECKSUM, EXPERT_LOCATION, DEEPEP_CONFIG, IB_DEVICE, WEIGHT_CACHE_MODE}
)

#: What ``allow_args`` may name: the risks that are the site's to take, and any long
#: option no release in the table has (a newer release's, which the site vouches for).
REFUSED = frozenset(RISKY) | VALUE_CHECKED

#: Second long spellings of an option whose value is checked, read as a prefix of that
#: option rather than as an option of their own: ``--speculative-draft-model X`` then
#: means ``--speculative-draft-model-path X`` (among the other options it begins), whose
#: value must be the profile's model_path. Known as itself, its value would go unchecked.
READ_AS_PREFIX = frozenset({"--speculative-draft-model"})


def table() -> OptionTable:
    """Every option of every SGLang release read, from ``options_table.py`` (read once)."""
    from enginekit.plugin import OptionTable

    return OptionTable.from_package("enginekit_sglang")


ALLOWABLE = Allowable(REFUSED, lambda: table().options)

#: How SGLang's parser reads options: plain argparse, so ``--flag=value`` and unique
#: prefixes work (``--tp`` is ``--tp-size``), underscores do not (``--tp_size`` is an
#: unrecognized argument), and there are no short aliases but ``-h`` or dotted keys. It
#: knows every option of every release in the table, so an abbreviation is read as every
#: option it may mean in some release. Made when first read (the module's ``__getattr__``):
#: `enginekit engines` imports this module for the config's checks, and never reads arguments.
SYNTAX: ArgSyntax
#: Values each option takes (the newest release's, where it changed), for the positional check.
ARITY: dict[str, int | None]


def __getattr__(name: str) -> Any:
    if name == "SYNTAX":
        from enginekit.plugin import ArgSyntax

        options = table()
        syntax = ArgSyntax(
            known=options.options - READ_AS_PREFIX,
            aliases=dict(options.alias_of),
            underscores=False,
            abbreviations=True,
            dotted=False,
        )
        globals()[name] = syntax  # found directly from now on
        return syntax
    if name == "ARITY":
        arity = table().arity()
        globals()[name] = arity
        return arity
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Options of other engines that profiles moved to SGLang bring along, none of them an
#: option of any SGLang release read, each with what SGLang has instead: added to the
#: option table's "is not an option" sentence.
OTHER_ENGINES: dict[str, str] = {
    "--max-model-len": "vLLM's option; SGLang's is --context-length",
    "--gpu-memory-utilization": (
        "vLLM's option; SGLang's nearest is --mem-fraction-static, the share of GPU memory for "
        "weights and KV cache"
    ),
    "--max-num-seqs": "vLLM's option; SGLang's is --max-running-requests",
    "--max-num-batched-tokens": "vLLM's option; SGLang's nearest is --chunked-prefill-size",
    "--enforce-eager": "vLLM's option; SGLang's is --disable-cuda-graph",
    "--enable-prefix-caching": "vLLM's option; SGLang caches prefixes unless told --disable-radix-cache",
    "--lora-modules": "vLLM's option; list the adapters in the profile's adapters",
    "--seed": "vLLM's option; SGLang's is --random-seed",
    "--block-size": "vLLM's option; SGLang's is --page-size",
    "--ctx-size": "llama-server's option; SGLang's is --context-length",
    "--n-gpu-layers": "llama-server's option; SGLang keeps the whole model on its GPUs",
}

#: ``--quantization`` choices, enforced by argparse (``arg_groups/choices.py``).
QUANTIZATION_CHOICES: tuple[str, ...] = tuple(
    """
    awq fp8 mxfp8 gptq gptq_marlin awq_marlin bitsandbytes gguf modelopt modelopt_fp8
    modelopt_fp4 nvfp4_online modelopt_mixed petit_nvfp4 w8a8_int8 w8a8_fp8 moe_wna16 w4afp8
    mxfp4 auto-round auto-round-int8 compressed-tensors modelslim mxfp_w4a8 quark
    quark_int4fp8_moe quark_mxfp4 mlx_q4 mlx_q8 unquant humming
    """.split()
)

#: Minimum compute capability per method: the config class's ``get_min_capability()``,
#: which the model loader checks before loading (``model_loader/loader.py``). Methods
#: absent here have no CUDA floor (or pick it per checkpoint scheme).
QUANTIZATION_FLOORS: dict[str, float] = {
    "awq": 7.5,
    "awq_marlin": 8.0,
    "fp8": 8.0,
    "mxfp8": 10.0,
    "gptq_marlin": 8.0,
    "bitsandbytes": 7.0,
    "gguf": 6.0,
    "modelopt": 8.9,
    "modelopt_fp8": 8.9,
    "modelopt_fp4": 8.0,
    "modelopt_mixed": 8.0,
    "nvfp4_online": 10.0,
    "petit_nvfp4": 9.0,
    "w8a8_int8": 7.5,
    "w8a8_fp8": 8.9,
    "moe_wna16": 7.0,
    "w4afp8": 9.0,
    "mxfp4": 8.0,
    "auto-round": 6.0,
    "auto-round-int8": 7.5,
    "compressed-tensors": 7.0,
    "quark": 7.0,
    "quark_mxfp4": 7.0,
    "quark_int4fp8_moe": 7.0,
    "humming": 7.5,
}

#: Choices argparse accepts that the CUDA build has no implementation for: the launch
#: gets past parsing, then fails with "Invalid quantization method".
NOT_ON_CUDA: dict[str, str] = {
    "gptq": (
        "plain gptq has no CUDA kernel in SGLang (only CPU, NPU and XPU register it); leave "
        "--quantization unset and a GPTQ checkpoint is loaded as gptq_marlin"
    ),
    "mlx_q4": "mlx_q4 is Apple MLX only",
    "mlx_q8": "mlx_q8 is Apple MLX only",
}
