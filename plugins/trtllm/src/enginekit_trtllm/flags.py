"""What trtllm-serve's ``serve`` parser accepts, and which of its options enginekit owns or guards."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from enginekit.plugin import parse_version

if TYPE_CHECKING:
    from enginekit_trtllm.clickargs import ClickSyntax

#: The interpreter module NVIDIA's own LoRA doc starts (``docs/source/features/lora.md``);
#: the ``trtllm-serve`` console script is ``tensorrt_llm.commands.serve:main``.
MODULE = "tensorrt_llm.commands.serve"
#: ``main`` is a Click ``DefaultGroup`` that treats a first argument that is not a
#: sub-command as ``serve``. Naming ``serve`` means a model path that happens to be
#: spelled like a sub-command (``grpc``, ``disaggregated``) still reaches ``serve``.
SUBCOMMAND = "serve"
#: The flag ``serve`` reads its YAML options from (``--config`` is a newer alias).
OPTIONS_FLAG = "--extra_llm_api_options"
#: The first release whose notes list ``--served_model_name`` ("Add --served-model-name
#: option to serve command (#11711)", v1.3.0rc7); the CI reference spells it with underscores.
SERVED_NAME_SINCE = parse_version("1.3.0rc7")
#: Where a site allows options, as messages name it.
CONFIG_KEY = "engines.trtllm.allow_args"

#: Every ``serve`` option in ``tests/unittest/api_stability/references/trtllm_serve_cli.yaml``
#: @9e7f85f6, the CI-enforced list of the CLI surface, aliases included.
KNOWN: frozenset[str] = frozenset(
    """
    --agent_percentage --agent_types --allow_request_chat_template --backend --chat_template
    --context_parallel_size --cp_size --custom_module_dirs --custom_tokenizer --disagg_cluster_uri
    --enable_attention_dp --enable_chunked_prefill --enable_visual_gen --config --extra_llm_api_options
    --fail_fast_on_attention_window_too_large --free_gpu_memory_fraction
    --kv_cache_free_gpu_memory_fraction --gpus_per_node --grpc --host --kv_cache_dtype --log_level
    --max_batch_size --max_beam_width --max_num_tokens --max_seq_len --media_io_kwargs
    --metadata_server_config_file --middleware --cluster_size --moe_cluster_parallel_size --ep_size
    --moe_expert_parallel_size --num_postprocess_workers --input-processor-workers
    --media-load-workers --otlp_traces_endpoint --pipeline_parallel_size --pp_size --port
    --post_processor_hook --reasoning_parser --hf_revision --revision --served_model_name
    --server_role --no-telemetry --telemetry --tensor_parallel_size --tp_size --tokenizer
    --tool_parser --trust_remote_code --video_pruning_rate --visual_gen_args
    """.split()
) | {
    # The name --visual_gen_args replaced; serve keeps it as an alias of the same option.
    "--extra_visual_gen_options",
}

_TP = "set the profile's tp instead"
_PP = "set the profile's pp instead"
_CP = "the world is tp x pp GPUs; context parallelism would need more than the shard has"
_OPTIONS = (
    "enginekit writes the options file itself (LoRA adapters from the profile's adapters, "
    "Prometheus metrics), and a YAML of any LLM API option would bypass every argument check"
)
#: Options enginekit sets from the profile, the shard or the site, with what to use instead.
MANAGED: dict[str, str] = {
    "--host": "the shard's bind_addr decides where it listens",
    "--port": "the shard's http_port decides where it listens",
    "--tensor_parallel_size": _TP,
    "--tp_size": _TP,
    "--pipeline_parallel_size": _PP,
    "--pp_size": _PP,
    "--context_parallel_size": _CP,
    "--cp_size": _CP,
    "--gpus_per_node": "placement decides the GPUs; set the profile's gpus_per_node instead",
    "--served_model_name": "set the profile's served_model_name instead",
    "--backend": "the site sets it ([engines.trtllm] backend)",
    "--extra_llm_api_options": _OPTIONS,
    "--config": _OPTIONS,
    "--grpc": "enginekit health-checks and routes to the OpenAI HTTP API, which --grpc replaces",
}

#: Options that import or run code, or make the server reach outside the node, each with
#: why; refused unless the site names them in ``[engines.trtllm] allow_args``.
RISKY: dict[str, str] = {
    "--trust_remote_code": "runs Python code shipped with the model from the Hugging Face Hub",
    "--custom_module_dirs": "imports every Python module in the directories it names",
    "--custom_tokenizer": "takes a Python import path and imports it",
    "--middleware": "imports ASGI middleware from the Python import path it names",
    "--post_processor_hook": "imports a post-processing hook class from the import path it names",
    "--disagg_cluster_uri": "registers this server with the disaggregated cluster it names",
    "--metadata_server_config_file": "registers this server with the metadata server a file names",
    "--otlp_traces_endpoint": "sends request traces to the endpoint it names",
    "--allow_request_chat_template": "renders the Jinja chat templates API clients send",
    # A VisualGenArgs YAML: model and component paths, parallelism, compilation and
    # quantization, none of which enginekit can check, for the same reason it writes the
    # LLM options file itself. Unlike that file enginekit has nothing to put in this one,
    # so a site that serves visual generation may allow it.
    "--visual_gen_args": (
        "reads VisualGen options from a YAML file enginekit never sees, model paths and parallelism included"
    ),
    "--extra_visual_gen_options": (
        "reads VisualGen options from a YAML file enginekit never sees, model paths and parallelism included"
    ),
}

#: Options whose value names the repository or directory part of the model is loaded from:
#: refused unless the value is the profile's model_path itself (which the server loads
#: anyway), or the site names the option in ``allow_args``.
MODEL_SOURCES: dict[str, str] = {
    "--tokenizer": "loads the tokenizer from the Hugging Face repository or host path it names",
}
#: ``--chat_template`` takes a file path or the template itself: the server opens the value
#: as a file first and reads it as a template only when that fails and it holds '{', '}'
#: or a newline (``serve/chat_utils.py``, the same reading as vLLM's).
CHAT_TEMPLATE = "--chat_template"
#: Inline Jinja starts with one of these; a value without them is a path.
JINJA_DELIMITERS = ("{{", "{%", "{#")

#: The ``serve`` options that are Click flags (``is_flag`` in the CLI reference) and take
#: no value; every other option takes exactly one (a ``multiple`` one, one per use).
FLAGS = frozenset(
    """
    --allow_request_chat_template --enable_attention_dp --enable_chunked_prefill
    --enable_visual_gen --fail_fast_on_attention_window_too_large --grpc --telemetry
    --no-telemetry --trust_remote_code
    """.split()
)
ARITY: dict[str, int | None] = {option: 0 if option in FLAGS else 1 for option in KNOWN}

#: Click matches long options exactly: no prefixes, no ``-``/``_`` folding (a wrong
#: spelling is an error at start-up), but ``--flag=value`` is accepted; an option that
#: takes a value takes the next argument, whatever it is. Made when first read (the
#: module's ``__getattr__``): `enginekit engines` imports this module for the config's
#: checks, and never reads arguments.
SYNTAX: ClickSyntax


def __getattr__(name: str) -> Any:
    if name == "SYNTAX":
        from enginekit_trtllm.clickargs import ClickSyntax

        syntax = ClickSyntax(known=KNOWN, underscores=False, abbreviations=False, dotted=False, arity=ARITY)
        globals()[name] = syntax  # found directly from now on
        return syntax
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Secrets never go in arguments: any local user can read a command line. trtllm-serve
#: has none of these; they are what another engine's key option looks like.
_NO_KEY = (
    "trtllm-serve has no API key option, and enginekit takes the key from the shard spec's "
    "api_key only; drop it"
)
SECRET: dict[str, str] = dict.fromkeys(("--api_key", "--api-key", "--apikey"), _NO_KEY)

#: Hints for options people carry over from other engines.
UNKNOWN_HINTS: dict[str, str] = {
    "--quantization": "trtllm-serve has none: the checkpoint's own quantization config decides",
    "--model": "the model is the profile's model_path",
    "--tp": "set the profile's tp instead",
}

#: Options refused unless the site allows them, for what they do or for some values.
REFUSED = frozenset(RISKY) | frozenset(MODEL_SOURCES) | {CHAT_TEMPLATE}
#: What no site can allow: what enginekit sets, and what carries a secret.
NEVER_ALLOWED = frozenset(MANAGED) | frozenset(SECRET)
_LONG_OPTION = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_-]*\Z")


class Allowable(Collection[str]):
    """The options a site may name in ``allow_args``.

    Those refused by default (:data:`REFUSED`), and any long option the CLI reference
    does not know: an option of a newer release, refused until the site vouches for it.
    An option every profile may use already is no allowance, so naming one is a mistake.
    Iterating gives the refused ones, the list a message can show.
    """

    def __init__(self, refused: Iterable[str], known: Iterable[str]) -> None:
        self._refused = frozenset(refused)
        self._known = frozenset(known)

    def __contains__(self, flag: object) -> bool:
        if not isinstance(flag, str):
            return False
        return flag in self._refused or (flag not in self._known and bool(_LONG_OPTION.match(flag)))

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._refused))

    def __len__(self) -> int:
        return len(self._refused)


ALLOWABLE = Allowable(REFUSED, KNOWN)
