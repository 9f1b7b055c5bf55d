"""Pass-through arguments read the way vLLM's parser reads them, and the ones the policy refuses."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence

from enginekit.args import (
    ArgSyntax,
    OptionUse,
    code_loading_problems,
    find_options,
    managed_option_problems,
    positional_problems,
    spelling,
)
from enginekit.checks import quantization_of

from enginekit_vllm.flags import CODE_KEYS, CODE_LOADING, HOST_ACCESS, MANAGED, PATH_KEYS, SECRETS
from enginekit_vllm.known import KNOWN_OPTIONS, option_arity, short_aliases

CONFIG_KEY = "engines.vllm.allow_args"

#: vLLM's ``FlexibleArgumentParser``: ``_`` for ``-``, ``--flag.key value`` for JSON keys,
#: ``--flag=value``, unambiguous prefixes (argparse's ``allow_abbrev``, left on), and
#: single-dash spellings (``-tp``), which argparse abbreviates too. Every flag of the
#: tables is known even where 0.34.0 lacks it, so an older release's flag is caught.
SYNTAX = ArgSyntax(
    known=KNOWN_OPTIONS
    | set(MANAGED)
    | set(CODE_LOADING)
    | set(CODE_KEYS)
    | set(HOST_ACCESS)
    | set(PATH_KEYS)
    | set(SECRETS),
    aliases=short_aliases(),
    underscores=True,
    abbreviations=True,
    dotted=True,
)
ARITY = option_arity()
#: In older releases (0.11 among them) ``-O`` spelled ``--compilation-config``:
#: ``-O.cache_dir /x`` and ``-O '{"cache_dir": "/x"}'`` set its keys there.
_OLD_COMPILATION = "-O"


def arg_problems(profile_name: str, args: Sequence[str], allowed: Collection[str]) -> list[str]:
    """Every pass-through argument vLLM must not get, one sentence each."""
    problems = positional_problems(profile_name, args, SYNTAX, arity=ARITY, engine="vLLM")
    problems += managed_option_problems(profile_name, args, MANAGED, SYNTAX)
    problems += code_loading_problems(
        profile_name, args, {**CODE_LOADING, **HOST_ACCESS}, allowed, SYNTAX, config_key=CONFIG_KEY
    )
    problems += _code_key_problems(profile_name, args, allowed)
    problems += _path_key_problems(profile_name, args, allowed)
    problems += _secret_problems(profile_name, args)
    return problems


def quantization(args: Sequence[str]) -> str:
    """The ``--quantization`` (or ``-q``) the args ask for, as vLLM reads it; "" for none."""
    return quantization_of(args, SYNTAX)


def _code_key_problems(profile_name: str, args: Sequence[str], allowed: Collection[str]) -> list[str]:
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} ({option}) sets "
        f"{CODE_KEYS[option]}, which imports the code it names; refused unless the site "
        f'allows it ({CONFIG_KEY} = ["{option}"])'
        for use, option in _json_uses(args, CODE_KEYS)
        if option not in allowed and _sets_key(use, CODE_KEYS[option])
    ]


def _path_key_problems(profile_name: str, args: Sequence[str], allowed: Collection[str]) -> list[str]:
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} ({option}) sets {key}, "
        f'{why}, as root; refused unless the site allows it ({CONFIG_KEY} = ["{option}"])'
        for use, option in _json_uses(args, PATH_KEYS)
        if option not in allowed
        for key, why in PATH_KEYS[option].items()
        if _sets_key(use, key)
    ]


def _json_uses(args: Sequence[str], options: Collection[str]) -> Iterator[tuple[OptionUse, str]]:
    """Each use of one of the JSON ``options``, with the option it sets.

    ``-O`` counts as ``--compilation-config`` too: it was that option's short form
    before ``--optimization-level`` took it over.
    """
    for use in find_options(args, options, SYNTAX):
        yield use, use.option
    if "--compilation-config" in options:
        for use in find_options(args, {"--optimization-level"}, SYNTAX):
            if spelling(use.token).startswith(_OLD_COMPILATION):
                yield use, "--compilation-config"


def _sets_key(use: OptionUse, key: str) -> bool:
    head = spelling(use.token)
    if "." in head:
        # ``--kv-transfer-config.kv_connector_module_path x``; ``+`` appends to a list.
        return _key(head.split(".")[1]) == key
    if head.startswith(_OLD_COMPILATION) and head != _OLD_COMPILATION:
        # ``-O3``: a level, never a key (as find_options reads it, the value would be "3").
        return False
    if use.value is None:
        return False
    try:
        data = json.loads(use.value)
    except ValueError:
        # vLLM also reads numbers like 80m that JSON does not; the key can still be there,
        # spelled out or hidden behind a \u escape its JSON reader decodes.
        return key in use.value.replace("-", "_") or "\\" in use.value
    return isinstance(data, dict) and any(_key(str(name)) == key for name in data)


def _key(name: str) -> str:
    return name.rstrip("+").replace("-", "_")


def _secret_problems(profile_name: str, args: Sequence[str]) -> list[str]:
    # The token is not echoed: it may hold the secret (--api-key=...).
    return [
        f"profile {profile_name!r}: args[{use.index}]: {use.option} puts a secret on the "
        f"command line, which every local user can read; {SECRETS[use.option][1]}"
        for use in _secret_uses(args)
    ]


def _secret_uses(args: Sequence[str]) -> Iterator[OptionUse]:
    for use in find_options(args, SECRETS, SYNTAX):
        always, _ = SECRETS[use.option]
        if always or use.value is not None:
            yield use
