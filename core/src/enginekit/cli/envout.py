"""The formats of ``enginekit env``: shell ``export`` lines, dotenv lines, JSON."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable

import attrs


@attrs.frozen
class EnvView:
    """What ``env`` shows: the variables, why each is set, and what was left out or dropped."""

    env: dict[str, str]
    why: dict[str, str]
    omitted: list[str]
    notes: list[str]
    dropped: list[dict[str, str]]
    #: Variables that are not secret but hold the API key (a profile's own): named.
    holding_key: list[str] = attrs.field(factory=list)


def write_env(view: EnvView, form: str, *, explain: bool) -> str:
    """``view`` in the format named (one of ``ENV_FORMATS``)."""
    return _WRITERS[form](view, explain)


def _shell(view: EnvView, explain: bool) -> str:
    # Every value is quoted exactly as render quotes argv, so `eval "$(enginekit env …)"`
    # sets variables and never runs what a profile value holds.
    return _lines(view, explain, lambda key, value: f"export {key}={shlex.quote(value)}")


def _dotenv(view: EnvView, explain: bool) -> str:
    # KEY=value as docker's --env-file reads it: no quoting, which is safe only because a
    # value can hold no newline (the env policy and the plugin contract refuse them).
    return _lines(view, explain, lambda key, value: f"{key}={value}")


def _lines(view: EnvView, explain: bool, line: Callable[[str, str], str]) -> str:
    lines = [f"# note: {_one_line(note)}" for note in view.notes]
    lines += [f"# {key}: a secret, left out (--show-secrets includes it)" for key in view.omitted]
    lines += [
        f"# {key}: holds the API key, though no secret variable of the engine" for key in view.holding_key
    ]
    for key, value in view.env.items():
        if explain:
            lines.append(f"# {_one_line(view.why[key])}")
        lines.append(line(key, value))
    return "".join(f"{text}\n" for text in lines)


def _json(view: EnvView, explain: bool) -> str:
    return json.dumps(attrs.asdict(view), indent=2) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


_WRITERS: dict[str, Callable[[EnvView, bool], str]] = {"shell": _shell, "dotenv": _dotenv, "json": _json}
