"""The TensorRT-LLM-specific checks of a profile: parallelism, adapters, args, env, quantization."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from enginekit.args import (
    code_loading_problems,
    find_options,
    managed_option_problems,
    positional_problems,
    spelling,
)
from enginekit.model import GPUInfo, Profile

from enginekit_trtllm.clickargs import ClickReading, read
from enginekit_trtllm.config import TrtllmConfig, at_least
from enginekit_trtllm.flags import (
    ARITY,
    CHAT_TEMPLATE,
    JINJA_DELIMITERS,
    KNOWN,
    MANAGED,
    MODEL_SOURCES,
    RISKY,
    SECRET_SPELLINGS,
    SERVED_NAME_SINCE,
    SYNTAX,
    UNKNOWN_HINTS,
)
from enginekit_trtllm.quant import quantization_problems

#: Why one shard cannot hold a multi-node replica: trtllm-serve forms its world with MPI.
MULTI_NODE_REASON = (
    "TensorRT-LLM needs one MPI world across the nodes, started by mpirun or srun with every "
    "rank running trtllm-llmapi-launch, and launching each node's shard on its own cannot form it"
)


def problems(profile: Profile, gpus: Sequence[GPUInfo], config: TrtllmConfig) -> list[str]:
    """Every TensorRT-LLM-specific problem with ``profile``, all at once."""
    found = list(_shape(profile, config))
    found += arg_problems(profile, config)
    found += quantization_problems(profile, gpus)
    return found


def _shape(profile: Profile, config: TrtllmConfig) -> Iterator[str]:
    prefix = f"profile {profile.name!r}"
    if profile.node_count > 1:
        yield f"{prefix}: nodes is {profile.nodes}, but {MULTI_NODE_REASON}; use nodes = 1"
    if profile.adapters and config.backend != "pytorch":
        yield (
            f"{prefix}: adapters: TensorRT-LLM takes LoRA adapters at start-up only on the pytorch "
            f"backend, and this node runs {config.backend!r} ([engines.trtllm] backend); remove the "
            f"adapters or serve the profile where the backend is pytorch"
        )
    if profile.kv_events:
        yield (
            f"{prefix}: kv_events: trtllm-serve publishes no KV-cache events to a port (it only "
            f"answers POST /kv_cache_events); set kv_events = false"
        )
    problem = served_name_problem(profile, config)
    if problem:
        yield problem


def served_name_problem(profile: Profile, config: TrtllmConfig) -> str | None:
    """Why the profile's served name cannot be honoured by the configured release, if it cannot."""
    if not profile.served_model_name or at_least(config.version, SERVED_NAME_SINCE):
        return None
    return (
        f"profile {profile.name!r}: served_model_name {profile.served_model_name!r}: TensorRT-LLM "
        f"{config.version} ([engines.trtllm] version) has no --served_model_name (it came in "
        f"{SERVED_NAME_SINCE}), and clients would have to ask for the model path instead; leave "
        f"served_model_name empty or run a newer release"
    )


ALLOW_KEY = "[engines.trtllm] allow_args"


def chat_template_is_path(value: str) -> bool:
    """Whether the server may read ``--chat_template``'s value as a host path.

    A value with no Jinja delimiter is a path; one with a '/' before its first delimiter
    could name a file through a directory whose name holds it. What is left can only name
    an entry of the server's working directory, which profiles do not choose.
    """
    starts = [value.find(mark) for mark in JINJA_DELIMITERS if mark in value]
    return "/" in (value[: min(starts)] if starts else value)


def _value_problems(profile: Profile, config: TrtllmConfig, reading: ClickReading) -> list[str]:
    """Options refused for some values only: a template path, another model's tokenizer."""
    found = []
    for use in find_options(reading.masked, {CHAT_TEMPLATE, *MODEL_SOURCES}, SYNTAX):
        # The value Click takes, which may start with '-' (the masked copy hides it).
        value = reading.values.get(use.index)
        if use.option in config.allow_args or value is None:
            continue  # without a value Click stops at start-up: nothing is read
        if use.option == CHAT_TEMPLATE:
            if not chat_template_is_path(value):
                continue
            why = (
                "reads the chat template from the host path it names, as root (a value is a path "
                "when it has a '/' before its first '{{', '{%' or '{#', or anywhere when it has "
                "none; inline templates pass)"
            )
        elif value == profile.model_path:
            continue
        else:
            why = f"{MODEL_SOURCES[use.option]}, not the profile's model_path"
        found.append(
            f"profile {profile.name!r}: args: {spelling(use.token)!r} ({use.option}) {why}; "
            f'refused unless the site allows it ({ALLOW_KEY} = ["{use.option}"])'
        )
    return found


def arg_problems(profile: Profile, config: TrtllmConfig) -> list[str]:
    """Pass-through arguments trtllm-serve would not accept, or that enginekit must refuse.

    The args are read as Click reads them first (``clickargs``): an option that takes a
    value takes the next argument even when it starts with '-', so the shared checks get
    a copy in which such a value no longer looks like an option.
    """
    name = profile.name
    reading = read(profile.args, ARITY)
    args = reading.masked
    found = positional_problems(name, args, SYNTAX, arity=ARITY, engine="trtllm-serve")
    found += [
        f"profile {name!r}: args[{index}]: {spelling(args[index])!r} takes a value, but it is the "
        f"last argument: trtllm-serve would take what enginekit puts after the profile's args "
        f"(its own options file's flag) as that value; give it one"
        for index in reading.missing
    ]
    found += managed_option_problems(name, args, MANAGED, SYNTAX)
    found += code_loading_problems(name, args, RISKY, config.allow_args, SYNTAX, config_key=ALLOW_KEY)
    found += _value_problems(profile, config, reading)
    for token in args:
        option = SYNTAX.normalise(token)
        if option is None or option in KNOWN:
            continue
        if option in SECRET_SPELLINGS:
            found.append(
                f"profile {name!r}: args: {spelling(token)!r}: secrets are not allowed in "
                f"args, where any local user can read them, and trtllm-serve has no API key option"
            )
        elif option not in config.allow_args:
            hint = UNKNOWN_HINTS.get(option, "remove it")
            found.append(
                f"profile {name!r}: args: {spelling(token)!r} is not an option of trtllm-serve "
                f"serve (CLI reference @9e7f85f6); {hint}, or if your release has it, add it to "
                f"[engines.trtllm] allow_args"
            )
    return found
