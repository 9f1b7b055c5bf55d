"""What trtllm-serve's ``serve`` parser accepts, and which of its options enginekit owns or guards."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from enginekit.plugin import Allowable

if TYPE_CHECKING:
    from enginekit.plugin import OptionTable

    from enginekit_trtllm.clickargs import ClickSyntax

#: The interpreter module NVIDIA's own LoRA doc starts (``docs/source/features/lora.md``);
#: the ``trtllm-serve`` console script is ``tensorrt_llm.commands.serve:main``.
MODULE = "tensorrt_llm.commands.serve"
#: ``main`` is a Click ``DefaultGroup`` that treats a first argument that is not a
#: sub-command as ``serve``. Naming ``serve`` means a model path that happens to be
#: spelled like a sub-command (``grpc``, ``disaggregated``) still reaches ``serve``.
SUBCOMMAND = "serve"
#: The flag ``serve`` reads its YAML options from, in every release read (``--config`` is
#: an alias from 1.2.0 on).
OPTIONS_FLAG = "--extra_llm_api_options"
#: The flag that names the served model; the table says which releases have it.
SERVED_NAME_FLAG = "--served_model_name"
#: Where a site allows options, as messages name it.
CONFIG_KEY = "engines.trtllm.allow_args"
#: Where a site says which release its interpreter runs, as messages name it.
VERSION_SETTING = "[engines.trtllm] version"

#: The ``--backend`` choices of the releases whose CLI reference was checked for them: the
#: option's ``Options:`` field in the reference pages the option table was read from
#: (``tools/optiontables/trtllm.py`` prints it when it downloads the pages); the CI-enforced
#: ``tests/unittest/api_stability/references/trtllm_serve_cli.yaml`` @029e223d has the
#: same ``type: Choice(['_autodeploy', 'pytorch'])``.
#: The option table has no place for choices. A release read without an entry here was not
#: checked for them, and no backend is refused for it; a configured release uses the entry
#: of the release read that stands in for it (``ReleaseOptions.read``).
BACKEND_CHOICES: dict[str, tuple[str, ...]] = {
    "1.3.0rc22": ("pytorch", "_autodeploy"),
    "1.3.0rc25": ("pytorch", "_autodeploy"),
    "1.3.0rc29": ("pytorch",),
}


def option_table() -> OptionTable:
    """trtllm-serve serve's options per release (``options_table``), read once per process."""
    from enginekit.plugin import OptionTable

    return OptionTable.from_package("enginekit_trtllm")


def first_release(option: str) -> str:
    """The oldest release read that accepts ``option`` (an option of the table)."""
    table = option_table()
    return table.releases[min(table.option_in[option])]


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
    # It picks the protocol of the gRPC server --grpc starts (1.3.0rc29 on): nothing to
    # choose while enginekit serves HTTP, and no site may allow --grpc itself.
    "--grpc-protocol": (
        "it picks the protocol of the gRPC server that --grpc starts, and enginekit serves the "
        "OpenAI HTTP API, which --grpc replaces"
    ),
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
    # 1.3.0rc25 on: ``_publish_bound_address`` writes "host:port" to the path, as the
    # server's user, creating missing parent directories.
    "--report_addr": "writes the server's address to the host path it names, creating its directories",
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

#: The values each option of any release read takes, from the option table: 0 for a Click
#: flag, 1 for every other option (a ``multiple`` one, one per use).
ARITY: dict[str, int | None]
#: Click matches long options exactly: no prefixes, no ``-``/``_`` folding (a wrong
#: spelling is an error at start-up), but ``--flag=value`` is accepted; an option that
#: takes a value takes the next argument, whatever it is. It knows every option of every
#: release read; which of them the configured release has is ``validation``'s to judge.
SYNTAX: ClickSyntax


def __getattr__(name: str) -> Any:
    # Both are made when first read: `enginekit engines` imports this module for the
    # config's checks, and never reads arguments, so it never reads the table either.
    if name == "ARITY":
        globals()[name] = option_table().arity()  # found directly from now on
        return globals()[name]
    if name == "SYNTAX":
        from enginekit_trtllm.clickargs import ClickSyntax

        table = option_table()
        syntax = ClickSyntax(
            known=table.options, underscores=False, abbreviations=False, dotted=False, arity=table.arity()
        )
        globals()[name] = syntax
        return syntax
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Secrets never go in arguments: any local user can read a command line. trtllm-serve
#: has none of these; they are what another engine's key option looks like.
_NO_KEY = (
    "trtllm-serve has no API key option, and enginekit takes the key from the shard spec's "
    "api_key only; drop it"
)
SECRET: dict[str, str] = dict.fromkeys(("--api_key", "--api-key", "--apikey"), _NO_KEY)

#: Hints for options no release read has, appended to the refusal: options people carry
#: over from other engines, and dashed spellings of worker counts that trtllm-serve spells
#: with underscores (Click folds neither).
UNKNOWN_HINTS: dict[str, str] = {
    "--quantization": "trtllm-serve has none: the checkpoint's own quantization config decides",
    "--model": "the model is the profile's model_path",
    "--tp": "set the profile's tp instead",
    "--input-processor-workers": "trtllm-serve spells it --num_input_processor_workers (1.3.0rc22 on)",
    "--media-load-workers": "trtllm-serve spells it --num_media_load_workers (1.3.0rc22 on)",
}

#: Options refused unless the site allows them, for what they do or for some values.
REFUSED = frozenset(RISKY) | frozenset(MODEL_SOURCES) | {CHAT_TEMPLATE}
#: What no site can allow: what enginekit sets, and what carries a secret.
NEVER_ALLOWED = frozenset(MANAGED) | frozenset(SECRET)
#: What a site may name in ``allow_args``: the refused options, and options no release read
#: has (a newer release's, which the site vouches for). The table is read only when a
#: site names an option this plugin does not refuse.
ALLOWABLE = Allowable(REFUSED, lambda: option_table().options)
