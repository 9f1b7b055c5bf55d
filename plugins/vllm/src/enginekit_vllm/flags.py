"""The flags pass-through arguments may not set, and why: enginekit's own, risky ones, secrets."""

from __future__ import annotations

from collections.abc import Mapping

_PLACEMENT = (
    "set profile.nodes (with gpus_per_node); the shard spec's rank, leader_addr and leader_port "
    "place each node, and the node config's engines.vllm.multinode picks Ray or native"
)
_DATA_PARALLEL = (
    "enginekit runs one data-parallel rank per replica on the GPUs placement gave it: add replicas instead"
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
#: Sources: vLLM 0.34.0 ``engine/arg_utils.py``, ``entrypoints/common/cli_args.py`` and the
#: reference's security §3.1.
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

#: JSON flags one key of which names code to import: refused only when that key is set
#: (as ``--flag.key value`` or inside the JSON), unless ``allow_args`` names the flag.
CODE_KEYS: Mapping[str, str] = {
    "--kv-transfer-config": "kv_connector_module_path",
    "--ec-transfer-config": "ec_connector_module_path",
    "--ec-manager-config": "encoder_cache_manager_cls",
    "--compilation-config": "backend",
    "--logging-config": "pylogging_config_file",
}

#: Flags that make vLLM write where their value says, as root, or reach another host.
#: Refused unless the node config's ``allow_args`` names them. Sources: vLLM 0.34.0
#: ``config/load.py``, ``config/observability.py``, ``config/multimodal.py``.
HOST_ACCESS: Mapping[str, str] = {
    "--download-dir": "downloads model weights into the directory it names, as root",
    "--otlp-traces-endpoint": "sends a trace of every request to the collector it names",
    "--mm-encoder-fp8-scale-save-path": "writes a scales file to the path it names, as root",
}

#: JSON flags some keys of which name a place vLLM writes to, as root: refused only when
#: such a key is set, unless ``allow_args`` names the flag (which allows all its keys).
PATH_KEYS: Mapping[str, Mapping[str, str]] = {
    "--compilation-config": {
        "cache_dir": "the directory compiled graphs are written to",
        "debug_dump_path": "the directory compilation debug dumps are written to",
    },
    "--profiler-config": {
        "torch_profiler_dir": "the directory profiler traces are written to",
    },
}

#: Flags that carry a secret, mapped to (refused even without a value?, what to do instead).
#: A command line is readable by every local user; the value is never echoed back.
SECRETS: Mapping[str, tuple[bool, str]] = {
    "--api-key": (
        True,
        "the key comes from the shard spec's api_key and reaches vLLM only as VLLM_API_KEY",
    ),
    "--hf-token": (
        False,
        "give the node the token (HF_TOKEN in the agent's environment, or `hf auth login`); a "
        "bare --hf-token then uses it",
    ),
}

#: What ``allow_args`` may name: only flags whose risk is the site's to take.
ALLOWABLE: frozenset[str] = (
    frozenset(CODE_LOADING) | frozenset(CODE_KEYS) | frozenset(HOST_ACCESS) | frozenset(PATH_KEYS)
)
