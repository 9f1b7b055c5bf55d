"""The profile checks particular to llama-server, every problem at once.

The core refuses what :mod:`enginekit_llamacpp.policy` declares (positional words, flags
enginekit manages, risky flags the site has not allowed, secrets) before these run: what
is left here is the profile's shape and the flags refused for their value or their name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from enginekit.plugin import OptionUse, ParsedArgs, Profile, spelling

from enginekit_llamacpp.config import LlamaCppConfig
from enginekit_llamacpp.flags import (
    CONFIG_KEY,
    MANAGED,
    NOT_GGUF,
    PRESET_SUFFIXES,
    PRESET_WHY,
    PRIORITY,
    PRIORITY_WHY,
    RISKY,
    SAFE_PRIORITIES,
    SECRET,
)


def profile_problems(profile: Profile, args: ParsedArgs, config: LlamaCppConfig) -> list[str]:
    """What stops ``profile`` from running on the configured llama-server build."""
    allowed = config.allow_args
    where = f"profile {profile.name!r}"
    problems = [f"{where}: {p}" for p in _shape(profile)]
    # Refused by name, or by the GGUF hint below: one sentence each is enough.
    refused = _refused_by_name(config) | frozenset(NOT_GGUF)
    problems += [f"{where}: args: {p}" for p in _glued(args, refused)]
    problems += unknown_problems(profile, args, config, refused)
    problems += [f"{where}: args: {spelling(use.token)!r} {PRESET_WHY}" for use in _presets(args)]
    problems += [
        f"{where}: args: {spelling(use.token)!r} ({use.option}) {PRIORITY_WHY}; refused unless the "
        f'site allows it ({CONFIG_KEY} = ["{use.option}"])'
        for use in args.find(PRIORITY)
        if use.option not in allowed and use.value is not None and _stoi(use.value) not in SAFE_PRIORITIES
    ]
    problems += [
        f"{where}: args: {spelling(use.token)!r} ({use.option}) does not apply to GGUF models; "
        f"{NOT_GGUF[use.option]}"
        for use in args.find(NOT_GGUF)
    ]
    return problems


def _refused_by_name(config: LlamaCppConfig) -> frozenset[str]:
    """The options the core refuses by name (managed, secret, risky and not allowed): one
    sentence each is enough, whatever else is wrong with them."""
    return frozenset(MANAGED) | frozenset(SECRET) | (frozenset(RISKY) - frozenset(config.allow_args))


def unknown_problems(
    profile: Profile, args: ParsedArgs, config: LlamaCppConfig, refused: frozenset[str]
) -> list[str]:
    """The pass-through options the configured build's parser would refuse, one sentence each.

    Options refused whatever the build (``refused``) are left to what refuses them: managed,
    secret and risky ones (``--cpu-range-batch-draft``, which no build read has) to the
    core, by name, and other engines' flags (``--quantization``) to the GGUF hint.
    """
    # llama-server takes the words after an option as its values, whatever they start with.
    problems = config.options.unknown_problems(
        profile.name, args, allowed=config.allow_args, config_key=CONFIG_KEY, values_take_any_word=True
    )
    skipped = tuple(f"profile {profile.name!r}: args: {spelling(use.token)!r} " for use in args.find(refused))
    return [problem for problem in problems if not problem.startswith(skipped)]


def _glued(args: ParsedArgs, refused: frozenset[str]) -> Iterator[str]:
    """``--ctx-size=8``: llama-server looks the whole token up as a name, and stops at start."""
    for uses in args.uses.values():
        for use in uses:
            # Those refused by name need no second sentence; the value is never shown.
            if "=" not in use.token or use.option in refused:
                continue
            name = spelling(use.token)
            yield (
                f"{name!r} is given its value after '=': llama-server has no --option=value form "
                f"(it reads the whole word as an option's name and stops with 'invalid argument'); "
                f"give the value as the next word: {name} VALUE"
            )


#: What ``std::stoi`` reads: leading blanks, a sign, digits; the rest of the text is ignored.
_STOI = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def _stoi(value: str) -> int | None:
    """The number llama-server's integer options take from ``value``, or None when it takes none.

    Its parser reads them with ``std::stoi``, so ``" 3"``, ``"+3"`` and ``"3.9"`` are all 3.
    With no number at all it stops at start, so nothing runs (None is refused anyway).
    """
    match = _STOI.match(value)
    return int(match[1]) if match else None


def _presets(args: ParsedArgs) -> list[OptionUse]:
    # llama-server matches names exactly, so a preset is any long flag with its suffix.
    presets = [option for option in args.uses if option.startswith("--") and option.endswith(PRESET_SUFFIXES)]
    return args.find(presets)


def _shape(profile: Profile) -> Iterator[str]:
    if profile.node_count > 1:
        # llama.cpp spans nodes only with --rpc h1:port,h2:port on the leader, which must
        # know every worker's address up front; a shard spec names the leader's alone.
        yield (
            f"nodes: {profile.node_count} nodes, but llama.cpp spans nodes only over RPC, where "
            f"the leader must be given every worker's address and a shard spec names only the "
            f"leader's; set nodes = 1"
        )
    if profile.pipeline_degree > 1:
        yield (
            f"pp: pipeline parallel degree {profile.pipeline_degree} is not supported: one "
            f"llama-server process splits the layers across the shard's GPUs itself; set pp = 1 "
            f"and tp to the number of GPUs"
        )
    if profile.kv_events:
        yield "kv_events: llama-server publishes no KV-cache events; set kv_events = false"
    yield from _alias(profile)
    for i, adapter in enumerate(profile.adapters):
        if ":" in adapter.path and "://" not in adapter.path:
            # A source URL (hf://, s3://) is fetched to a local path first; commands()
            # checks that one.
            yield f"adapters[{i}]: {colon_problem(adapter.path)}"


def _alias(profile: Profile) -> Iterator[str]:
    name = profile.model_name()
    if "," not in name and name == name.strip():
        return
    field = "served_model_name"
    if not profile.served_model_name:
        field = "model_path (the served name when none is set)"
    yield (
        f"{field}: {name!r} would not be the name clients use: llama-server splits --alias on ',' "
        f"and strips the blanks around each name; set served_model_name to a name without either"
    )


def colon_problem(path: str) -> str:
    """Why an adapter at ``path`` cannot be loaded, for a path containing ':'."""
    return (
        f"path {path!r} contains ':': enginekit loads adapters with --lora-scaled FNAME:SCALE, "
        f"which llama-server splits on every ':'; place the adapter at a path without ':'"
    )
