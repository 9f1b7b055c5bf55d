"""Pass-through arguments read the way vLLM's parser reads them, and the values the plugin refuses.

The flags refused whatever their value (enginekit's own, the risky ones, the secrets) are
declared in the engine's policy and refused by the core; what is left here looks at
values: JSON keys, connectors, templates, model sources, load formats, token values.
Every check looks options up in the one :class:`ParsedArgs` the core read.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator

import attrs
from enginekit.plugin import (
    ArgSyntax,
    OptionUse,
    ParsedArgs,
    ReleaseOptions,
    load_format_problem,
    quantization_of,
    secret_option_problems,
    spelling,
)

from enginekit_vllm.flags import (
    CHAT_TEMPLATE,
    CODE_KEYS,
    CODE_LOADING,
    CONNECTORS,
    GENERATION_CONFIG_WORDS,
    HOST_ACCESS,
    LOAD_FORMAT,
    MANAGED,
    MODEL_SOURCES,
    PATH_KEYS,
    REMOTE_LOAD_FORMATS,
    SAFE_LOAD_FORMATS,
    SECRET_VALUES,
    SECRETS,
)
from enginekit_vllm.known import known_options, option_arity, short_aliases

CONFIG_KEY = "engines.vllm.allow_args"

#: vLLM's ``FlexibleArgumentParser``: ``_`` for ``-``, ``--flag.key value`` for JSON keys,
#: ``--flag=value``, unambiguous prefixes (argparse's ``allow_abbrev``, left on), and
#: single-dash spellings (``-tp``), which argparse abbreviates too. Every option of every
#: release read is known, so an older release's flag is caught wherever it is refused.
SYNTAX = ArgSyntax(
    known=known_options()
    | set(MANAGED)
    | set(CODE_LOADING)
    | set(CODE_KEYS)
    | set(HOST_ACCESS)
    | set(PATH_KEYS)
    | set(MODEL_SOURCES)
    | set(SECRETS)
    | set(SECRET_VALUES),
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
#: The flags judged by their value: some values name a host path or another model.
_VALUE_CHECKED = frozenset({*MODEL_SOURCES, CHAT_TEMPLATE, LOAD_FORMAT})


def arg_problems(
    profile_name: str,
    args: ParsedArgs,
    allowed: Collection[str],
    *,
    model_path: str = "",
    options: ReleaseOptions | None = None,
) -> list[str]:
    """Every pass-through argument vLLM must not get, one sentence each.

    :param args: The profile's args, read once with :data:`SYNTAX`.
    :param allowed: The flags the site allows (``engines.vllm.allow_args``).
    :param model_path: The profile's model, which ``--tokenizer`` and its kind may repeat.
    :param options: What the configured release's parser accepts: an option it would
        refuse is refused here, before anything starts.
    """
    problems = []
    if options is not None:
        problems += options.unknown_problems(profile_name, args, allowed=allowed, config_key=CONFIG_KEY)
    problems += _code_key_problems(profile_name, args, allowed)
    problems += _path_key_problems(profile_name, args, allowed)
    problems += _connector_problems(profile_name, args, allowed)
    problems += _value_problems(profile_name, args, allowed, model_path)
    problems += _secret_value_problems(profile_name, args)
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
    profile_name: str, args: ParsedArgs, allowed: Collection[str], model_path: str
) -> list[str]:
    """Flags refused for some values only: a path where a template or keyword may go, another model."""
    problems = []
    for use in args.find(_VALUE_CHECKED):
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
        return load_format_problem(value, SAFE_LOAD_FORMATS, REMOTE_LOAD_FORMATS)
    if value == model_path or (option == "--generation-config" and value in GENERATION_CONFIG_WORDS):
        return None
    return f"{MODEL_SOURCES[option]}, not the profile's model_path"


def quantization(args: ParsedArgs) -> str:
    """The ``--quantization`` (or ``-q``) the args ask for, as vLLM reads it; "" for none."""
    return quantization_of(args)


def _code_key_problems(profile_name: str, args: ParsedArgs, allowed: Collection[str]) -> list[str]:
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} ({option}) sets "
        f"{key}, which imports the code it names; refused unless the site "
        f'allows it ({CONFIG_KEY} = ["{option}"])'
        for use, option in _json_uses(args, CODE_KEYS)
        if option not in allowed
        for key in CODE_KEYS[option]
        if _sets_key(use, key)
    ]


def _path_key_problems(profile_name: str, args: ParsedArgs, allowed: Collection[str]) -> list[str]:
    return [
        f"profile {profile_name!r}: args: {spelling(use.token)!r} ({option}) sets {key}, "
        f'{why}, as root; refused unless the site allows it ({CONFIG_KEY} = ["{option}"])'
        for use, option in _json_uses(args, PATH_KEYS)
        if option not in allowed and not _refused_as_code(use, option)
        for key, why in PATH_KEYS[option].items()
        if _sets_key(use, key)
    ]


def _refused_as_code(use: OptionUse, option: str) -> bool:
    """Whether the code-key check already refuses ``use`` for an escape in a value it cannot decode.

    The suspicion is the same for every key of the flag, and so is the remedy: one
    refusal says it, where one per key would repeat it.
    """
    head = spelling(use.token)
    return (
        option in CODE_KEYS
        and "." not in head
        and use.value is not None
        and "\\" in use.value
        and _pairs(use.value) is None
    )


#: Connectors vLLM registers that write caches to a host directory even with no extra config.
_STORAGE_CONNECTORS = frozenset({"ExampleConnector", "SharedStorageConnector", "ECExampleConnector"})


def _connector_problems(profile_name: str, args: ParsedArgs, allowed: Collection[str]) -> list[str]:
    """A KV or encoder-cache connector other than the few that keep to the node and its peers."""
    problems = []
    for use, option in _json_uses(args, CONNECTORS):
        key, safe = CONNECTORS[option]
        if option in allowed or _refused_as_code(use, option):
            continue
        names = _connector_names(use, key)
        if names is None or not names <= safe:
            problems.append(
                f"profile {profile_name!r}: args: {spelling(use.token)!r} ({option}) sets {key} "
                f"to {_connector_why(names, safe)}; refused unless the site allows it "
                f'({CONFIG_KEY} = ["{option}"])'
            )
    return problems


def _connector_why(names: frozenset[str] | None, safe: frozenset[str]) -> str:
    # A name is shown only when it is one of vLLM's own: the value is never echoed.
    if names and names & _STORAGE_CONNECTORS:
        shown = ", ".join(sorted(names & _STORAGE_CONNECTORS))
        return f"{shown}, which writes caches as root under a host directory (/tmp by default)"
    passing = ", ".join(sorted(safe)) if safe else "none does"
    if names is None:
        return f"a connector this plugin cannot read from the value (only these pass: {passing})"
    return (
        "a connector this plugin has not judged to keep to the node: other names are imported from "
        "a module path or registered by plugins, and vLLM's other connectors connect to services "
        f"or read files of their own (only these pass: {passing})"
    )


def _connector_names(use: OptionUse, key: str) -> frozenset[str] | None:
    """The connector names ``use`` selects (empty for none), or None when the value cannot be read."""
    head = spelling(use.token)
    if "." in head:
        if _key(head.split(".")[1]) != key:
            return frozenset()
        if use.value is None:
            return frozenset()  # without a value vLLM's parser stops at start
        # A dotted value is JSON when it parses as JSON ('"NixlConnector"'), text otherwise.
        import json  # here: only a profile that sets a JSON flag needs it

        try:
            value: object = json.loads(use.value)
        except ValueError:
            value = use.value
        return frozenset({value}) if isinstance(value, str) else None
    if use.value is None:
        return frozenset()
    pairs = _pairs(use.value)
    if pairs is None:
        return _connector_names_in_text(use.value, key)
    names: set[str] = set()
    for name, value in pairs:
        if _key(str(name)) != key or value is None:
            continue
        if not isinstance(value, str):
            return None
        names.add(value)
    return frozenset(names)


def _connector_names_in_text(value: str, key: str) -> frozenset[str] | None:
    """The names a value JSON cannot read gives ``key``: every mention must be a plain string."""
    spelled = key.replace("_", "[_-]")
    mentions = re.findall(rf"{spelled}(?![\w-])", value)
    found = re.findall(rf'"{spelled}"\s*:\s*"([A-Za-z0-9_]*)"', value)
    if "\\" in value or len(found) != len(mentions):
        return None
    return frozenset(found)


#: A number with a size suffix (``80m``, ``1.5Gi``) that vLLM expands before reading the JSON.
#: Compiled by ``re`` when a JSON flag is first read: most profiles set none.
_HUMAN_NUMBER = r"(?<![\w.])\d+(?:\.\d+)?[kKmMgGtT]i?(?![\w.])"
_JSON_STRING = r'"(?:[^"\\]|\\.)*"'


class _Pairs(list[tuple[str, object]]):
    """A JSON object as its key-value pairs, in order, a key given twice kept twice."""


def _pairs(value: str) -> list[tuple[str, object]] | None:
    """The top-level pairs of a JSON flag's value as vLLM decodes it ([] for a non-object).

    None when it cannot be decoded. vLLM expands numbers written with a size suffix
    (``"cpu_bytes_to_use": 80m``) before it reads the JSON; they are read as 0 here, since
    only keys and strings matter. Every pair of a key given twice is kept, so a refused
    value cannot hide behind a later or an earlier one.
    """
    import json  # here: only a profile that sets a JSON flag needs it

    for text in (value, _expand_numbers(value)):
        try:
            data = json.loads(text, object_pairs_hook=_Pairs)
        except ValueError:
            continue
        return data if isinstance(data, _Pairs) else []
    return None


def _expand_numbers(value: str) -> str:
    parts, last = [], 0
    for match in re.finditer(_JSON_STRING, value):
        parts.append(re.sub(_HUMAN_NUMBER, "0", value[last : match.start()]))
        parts.append(match.group())
        last = match.end()
    parts.append(re.sub(_HUMAN_NUMBER, "0", value[last:]))
    return "".join(parts)


def _json_uses(args: ParsedArgs, options: Collection[str]) -> Iterator[tuple[OptionUse, str]]:
    """Each use of one of the JSON ``options``, with the option it sets.

    ``-O`` counts as ``--compilation-config`` too: it was that option's short form
    before ``--optimization-level`` took it over.
    """
    for use in args.find(options):
        yield use, use.option
    if "--compilation-config" in options:
        for use in args.find(("--optimization-level",)):
            if spelling(use.token).startswith(_OLD_COMPILATION):
                yield use, "--compilation-config"


def _sets_key(use: OptionUse, key: str) -> bool:
    head = spelling(use.token)
    if "." in head:
        # ``--kv-transfer-config.kv_connector_module_path x``; ``+`` appends to a list.
        return _key(head.split(".")[1]) == key
    if head.startswith(_OLD_COMPILATION) and head != _OLD_COMPILATION:
        # ``-O3``: a level, never a key (as the syntax reads it, the value would be "3").
        return False
    if use.value is None:
        return False
    pairs = _pairs(use.value)
    if pairs is None:
        # A value this plugin cannot decode may still be one vLLM reads: the key can be
        # there, spelled out or hidden behind a \u escape its JSON reader decodes.
        return key in use.value.replace("-", "_") or "\\" in use.value
    return any(_key(name) == key for name, _ in pairs)


def _key(name: str) -> str:
    return name.rstrip("+").replace("-", "_")


def _secret_value_problems(profile_name: str, args: ParsedArgs) -> list[str]:
    """A secret flag given a value; bare, it uses what the node has (the core refuses the rest).

    Said in the core's words, for the uses with a value only; the token is never echoed.
    """
    valued = {
        option: uses
        for option in SECRET_VALUES
        if (uses := tuple(use for use in args.find((option,)) if use.value is not None))
    }
    if not valued:
        return []
    return secret_option_problems(profile_name, attrs.evolve(args, uses=valued), SECRET_VALUES)
