"""The simulated engine's options as a profile's pass-through arguments see them, and their checks."""

from __future__ import annotations

import argparse
import functools
import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from enginekit_sim.commandline import (
    API_KEY_ENV,
    CPU_FALLBACK_ENV,
    SERVE_OPTIONS,
    ArgsError,
    build_parser,
    option_spellings,
)
from enginekit_sim.limits import number_problems

if TYPE_CHECKING:
    from enginekit.plugin import ArgSyntax, EnginePolicy, ParsedArgs

#: The engine as messages name it.
DISPLAY_NAME = "the simulated engine"
#: Options enginekit sets from the shard spec: a profile giving them would win over the
#: spec (argparse keeps the last value), so each is refused with the field to use.
MANAGED: dict[str, str] = {
    "--host": "set the shard spec's bind_addr instead",
    "--port": "set the shard spec's http_port instead",
    "--served-model-name": "set profile.served_model_name instead",
    "--tensor-parallel-size": "set profile.tp instead",
    "--pipeline-parallel-size": "set profile.pp instead",
    "--nnodes": "set profile.nodes (and the shard spec's nnodes) instead",
    "--node-rank": "the shard spec's rank sets it",
    "--master-addr": "the shard spec's leader_addr sets it",
    "--master-port": "the shard spec's leader_port sets it",
    "--headless": "the shard spec's rank sets it: every rank but 0 is headless",
    "--data-parallel-size": "set profile.dp instead",
    "--data-parallel-size-local": "set profile.dp_per_node instead",
    "--data-parallel-start-rank": "the replica's layout sets it from the shard spec's dp_rank",
    "--data-parallel-rank": "the replica's layout sets it from the shard spec's dp_rank",
    "--data-parallel-address": "the shard spec's leader_addr sets it",
    "--data-parallel-rpc-port": "the shard spec's leader_port sets it",
    "--data-parallel-hybrid-lb": "set profile.dp_balancing = 'hybrid' instead",
    "--data-parallel-external-lb": "set profile.dp_balancing = 'external' instead",
    "--enable-expert-parallel": "set profile.expert_parallel instead",
    "--all2all-backend": "set profile.all2all instead",
    "--enable-lora": "list the adapters in profile.adapters instead",
    "--lora-modules": "list the adapters in profile.adapters instead",
    "--max-loras": "enginekit sets it to the number of profile.adapters",
    "--kv-events-config": "set profile.kv_events and the shard spec's kv_events_port instead",
    "--threads": "the shard spec's threads sets it",
    # Managed although vLLM's profiles may give it: here only placement's reservation is
    # memory; a profile sizes the simulated cache in blocks.
    "--kv-cache-memory-bytes": (
        "the shard spec's kv_cache_mib sets it on a CPU shard; size the cache with "
        "--num-gpu-blocks-override instead"
    ),
}
#: Options no profile may pass: a key on a command line is readable by every local user.
SECRETS: dict[str, str] = {
    "--api-key": "the API key reaches the engine through its environment only; set the shard spec's api_key",
}
#: Accepted by the simulator for parity with vLLM, and refused like vLLM's unless allowed.
CODE_LOADING: dict[str, str] = {
    "--trust-remote-code": "would run the model repository's own code in a real engine",
}
#: Options that end the process instead of serving.
EXITING: dict[str, str] = {"--help": "prints the help and exits instead of serving"}
#: Every variable the plugin's commands generate besides placement: no profile sets them.
GENERATED_ENV = frozenset({CPU_FALLBACK_ENV})
#: The variable the API key travels in.
SECRET_ENV = frozenset({API_KEY_ENV})


def _serve_options() -> tuple[frozenset[str], dict[str, str]]:
    known, aliases = set(), {}
    for names in option_spellings():
        known.add(names[-1])
        aliases.update(dict.fromkeys(names[:-1], names[-1]))
    return frozenset(known), aliases


KNOWN, ALIASES = _serve_options()
#: The simulator's parser: argparse without abbreviations, no underscores, no dotted keys.
#: ``--api-key`` is known so that it is refused as a secret, not as an unknown option.
#: Made when first read (``_syntax``; the module's ``__getattr__`` for the name): `enginekit
#: engines` imports this module for the config's checks, and never reads arguments.
SYNTAX: ArgSyntax


@functools.cache
def _syntax() -> ArgSyntax:
    from enginekit.plugin import ArgSyntax

    return ArgSyntax(known=KNOWN | set(SECRETS), aliases=ALIASES, underscores=False, abbreviations=False)


def __getattr__(name: str) -> Any:
    if name == "SYNTAX":
        globals()[name] = syntax = _syntax()  # found directly from now on
        return syntax
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _arity() -> dict[str, int | None]:
    # --api-key takes one value, as vLLM's does: a token after it is its value, and one
    # after that a stray positional.
    arity: dict[str, int | None] = {"--help": 0, **dict.fromkeys(SECRETS, 1)}
    for names, keywords in SERVE_OPTIONS:
        action, nargs = keywords.get("action"), keywords.get("nargs")
        # store_true and BooleanOptionalAction (and its --no- twin) take no value; a
        # list (nargs "+") takes any number; the rest, "append" included, one per use.
        takes = 0 if action is not None and action != "append" else None if nargs else 1
        arity[names[-1]] = takes
        if action is argparse.BooleanOptionalAction:
            arity["--no-" + names[-1][2:]] = 0
    return arity


