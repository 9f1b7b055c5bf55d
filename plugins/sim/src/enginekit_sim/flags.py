"""The simulated engine's options as a profile's pass-through arguments see them, and their checks."""

from __future__ import annotations

import argparse
import re
from collections.abc import Collection, Sequence

from enginekit.args import (
    ArgSyntax,
    code_loading_problems,
    find_options,
    managed_option_problems,
    positional_problems,
    spelling,
)

from enginekit_sim.cli import SERVE_OPTIONS, ArgsError, build_parser, option_spellings
from enginekit_sim.settings import number_problems

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
    "--enable-lora": "list the adapters in profile.adapters instead",
    "--lora-modules": "list the adapters in profile.adapters instead",
    "--max-loras": "enginekit sets it to the number of profile.adapters",
    "--kv-events-config": "set profile.kv_events and the shard spec's kv_events_port instead",
    "--threads": "the shard spec's threads sets it",
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


def _serve_options() -> tuple[frozenset[str], dict[str, str]]:
    known, aliases = set(), {}
    for names in option_spellings():
        known.add(names[-1])
        aliases.update(dict.fromkeys(names[:-1], names[-1]))
    return frozenset(known), aliases


KNOWN, ALIASES = _serve_options()
#: The simulator's parser: argparse without abbreviations, no underscores, no dotted keys.
SYNTAX = ArgSyntax(known=KNOWN | set(SECRETS), aliases=ALIASES, underscores=False, abbreviations=False)


def _arity() -> dict[str, int | None]:
    arity: dict[str, int | None] = {"--help": 0}
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

#: How a number must be written in a profile's args. argparse's ``int()``/``float()`` also
#: take ``1_0``, other scripts' digits (``٥``), surrounding blanks, ``inf`` and ``nan``:
#: none is a number a profile author means, so only plain ASCII decimals pass.
_PLAIN = {
    int: re.compile(r"[+-]?[0-9]+\Z"),
    float: re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z"),
}
#: Each numeric option of ``serve`` (canonical spelling) and the type its parser gives it.
NUMERIC: dict[str, type] = {
    names[-1]: keywords["type"] for names, keywords in SERVE_OPTIONS if keywords.get("type") in _PLAIN
}


def problems(name: str, args: Sequence[str], allowed: Collection[str]) -> list[str]:
    """Every reason the simulator refuses ``args`` of profile ``name``, all at once."""
    found = positional_problems(name, args, SYNTAX, arity=ARITY, engine="the simulated engine")
    found += managed_option_problems(name, args, MANAGED, SYNTAX)
    found += [
        f"profile {name!r}: args: {spelling(use.token)!r} sets {use.option}; {SECRETS[use.option]}"
        for use in find_options(args, SECRETS, SYNTAX)
    ]
    found += [
        f"profile {name!r}: args: {spelling(use.token)!r} {EXITING[use.option]}"
        for use in find_options(args, EXITING, SYNTAX)
    ]
    found += code_loading_problems(
        name, args, CODE_LOADING, allowed, SYNTAX, config_key="engines.sim.allow_args"
    )
    for token in args:
        option = SYNTAX.normalise(token)
        if option is not None and option not in SYNTAX.known:
            found.append(
                f"profile {name!r}: args: {spelling(token)!r} is not an option of the simulated engine; "
                f"see `python -m enginekit_sim serve --help`"
            )
    found += [
        f"profile {name!r}: args: {spelling(use.token)!r} ({use.option}) takes a plain decimal "
        f"{'integer' if NUMERIC[use.option] is int else 'number'} (ASCII digits, a sign, "
        f"{'nothing else' if NUMERIC[use.option] is int else 'a point and an exponent'}); "
        f"its value is not one"
        for use in find_options(args, NUMERIC, SYNTAX)
        if use.value is not None and not _PLAIN[NUMERIC[use.option]].match(use.value)
    ]
    if not found:
        # The server's own parser and checks have the last word, so a value it would
        # refuse at start (a bad number, one out of range, an unknown fault) is refused here first.
        try:
            namespace = build_parser().parse_args(["serve", "model", *args])
        except ArgsError as exc:
            found.append(f"profile {name!r}: args: the simulated engine refuses them: {_unvalued(str(exc))}")
        except SystemExit:  # pragma: no cover - only --help exits, refused above
            found.append(f"profile {name!r}: args: they make the simulated engine exit")
        else:
            found += [
                f"profile {name!r}: args: the simulated engine refuses them: {problem}"
                for problem in number_problems(namespace, shown=False)
            ]
    return found


def _unvalued(message: str) -> str:
    """The parser's complaint without the values it quotes: option values are never echoed."""
    message = re.sub(r"(value|choice): '[^']*'", r"\1", message)
    return re.sub(r"unrecognized arguments: .*", "unrecognized arguments (not shown)", message)


def values(args: Sequence[str], option: str) -> list[str]:
    """The values ``args`` give ``option``, read as the simulator's parser reads them."""
    return [use.value for use in find_options(args, {option}, SYNTAX) if use.value is not None]
