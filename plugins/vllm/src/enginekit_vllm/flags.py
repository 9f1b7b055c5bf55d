"""The flags pass-through arguments may not set, and why: enginekit's own, risky ones, secrets."""

from __future__ import annotations

from collections.abc import Mapping

from enginekit.plugin import Allowable

_PLACEMENT = (
    "set profile.nodes (with gpus_per_node); the shard spec's rank, leader_addr and leader_port "
    "place each node, and the node config's engines.vllm.multinode picks Ray or native"
)
_DATA_PARALLEL = (
    "set profile.dp, dp_per_node and dp_balancing; the replica's layout gives every process its "
    "ranks, leader and ports (enginekit layout REPLICA)"
)
_LORA = "list the adapters in profile.adapters; enginekit sets the LoRA flags from them"

#: Flags enginekit sets itself (vLLM's parser keeps the last occurrence, so a second one
#: in the args would win), mapped to what to use instead.
MANAGED: Mapping[str, str] = {
    "--model": "set profile.model_path; enginekit passes it as vLLM's positional model",
    "--host": "the shard spec's bind_addr is where vLLM listens",
    "--port": "the shard spec's http_port is where vLLM listens",
    "--uds": "the shard serves TCP on the shard spec's bind_addr and http_port",
    "--grpc": "the shard serves the OpenAI HTTP API on http_port, which health checks rely on",
    "--served-model-name": "set profile.served_model_name",
    "--tensor-parallel-size": "set profile.tp",
    "--pipeline-parallel-size": "set profile.pp",
    "--device-ids": "placement picks the GPUs (gpu_indices, given as CUDA_VISIBLE_DEVICES)",
    "--nnodes": _PLACEMENT,
    "--node-rank": _PLACEMENT,
    "--master-addr": _PLACEMENT,
    "--master-port": _PLACEMENT,
    "--headless": _PLACEMENT,
    "--distributed-executor-backend": _PLACEMENT,
    "--data-parallel-size": _DATA_PARALLEL,
    "--data-parallel-rank": _DATA_PARALLEL,
    "--data-parallel-start-rank": _DATA_PARALLEL,
    "--data-parallel-size-local": _DATA_PARALLEL,
    "--data-parallel-address": _DATA_PARALLEL,
    "--data-parallel-rpc-port": _DATA_PARALLEL,
    "--data-parallel-backend": _DATA_PARALLEL,
    "--data-parallel-hybrid-lb": _DATA_PARALLEL,
    "--data-parallel-external-lb": _DATA_PARALLEL,
    "--data-parallel-multi-port-external-lb": _DATA_PARALLEL,
    "--enable-expert-parallel": "set profile.expert_parallel",
    "--all2all-backend": "set profile.all2all: the layout checks it against the release",
    "--enable-lora": _LORA,
    "--no-enable-lora": _LORA,
    "--disable-lora": _LORA,
    "--lora-modules": _LORA,
    "--max-loras": _LORA,
    "--kv-events-config": (
        "set profile.kv_events = true; enginekit points the publisher at the agent's loopback port"
    ),
}

#: Flags that import or run code, read files as root or let clients do either, mapped to
#: what they do. Refused unless the node config's ``allow_args`` names them.
#: Sources: vLLM 0.34.0 ``engine/arg_utils.py`` and ``entrypoints/common/cli_args.py``.
CODE_LOADING: Mapping[str, str] = {
    "--trust-remote-code": "runs Python code shipped in the model repository",
    "--worker-cls": "imports the worker class named in its value",
    "--worker-extension-cls": "imports the worker extension class named in its value",
    "--scheduler-cls": "imports the scheduler class named in its value",
    "--middleware": "imports the ASGI middleware named in its value",
    "--tool-parser-plugin": "imports the Python file named in its value",
    "--reasoning-parser-plugin": "imports the Python file named in its value",
    "--logits-processors": "imports the logits processor classes named in its value",
    "--model-class-overrides": "registers the module:class named in its value as the model",
    "--log-config-file": "hands a logging dictConfig to Python, which can import any callable",
    "--config": "reads options from a YAML file enginekit never sees, refused ones included",
    "--trust-request-chat-template": "renders chat templates that API clients send",
    "--allowed-local-media-path": "lets API clients read the server's files under that path",
    "--tool-server": "connects the model to tool servers; 'demo' runs model-generated code",
}