ARITY = _arity()


def policy(allowed: Collection[str]) -> EnginePolicy:
    """The simulated engine's policy, with the code-loading options this site ``allowed``.

    It opens no variable namespace: the server reads no tuning variable, and ``-I`` keeps
    the interpreter from reading ``PYTHON*`` ones.
    """
    from enginekit.plugin import EnginePolicy  # imported when a plan first asks: listing engines never does

    return EnginePolicy(
        reserved_env=GENERATED_ENV,
        secret_env=SECRET_ENV,
        syntax=_syntax(),
        arity=ARITY,
        managed_args=MANAGED,
        risky_args=CODE_LOADING,
        secret_args=SECRETS,
        allowed_args=allowed,
        display_name=DISPLAY_NAME,
    )


#: How a number must be written in a profile's args. argparse's ``int()``/``float()`` also
#: take ``1_0``, other scripts' digits (``٥``), surrounding blanks, ``inf`` and ``nan``:
#: none is a number a profile author means, so only plain ASCII decimals pass. Compiled by
#: ``re`` when a profile first gives one: `enginekit engines` imports this module.
_PLAIN = {
    int: r"[+-]?[0-9]+\Z",
    float: r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z",
}
#: Each numeric option of ``serve`` (canonical spelling) and the type its parser gives it.
NUMERIC: dict[str, type] = {
    names[-1]: keywords["type"] for names, keywords in SERVE_OPTIONS if keywords.get("type") in _PLAIN
}


def problems(name: str, args: ParsedArgs) -> list[str]:
    """Every reason the simulator refuses the values in ``args`` of profile ``name``, all at once.

    The core has already refused what the :func:`policy` declares (positional tokens,
    managed, secret and code-loading options); these are the simulator's own checks.
    """
    from enginekit.plugin import spelling

    known = _syntax().known
    found = [
        f"profile {name!r}: args: {spelling(use.token)!r} {EXITING[use.option]}" for use in args.find(EXITING)
    ]
    unknown = sorted(
        # A bare '--' is the core's to refuse (it ends option parsing for every engine).
        (
            use
            for option, uses in args.uses.items()
            if option not in known
            for use in uses
            if use.token != "--"
        ),
        key=lambda use: use.index,
    )
    found += [
        f"profile {name!r}: args: {spelling(use.token)!r} is not an option of {DISPLAY_NAME}; "
        f"see `python -m enginekit_sim serve --help`"
        for use in unknown
    ]
    found += [
        f"profile {name!r}: args: {spelling(use.token)!r} ({use.option}) takes a plain decimal "
        f"{'integer' if NUMERIC[use.option] is int else 'number'} (ASCII digits, a sign, "
        f"{'nothing else' if NUMERIC[use.option] is int else 'a point and an exponent'}); "
        f"its value is not one"
        for use in args.find(NUMERIC)
        if use.value is not None and not re.match(_PLAIN[NUMERIC[use.option]], use.value)
    ]
    if not found:
        found += _server_problems(name, args.tokens)
    return found


#: The server's parser, built once, here: argparse reads the terminal size and the
#: locale's variables while it builds one, and hooks read nothing of the machine.
_SERVER_PARSER = build_parser()


def _server_problems(name: str, args: Sequence[str]) -> list[str]:
    """What the server's own parser and checks refuse, so a value it would refuse at start is refused here.

    Tokens it cannot place (stray positionals, ``--api-key``) are left to the core's
    positional and secret checks, which have refused them already: reporting them again
    would say the same thing twice.
    """
    try:
        namespace, _unplaced = _SERVER_PARSER.parse_known_args(["serve", "model", *args])
    except ArgsError as exc:
        return [f"profile {name!r}: args: {DISPLAY_NAME} refuses them: {_unvalued(str(exc))}"]
    except SystemExit:  # pragma: no cover - only --help exits, refused above
        return [f"profile {name!r}: args: they make {DISPLAY_NAME} exit"]
    return [
        f"profile {name!r}: args: {DISPLAY_NAME} refuses them: {problem}"
        for problem in number_problems(namespace, shown=False)
    ]


def _unvalued(message: str) -> str:
    """The parser's complaint without the values it quotes: option values are never echoed."""
    message = re.sub(r"(value|choice): '[^']*'", r"\1", message)
    # A flag given a value after '=' (``--enforce-eager=x``): argparse quotes the value.
    return re.sub(r"ignored explicit argument '[^']*'", "ignored explicit argument (not shown)", message)


def values(args: Sequence[str], option: str) -> list[str]:
    """The values ``args`` give ``option``, read as the simulator's parser reads them."""
    return _syntax().parse(args).values(option)
