"""The checks particular to SGLang: values of pass-through arguments and quantization, all problems at once.

The core refuses what the policy declares (positional tokens, managed, risky and secret
options) before these run; what is left here depends on an option's value.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

from enginekit.plugin import (
    GPUInfo,
    ParsedArgs,
    Profile,
    load_format_problem,
    quantization_of,
    require_compute_capability,
    spelling,
)

from enginekit_sglang.flags import (
    CHECKSUM,
    DEEPEP_CONFIG,
    EXPERT_LOCATION,
    IB_DEVICE,
    LOAD_FORMAT_OPTIONS,
    MANAGED,
    MODEL_SOURCES,
    NOT_ON_CUDA,
    OTHER_ENGINES,
    QUANTIZATION_CHOICES,
    QUANTIZATION_FLOORS,
    REMOTE_LOAD_FORMATS,
    SAFE_LOAD_FORMATS,
    SECRETS,
    TEMPLATES,
    VALUE_CHECKED,
    WEIGHT_CACHE_MODE,
)

if TYPE_CHECKING:
    from enginekit_sglang.config import SglangConfig

ALLOW_KEY = "engines.sglang.allow_args"


def arg_problems(profile: Profile, args: ParsedArgs, config: SglangConfig) -> list[str]:
    """What is wrong with the profile's pass-through arguments, read as SGLang reads them.

    Options the configured release's parser lacks, then the values of those it has.
    """
    name = profile.name
    return [
        *_underscores(name, args, config),
        *_unknown(profile, args, config),
        *_inline_watermark(name, args),
        *_value_problems(profile, args, config.allow_args),
    ]


def _unknown(profile: Profile, args: ParsedArgs, config: SglangConfig) -> list[str]:
    """Options the release would refuse, from its option table, with other engines' names explained.

    Underscore spellings are left to :func:`_underscores`, whose sentence says what to write,
    and managed options to the core, whose sentence names the profile field to set instead
    (a rename would point at another option enginekit manages: ``--enable-ep-moe``'s ``--ep-size``).
    """
    dashed = {
        option: uses for option, uses in args.uses.items() if "_" not in option and option not in MANAGED
    }
    if len(dashed) < len(args.uses):
        args = ParsedArgs(args.tokens, args.syntax, MappingProxyType(dashed))
    problems = config.options.unknown_problems(
        profile.name, args, allowed=config.allow_args, config_key=ALLOW_KEY
    )
    hints = {
        f"profile {profile.name!r}: args: {spelling(use.token)!r} is not an option of": OTHER_ENGINES[option]
        for option, uses in args.uses.items()
        if option in OTHER_ENGINES
        for use in uses
    }
    if not hints:
        return problems
    return [
        next((f"{problem} ({hint})" for start, hint in hints.items() if problem.startswith(start)), problem)
        for problem in problems
    ]


def _value_problems(profile: Profile, args: ParsedArgs, allowed: Collection[str]) -> Iterator[str]:
    """Options refused for some values only: a path where a name may go, another model, a remote loader."""
    for use in args.find(VALUE_CHECKED):
        if use.option in allowed or use.value is None:
            continue  # a bare --model-checksum checks model_path; the others stop SGLang's parser
        why = _why_refused(use.option, use.value, profile.model_path)
        if why:
            yield (
                f"profile {profile.name!r}: args: {spelling(use.token)!r} ({use.option}) {why}; "
                f'refused unless the site allows it ({ALLOW_KEY} = ["{use.option}"])'
            )


def _why_refused(option: str, value: str, model_path: str) -> str | None:
    if option in TEMPLATES:
        # A built-in template's name has no '/'; anything with one is a host path.
        return (
            f"{TEMPLATES[option]} (a value with '/' is a path; built-in names pass)" if "/" in value else None
        )
    if option in LOAD_FORMAT_OPTIONS:
        return load_format_problem(value, SAFE_LOAD_FORMATS, REMOTE_LOAD_FORMATS)
    if option == CHECKSUM:
        return "reads the checksums file or repository it names (given alone, it checks model_path)"
    if option == EXPERT_LOCATION:
        if value.strip().lower().endswith((".pt", ".json")):
            return (
                "reads the expert placement from the host file it names, as root ('trivial' and "
                "inline JSON pass)"
            )
        return None
    if option == DEEPEP_CONFIG:
        if _is_json_object(value):
            return None
        return "reads the DeepEP config from the host file it names, as root (inline JSON passes)"
    if option == IB_DEVICE:
        if not value.strip().lower().endswith(".json"):
            return None
        return (
            "reads the per-GPU device mapping from the host file it names, as root (a value "
            "ending in .json is a file; device names and inline JSON pass)"
        )
    if option == WEIGHT_CACHE_MODE:
        if value == "off":
            return None
        return (
            "shares the model weights through a Unix socket under /tmp: 'client' loads them "
            "from whatever process listens there, which any local user can start, and "
            "'daemon' serves them there ('off' passes)"
        )
    if value == model_path:
        return None
    return f"{MODEL_SOURCES[option]}, not the profile's model_path"


def _is_json_object(value: str) -> bool:
    """Whether SGLang's JSON reader takes ``value`` as it is, rather than as a file name.

    It uses orjson, which refuses the NaN and Infinity that Python's reader takes; a
    value either reader refuses is the name of a file to SGLang.
    """

    def refuse(constant: str) -> object:
        raise ValueError(constant)

    try:
        return isinstance(json.loads(value, parse_constant=refuse), dict)
    except ValueError:
        return False


def _underscores(name: str, args: ParsedArgs, config: SglangConfig) -> Iterator[str]:
    # SGLang refuses them at parse time, so nothing is bypassed; refusing here says
    # why in the profile's terms instead of as a crash at launch. The parsed table
    # holds every option spelling once, so no token is read again.
    spelled = [found for option, found in args.uses.items() if option.startswith("--") and "_" in option]
    uses = sorted((use for found in spelled for use in found), key=lambda use: use.index)
    for use in uses:
        option = spelling(use.token)
        dashed = option.replace("_", "-")
        # Offer the dashed spelling only where the configured release has it: --api_key's
        # would be refused too, and --max_model_len's is vLLM's, not SGLang's.
        if not config.options.accepts(dashed):
            advice = f"and {config.options.name} has no {dashed} either"
        elif dashed in MANAGED or dashed in SECRETS:
            advice = f"and {dashed!r} itself is enginekit's to set, from the shard spec"
        else:
            advice = f"write {dashed!r}"
        yield (
            f"profile {name!r}: args: {option!r}: SGLang does not accept underscores in "
            f"option names; {advice}"
        )


def _inline_watermark(name: str, args: ParsedArgs) -> Iterator[str]:
    # --watermark-config takes a path or inline JSON; inline, the key is on the command line.
    for value in args.values("--watermark-config"):
        if value.lstrip().startswith("{"):
            yield (
                f"profile {name!r}: args: --watermark-config given inline puts the watermark key "
                f"on the command line, where every local user can read it; give the path of a "
                f"file readable only by the engine's user"
            )


def quantization_problems(profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs) -> list[str]:
    """An unknown method, one the CUDA build lacks, or GPUs below the method's floor."""
    method = quantization_of(args)
    if not method:
        return []
    where = f"profile {profile.name!r}: args: --quantization {method!r}"
    if method not in QUANTIZATION_CHOICES:
        # argparse would stop the launch with "invalid choice"; say it before placement.
        return [f"{where} is not a choice SGLang accepts; use one of {', '.join(QUANTIZATION_CHOICES)}"]
    if gpus and method in NOT_ON_CUDA:
        return [f"{where}: {NOT_ON_CUDA[method]}"]
    floor = QUANTIZATION_FLOORS.get(method)
    if floor is None:
        return []
    return require_compute_capability(profile, gpus, floor, f"{method} quantization")


#: Vocabulary-parallel LM head over the attention-TP group: SGLang asserts data-parallel
#: attention is on ("Please enable dp attention"; 0.5.23: "requires attention DP").
DP_LM_HEAD = "--enable-dp-lm-head"


def parallel_problems(profile: Profile, args: ParsedArgs, config: SglangConfig) -> list[str]:
    """Data and expert parallel the configured release cannot do, and options that need them."""
    from enginekit.plugin import parse_version

    from enginekit_sglang.dataparallel import profile_problems

    problems = profile_problems(profile, parse_version(config.release), kv_events=profile.kv_events)
    if profile.data_parallel < 2 and args.find({DP_LM_HEAD}):
        problems.append(
            f"profile {profile.name!r}: args: {DP_LM_HEAD} needs data-parallel attention, which SGLang "
            f"runs when the profile's dp is above 1"
        )
    return problems


def served_name_problems(profile: Profile) -> list[str]:
    """A served name SGLang's parser would read as an option."""
    if profile.served_model_name.startswith("-"):
        return [
            f"profile {profile.name!r}: served_model_name {profile.served_model_name!r} starts "
            f"with '-', which SGLang's parser reads as an option; rename it"
        ]
    return []