#: JSON flags some keys of which name code to import: refused only when such a key is set
#: (as ``--flag.key value`` or inside the JSON), unless ``allow_args`` names the flag.
#: ``inductor_passes`` maps pass names to qualified function names that CompilationConfig
#: resolves with ``__import__`` (``config/compilation.py``); ``backend`` is imported the same
#: way when it is not a registered torch backend.
CODE_KEYS: Mapping[str, tuple[str, ...]] = {
    "--kv-transfer-config": ("kv_connector_module_path",),
    "--ec-transfer-config": ("ec_connector_module_path",),
    "--ec-manager-config": ("encoder_cache_manager_cls",),
    "--compilation-config": ("backend", "inductor_passes"),
    "--logging-config": ("pylogging_config_file",),
}

#: Flags that make vLLM read or write where their value says, as root, or reach another
#: host. Refused unless the node config's ``allow_args`` names them. Sources: vLLM 0.34.0
#: ``config/load.py``, ``config/observability.py``, ``config/multimodal.py``,
#: ``config/speculative.py``, ``entrypoints/common/cli_args.py``.
HOST_ACCESS: Mapping[str, str] = {
    "--download-dir": "downloads model weights into the directory it names, as root",
    "--otlp-traces-endpoint": "sends a trace of every request to the collector it names",
    "--mm-encoder-fp8-scale-save-path": "writes a scales file to the path it names, as root",
    "--mm-encoder-fp8-scale-path": "reads a scales file from the path it names, as root",
    "--default-mm-loras": (
        "loads the LoRA adapters it maps modalities to from the repositories or host paths it names"
    ),
    "--spec-model": ("downloads or reads the draft model it names (a dotted class name is imported instead)"),
    # TLS files are the site's: a profile must not pick which host key the server presents.
    "--ssl-keyfile": "loads the TLS private key from the host file it names, as root",
    "--ssl-certfile": "loads the TLS certificate from the host file it names, as root",
    "--ssl-ca-certs": "loads the CA certificates from the host file it names, as root",
}

_EXTRA_CONFIG = (
    "the connector's own settings, which name directories it writes caches to, services it "
    "connects to and modules it imports"
)

#: JSON flags some keys of which name a place vLLM reads or writes, as root, or a model to
#: fetch: refused only when such a key is set, unless ``allow_args`` names the flag (which
#: allows all its keys).
PATH_KEYS: Mapping[str, Mapping[str, str]] = {
    "--compilation-config": {
        "cache_dir": "the directory compiled graphs are written to",
        "debug_dump_path": "the directory compilation debug dumps are written to",
        # Handed to TorchInductor as it is: its options name the C++ compiler it runs
        # (cpp.cxx), the directories it writes and remote caches it reaches.
        "inductor_compile_config": (
            "TorchInductor's own options, which name programs it runs and places it writes"
        ),
    },
    "--profiler-config": {
        "torch_profiler_dir": "the directory profiler traces are written to",
    },
    "--speculative-config": {
        # A repository or directory, or a dotted class name (method custom_class) imported.
        "model": "the draft model it downloads or reads (or the class it imports)",
        # A LoadConfig of its own: load format and download directory included.
        "draft_load_config": "how the draft model is loaded, download directory and load format included",
    },
    "--model-loader-extra-config": {
        "qlora_adapter_name_or_path": "the QLoRA adapter the bitsandbytes loader downloads or reads",
        "tensorizer_uri": "the URI tensorizer streams the weights from",
    },
    # The extra config is handed to the connector unread by vLLM: each connector takes its
    # own keys, and among them are the directory the example connector writes KV files to
    # (shared_storage_path), the services P2pNccl, Mooncake and LMCache connect to
    # (proxy_ip, remote_url, a config file), the module OffloadingConnector imports
    # (spec_module_path) and whole nested connector configs (MultiConnector's connectors).
    # No list of safe keys can keep up with that, so the whole table is refused.
    "--kv-transfer-config": {
        "kv_connector_extra_config": _EXTRA_CONFIG,
        "kv_ip": "the address the connector binds or connects to",
    },
    "--ec-transfer-config": {
        "ec_connector_extra_config": _EXTRA_CONFIG,
        "ec_ip": "the address the connector binds or connects to",
    },
}

