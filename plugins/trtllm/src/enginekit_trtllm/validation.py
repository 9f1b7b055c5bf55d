"""The TensorRT-LLM-specific checks of a profile: parallelism, adapters, option values, quantization.

The core refuses what :mod:`enginekit_trtllm.policy` declares (positional words, options
enginekit manages, risky options the site has not allowed, secrets) before these run,
reading the args as Click does (:class:`enginekit_trtllm.clickargs.ClickSyntax`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from enginekit.plugin import GPUInfo, ParsedArgs, Profile, spelling

from enginekit_trtllm.clickargs import missing_value
from enginekit_trtllm.config import TrtllmConfig, has_served_name
from enginekit_trtllm.flags import (
    ARITY,
    CHAT_TEMPLATE,
    CONFIG_KEY,
    JINJA_DELIMITERS,
    MODEL_SOURCES,
    SECRET,
    SERVED_NAME_FLAG,
    UNKNOWN_HINTS,
    VERSION_SETTING,
    first_release,
)
from enginekit_trtllm.quant import quantization_problems

#: A long option named inside a hint's text.
_OPTION_IN_TEXT = re.compile(r"--[A-Za-z0-9][A-Za-z0-9_-]*")
#: Why one shard cannot hold a multi-node replica: trtllm-serve forms its world with MPI.
MULTI_NODE_REASON = (
    "TensorRT-LLM needs one MPI world across the nodes, started by mpirun or srun with every "
    "rank running trtllm-llmapi-launch, and launching each node's shard on its own cannot form it"
)


def problems(profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs, config: TrtllmConfig) -> list[str]:
    """Every TensorRT-LLM-specific problem with ``profile``, all at once."""
    found = list(_shape(profile, config))
    found += arg_problems(profile, args, config)
    found += quantization_problems(profile, args, gpus)
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
    if not profile.served_model_name or has_served_name(config):
        return None
    return (
        f"profile {profile.name!r}: served_model_name {profile.served_model_name!r}: TensorRT-LLM "
        f"{config.release} ({VERSION_SETTING}) has no {SERVED_NAME_FLAG} (it came in "
        f"{first_release(SERVED_NAME_FLAG)}), and clients would have to ask for the model path "
        f"instead; leave served_model_name empty or run a newer release"
    )


def chat_template_is_path(value: str) -> bool:
    """Whether the server may read ``--chat_template``'s value as a host path.

    A value with no Jinja delimiter is a path; one with a '/' before its first delimiter
    could name a file through a directory whose name holds it. What is left can only name
    an entry of the server's working directory, which profiles do not choose.
    """
    starts = [value.find(mark) for mark in JINJA_DELIMITERS if mark in value]
    return "/" in (value[: min(starts)] if starts else value)


def _value_problems(profile: Profile, args: ParsedArgs, config: TrtllmConfig) -> list[str]:
    """Options refused for some values only: a template path, another model's tokenizer."""
    found = []
    for use in args.find({CHAT_TEMPLATE, *MODEL_SOURCES}):
        # The value Click takes, which may start with '-'.
        if use.option in config.allow_args or use.value is None:
            continue  # without a value Click stops at start-up: nothing is read
        if use.option == CHAT_TEMPLATE:
            if not chat_template_is_path(use.value):
                continue
            why = (
                "reads the chat template from the host path it names, as root (a value is a path "
                "when it has a '/' before its first '{{', '{%' or '{#', or anywhere when it has "
                "none; inline templates pass)"
            )
        elif use.value == profile.model_path:
            continue
        else:
            why = f"{MODEL_SOURCES[use.option]}, not the profile's model_path"
        found.append(
            f"profile {profile.name!r}: args: {spelling(use.token)!r} ({use.option}) {why}; "
            f'refused unless the site allows it ({CONFIG_KEY} = ["{use.option}"])'
        )
    return found


def arg_problems(profile: Profile, args: ParsedArgs, config: TrtllmConfig) -> list[str]:
    """Pass-through arguments trtllm-serve would not accept, beyond what the core refuses.

    ``args`` is read as Click reads it: an option that takes a value takes the next
    argument even when it starts with '-', so such a value is no option here.
    """
    name = profile.name
    found = []
    missing = missing_value(args, ARITY)
    if missing is not None:
        found.append(
            f"profile {name!r}: args[{missing}]: {spelling(args.tokens[missing])!r} takes a value, but "
            f"it is the last argument: trtllm-serve would take what enginekit puts after the "
            f"profile's args (its own options file's flag) as that value; give it one"
        )
    found += _value_problems(profile, args, config)
    found += release_problems(profile, args, config)
    return found


def release_problems(profile: Profile, args: ParsedArgs, config: TrtllmConfig) -> list[str]:
    """Options the configured release's ``serve`` would refuse, each with what is known of it.

    The option table judges ("it is from X on", "removed in Y", "renamed to Z", "did you
    mean"); an option no release read has gets this plugin's hint when it has one.
    """
    table = config.options.table
    # allow_args vouches for a risky option's use, or for an option no release read has
    # (a newer one): an option the table knows is still judged by the configured release.
    # Secrets are the core's to refuse, without a second sentence here.
    allowed = {option for option in config.allow_args if option not in table.options} | set(SECRET)
    # Click takes the word after an option as its value, whatever it starts with.
    found = config.options.unknown_problems(
        profile.name, args, allowed=allowed, config_key=CONFIG_KEY, values_take_any_word=True
    )
    hints = {
        f"profile {profile.name!r}: args: {spelling(use.token)!r} is not an option of ": UNKNOWN_HINTS[option]
        for option in set(UNKNOWN_HINTS) - table.options
        for use in args.uses.get(option, ())
    }
    out = []
    for problem in found:
        hint = next((hint for head, hint in hints.items() if problem.startswith(head)), "")
        named = _OPTION_IN_TEXT.findall(hint)
        # A hint naming only what the table's "did you mean" already offers adds nothing.
        if hint and not (named and all(option in problem for option in named)):
            problem = f"{problem}; {hint}"
        out.append(problem)
    return out
