"""Validation shared by every engine: the seed's ``validateCommon`` and its helpers, all problems at once."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from enginekit.policy.args import (
    ArgSyntax,
    ParsedArgs,
    code_loading_problems,
    managed_option_problems,
    positional_problems,
    secret_option_problems,
    stray_token_problems,
)
from enginekit.policy.engine import EnginePolicy
from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.spec.model import MAX_GPU_INDEX, MAX_NODES, MAX_PARALLEL, GPUInfo, Profile

# Patterns compiled by ``re`` (and kept in its cache) when first used: most plans name no
# adapter and no GPU list, and start-up time counts.
_ADAPTER_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,254}\Z"
#: ``major.minor`` in ASCII digits: ``float()`` also reads `` 8.0``, ``8_0``, ``0x8p0``
#: and full-width digits, none of which a GPU reports.
_CAPABILITY = r"[0-9]{1,3}(?:\.[0-9]{1,3})?\Z"
#: More than any real profile holds; each is scanned by every engine's checks.
MAX_ARGS = 1024
MAX_ENV = 1024
MAX_ADAPTERS = 1024


def bounds_problems(profile: Profile) -> list[str]:
    """The profile's numbers and sizes outside their domain, each naming the field.

    Checked before anything else: an engine's own checks are meaningless on a tensor
    parallel degree of thirty million, and may do work in proportion to it.
    """
    limits = (
        ("tp", profile.tp, MAX_PARALLEL),
        ("pp", profile.pp, MAX_PARALLEL),
        ("gpus_per_node", profile.gpus_per_node, MAX_PARALLEL),
        ("nodes", profile.nodes, MAX_NODES),
        ("dp", profile.dp, MAX_PARALLEL),
        ("dp_per_node", profile.dp_per_node, MAX_PARALLEL),
    )
    problems = [
        f"profile {profile.name!r}: {field}: expected at most {limit}, got {value}"
        for field, value, limit in limits
        if value > limit
    ]
    sizes = (
        ("args", len(profile.args), MAX_ARGS),
        ("env", len(profile.env), MAX_ENV),
        ("adapters", len(profile.adapters), MAX_ADAPTERS),
    )
    problems += [
        f"profile {profile.name!r}: {field}: more than {limit} entries ({size})"
        for field, size, limit in sizes
        if size > limit
    ]
    return problems


def validate_common(
    profile: Profile, gpus: Sequence[GPUInfo], policy: EnvPolicy = DEFAULT_POLICY
) -> list[str]:
    """The checks that apply to every engine; each sentence starts with the profile's name."""
    return [f"profile {profile.name!r}: {p}" for p in _common(profile, gpus, policy)]


def _common(profile: Profile, gpus: Sequence[GPUInfo], policy: EnvPolicy) -> Iterator[str]:
    if not profile.model_path:
        yield "model path is empty"
    elif profile.model_path.startswith("-"):
        yield f"model path {profile.model_path!r} starts with '-', where a parser reads a flag"
    if profile.tp <= 0:
        yield f"tensor parallel degree must be positive, got {profile.tp}"
    if profile.pp < 0:
        yield f"pipeline parallel degree must not be negative, got {profile.pp}"
    if profile.nodes < 0 or profile.gpus_per_node < 0:
        yield "nodes and gpus_per_node must not be negative"
    if profile.dp < 0 or profile.dp_per_node < 0:
        yield "dp and dp_per_node must not be negative"
    if profile.nodes > 1 and profile.gpus_per_node <= 0:
        yield f"gpus_per_node is required for a {profile.nodes}-node profile"
    elif profile.tp > 0 and profile.pp >= 0 and profile.dp >= 0:
        want = profile.per_node * profile.node_count
        dp = f" x DP {profile.data_parallel}" if profile.data_parallel > 1 else ""
        if want != profile.tp * profile.pipeline_degree * profile.data_parallel:
            yield (
                f"{profile.node_count} nodes x {profile.per_node} GPUs does not match "
                f"TP {profile.tp} x PP {profile.pipeline_degree}{dp}"
            )
    for gpu in gpus:
        if not 0 <= gpu.index <= MAX_GPU_INDEX:
            yield f"GPU index {gpu.index} is outside 0-{MAX_GPU_INDEX}"
        if gpu.compute_capability and not re.match(_CAPABILITY, gpu.compute_capability):
            yield (
                f"GPU {gpu.index}: compute capability {gpu.compute_capability!r} is not "
                f"major.minor in digits, such as '9.0'"
            )
    if gpus and len(gpus) < profile.per_shard:
        unit = "node" if profile.per_shard == profile.per_node else "rank"
        yield f"needs {profile.per_shard} GPUs per {unit}, node has {len(gpus)}"
    # A tensor-parallel group must be uniform: mixing classes makes the slowest card set
    # the pace for every collective, and mismatched memory makes the smallest card
    # decide what fits.
    names = list(dict.fromkeys(g.name for g in gpus))
    if len(names) > 1:
        yield (
            f"GPUs are not uniform ({names[0]!r} and {names[1]!r}); a tensor-parallel "
            f"group may not mix GPU types"
        )
    yield from _adapters(profile)
    for key, why in policy.problems(profile.env):
        yield f"env {key}: {why}"
    prefix = f"profile {profile.name!r}: "  # said once, by validate_common
    yield from (p.removeprefix(prefix) for p in stray_token_problems(profile.name, profile.args))


