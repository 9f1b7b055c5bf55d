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

from enginekit_vllm.flags import (
    CHAT_TEMPLATE,
    CODE_KEYS,
    CODE_LOADING,
    GENERATION_CONFIG_WORDS,
    HOST_ACCESS,
    LOAD_FORMAT,
    MANAGED,
    MODEL_SOURCES,
    PATH_KEYS,
    REMOTE_LOAD_FORMATS,
    SAFE_LOAD_FORMATS,
    SECRETS,
)
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
    | set(MODEL_SOURCES)
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


#: Inline Jinja starts with one of these; a value without them is a path to vLLM.
_JINJA = ("{{", "{%", "{#")


def arg_problems(
    profile_name: str, args: Sequence[str], allowed: Collection[str], *, model_path: str = ""
) -> list[str]:
    """Every pass-through argument vLLM must not get, one sentence each.

    :param model_path: The profile's model, which ``--tokenizer`` and its kind may repeat.
    """
    problems = positional_problems(profile_name, args, SYNTAX, arity=ARITY, engine="vLLM")
    problems += managed_option_problems(profile_name, args, MANAGED, SYNTAX)
    problems += code_loading_problems(
        profile_name, args, {**CODE_LOADING, **HOST_ACCESS}, allowed, SYNTAX, config_key=CONFIG_KEY
    )
    problems += _code_key_problems(profile_name, args, allowed)
    problems += _path_key_problems(profile_name, args, allowed)
    problems += _value_problems(profile_name, args, allowed, model_path)
    problems += _secret_problems(profile_name, args)
    return problems


def chat_template_is_path(value: str) -> bool:
    """Whether vLLM may read ``--chat-template``'s value as a host path rather than a template.

    vLLM opens the value as a file first, whatever it holds. A value with no Jinja
    delimiter is a path (or a built-in template's file name); one with a '/' before its
    first delimiter could name a file through a directory whose name holds the delimiter.
    What is left can only name an entry of the engine's working directory, which profiles
    do not choose: it is read as the inline template it looks like.
    """
    starts = [value.find(mark) for mark in _JINJA if mark in value]
    if not starts:
        return "/" in value
    return "/" in value[: min(starts)]


def _value_problems(
    profile_name: str, args: Sequence[str], allowed: Collection[str], model_path: str
) -> list[str]:
    """Flags refused for some values only: a path where a template or keyword may go, another model."""
    problems = []
    checked = {*MODEL_SOURCES, CHAT_TEMPLATE, LOAD_FORMAT}
    for use in find_options(args, checked, SYNTAX):
        if use.option in allowed or use.value is None:
            continue  # without a value vLLM's parser stops at start: nothing is read
        why = _why_refused(use.option, use.value, model_path)
        if why:
            problems.append(
                f"profile {profile_name!r}: args: {spelling(use.token)!r} ({use.option}) {why}; "
                f'refused unless the site allows it ({CONFIG_KEY} = ["{use.option}"])'
            )
    return problems


def _why_refused(option: str, value: str, model_path: str) -> str | None:
    if option == CHAT_TEMPLATE:
        if not chat_template_is_path(value):
            return None
        return (
            "reads the chat template from the host path it names, as root, and /tokenize shows "
            "it to anyone (a value is a path when it has a '/' before its first '{{', '{%' or "
            "'{#', or anywhere when it has none; inline templates pass)"
        )
    if option == LOAD_FORMAT:
        fmt = value.strip().lower()
        if fmt in SAFE_LOAD_FORMATS:
            return None
        # The format is named only when it is one of vLLM's own: the value is not echoed.
        known = REMOTE_LOAD_FORMATS.get(fmt)
        why = (
            f"{fmt}: {known}"
            if known
            else "a load format this plugin does not know to read only the model's files"
        )
        return f"selects a weight loader that reaches beyond the model's own files ({why})"
    if value == model_path or (option == "--generation-config" and value in GENERATION_CONFIG_WORDS):
        return None
    return f"{MODEL_SOURCES[option]}, not the profile's model_path"


def quantization(args: Sequence[str]) -> str:
    """The ``--quantization`` (or ``-q``) the args ask for, as vLLM reads it; "" for none."""
    return quantization_of(args, SYNTAX)


def _code_key_problems(profile_name: str, args: Sequence[str], allowed: Collection[str]) -> list[str]:
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} ({option}) sets "
        f"{key}, which imports the code it names; refused unless the site "
        f'allows it ({CONFIG_KEY} = ["{option}"])'
        for use, option in _json_uses(args, CODE_KEYS)
        if option not in allowed
        for key in CODE_KEYS[option]
        if _sets_key(use, key)
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