#: JSON flags that pick a connector by name, mapped to the key that names it and the
#: connectors a profile may pick without ``allow_args``: vLLM's own, judged to keep to the
#: node and the peers requests name when their extra config is left out
#: (``distributed/kv_transfer/kv_connector/factory.py``). Every other name is refused:
#: ``ExampleConnector`` (``SharedStorageConnector`` before it) and ``ECExampleConnector``
#: write KV or encoder caches as root under /tmp by default; the rest connect to services
#: or read config files of their own; and a name vLLM does not register is imported from
#: ``kv_connector_module_path`` or registered by a plugin, code enginekit cannot judge.
CONNECTORS: Mapping[str, tuple[str, frozenset[str]]] = {
    "--kv-transfer-config": (
        "kv_connector",
        frozenset({"NixlConnector", "OffloadingConnector", "DecodeBenchConnector"}),
    ),
    "--ec-transfer-config": ("ec_connector", frozenset()),
}

#: Flags whose value names the repository or directory part of the model is loaded from:
#: refused unless the value is the profile's model_path itself (which vLLM loads anyway),
#: or the site allows the flag.
MODEL_SOURCES: Mapping[str, str] = {
    "--tokenizer": "loads the tokenizer from the Hugging Face repository or host path it names",
    "--hf-config-path": "loads the model config from the Hugging Face repository or host path it names",
    "--generation-config": (
        "loads the generation config from the host directory it names ('auto' and 'vllm' pass)"
    ),
}
#: Values of ``--generation-config`` that name no directory (``config/model.py``).
GENERATION_CONFIG_WORDS = frozenset({"auto", "vllm"})

#: ``--chat-template`` takes a file path or an inline Jinja template. vLLM opens the value
#: as a file first, whatever it is, then reads it as a template only when it holds '{', '}'
#: or a newline (``entrypoints/chat_utils.py``), and the template is rendered into what
#: ``/tokenize`` returns without the key.
CHAT_TEMPLATE = "--chat-template"

#: Load formats that read the model's own files and nothing else (``LoadConfig.load_format``,
#: ``model_executor/model_loader/__init__.py``; vLLM lowercases the value). Any other is
#: refused unless allowed: those below fetch weights from other hosts, and plugins register
#: loaders by name, so an unknown name is code enginekit cannot judge.
SAFE_LOAD_FORMATS = frozenset(
    """
    auto hf pt safetensors npcache dummy fastsafetensors instanttensor mistral sharded_state
    gguf bitsandbytes
    """.split()
)
REMOTE_LOAD_FORMATS: Mapping[str, str] = {
    "tensorizer": "streams the weights with tensorizer from the URI its extra config names (S3, HTTP)",
    "runai_streamer": "streams the weights from object storage with the Run:ai streamer",
    "runai_streamer_sharded": "streams pre-sharded weights from object storage with the Run:ai streamer",
    "modelexpress": "loads the weights from a peer-to-peer weight service",
}
LOAD_FORMAT = "--load-format"

#: Flags that put a secret on the command line whatever follows them, mapped to what to do
#: instead: always refused. A command line is readable by every local user; the value is
#: never echoed back.
SECRETS: Mapping[str, str] = {
    "--api-key": "the key comes from the shard spec's api_key and reaches vLLM only as VLLM_API_KEY",
}

#: Flags that carry a secret only when given a value, mapped to what to do instead: bare,
#: ``--hf-token`` makes vLLM use the token the node already has.
SECRET_VALUES: Mapping[str, str] = {
    "--hf-token": (
        "give the node the token (HF_TOKEN in the agent's environment, or `hf auth login`); a "
        "bare --hf-token then uses it"
    ),
}

#: What ``allow_args`` may never name: what enginekit sets itself, and every secret flag.
NEVER_ALLOWED: frozenset[str] = frozenset(MANAGED) | frozenset(SECRETS) | frozenset(SECRET_VALUES)


def _every_option() -> frozenset[str]:
    from enginekit_vllm.known import known_options

    return known_options()


#: What ``allow_args`` may name: flags whose risk is the site's to take, and options of a
#: release newer than the option table, which the site vouches for.
ALLOWABLE = Allowable(
    frozenset(CODE_LOADING)
    | frozenset(CODE_KEYS)
    | frozenset(HOST_ACCESS)
    | frozenset(PATH_KEYS)
    | frozenset(MODEL_SOURCES)
    | {CHAT_TEMPLATE, LOAD_FORMAT},
    _every_option,
    underscores=True,
)

#: The flags refused whatever their value unless ``allow_args`` names them (the engine's
#: policy hands these to the core); the JSON keys and the values of the other allowable
#: flags are judged by the plugin's own checks.
RISKY: Mapping[str, str] = {**CODE_LOADING, **HOST_ACCESS}