def _adapters(profile: Profile) -> Iterator[str]:
    seen: set[str] = set()
    for i, adapter in enumerate(profile.adapters):
        where = f"adapters[{i}]"
        if not re.match(_ADAPTER_NAME, adapter.name) or ".." in adapter.name:
            # Engines split "name=path" and "a,b" lists and route on the name: only
            # plain names survive every engine's parser.
            yield (
                f"{where}: name {adapter.name!r} must be 1-255 letters, digits, '.', '_' or "
                f"'-', starting with a letter or digit"
            )
        if adapter.name in seen:
            yield f"{where}: name {adapter.name!r} is used twice"
        seen.add(adapter.name)
        if not adapter.path:
            yield f"{where}: path is empty"
        elif adapter.path.startswith("-"):
            yield f"{where}: path {adapter.path!r} starts with '-', where a parser reads a flag"


def require_compute_capability(
    profile: Profile, gpus: Sequence[GPUInfo], min_cap: float, why: str
) -> list[str]:
    """Refuse GPUs below ``min_cap`` for ``why`` (e.g. ``"fp8 quantization"``); unknown capabilities pass.

    An empty capability is unknown and passes. A malformed one also passes here: the
    shared checks already refuse it with its own message, once, whatever the engine.
    """
    problems = []
    for gpu in gpus:
        if not re.match(_CAPABILITY, gpu.compute_capability):
            continue
        cap = float(gpu.compute_capability)
        if cap < min_cap:
            problems.append(
                f"profile {profile.name!r}: {why} needs compute capability {min_cap:.1f}, "
                f"GPU {gpu.index} ({gpu.name}) has {cap:.1f}"
            )
    return problems


def quantization_of(args: Sequence[str] | ParsedArgs, syntax: ArgSyntax | None = None) -> str:
    """The ``--quantization`` the profile asks for, read as the engine's parser would; "" if none."""
    if not isinstance(args, ParsedArgs):
        args = (syntax or _QUANTIZATION).parse(args)
    values = args.values("--quantization")
    return values[-1] if values else ""


_QUANTIZATION = ArgSyntax(known={"--quantization"})


def arg_policy_problems(profile: Profile, args: ParsedArgs, policy: EnginePolicy, engine: str) -> list[str]:
    """What the engine's declared flag policy refuses in ``args``: every problem, once each.

    Positional tokens (when the policy gives ``arity``), managed options, risky options
    the site has not allowed (``engines.<engine>.allow_args``) and secret options.
    """
    problems: list[str] = []
    if policy.arity is not None:
        shown = policy.display_name or engine
        problems += positional_problems(profile.name, args, arity=policy.arity, engine=shown)
    problems += managed_option_problems(profile.name, args, policy.managed_args)
    problems += code_loading_problems(
        profile.name,
        args,
        policy.risky_args,
        policy.allowed_args,
        config_key=f"engines.{engine}.allow_args",
    )
    problems += secret_option_problems(profile.name, args, policy.secret_args)
    return problems
