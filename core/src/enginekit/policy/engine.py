"""What an engine declares about the variables and flags it owns: its policy, stated once.

The core knows nothing about any one engine. Each engine plugin answers the ``policy``
hook with an :class:`EnginePolicy`, and the registry applies it for that engine only:
the namespaces it opens to profiles, the variables it reserves and the ones that carry
its secrets (protected from every profile, whatever the site allows), the names it
denies and why, and how its parser reads pass-through arguments, with the flags
enginekit manages, the flags that load code or reach the host, and the flags that would
put a secret on the command line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import attrs

from enginekit.policy.args import ArgSyntax

#: How many values an option takes: 0 for a flag, n for exactly n, None when unknown or
#: a list. A mapping, or a function of the option's canonical spelling.
ArityTable = Mapping[str, int | None] | Callable[[str], int | None]


def _upper_set(names: Iterable[str]) -> frozenset[str]:
    return frozenset(name.upper() for name in names)


def _upper_tuple(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(name.upper() for name in names)


def _words(names: str | Iterable[str]) -> Iterable[str]:
    return names.split() if isinstance(names, str) else names


def _upper(name: str) -> str:
    return name.upper()


def _upper_keys(table: Mapping[str, str]) -> Mapping[str, str]:
    """Names upper-cased, as every name is compared; what is no table is left to the contract."""
    if not isinstance(table, Mapping):
        return table
    return {(key.upper() if isinstance(key, str) else key): why for key, why in table.items()}


def _option_set(options: Iterable[str]) -> frozenset[str]:
    return frozenset(options)


def _name_set(names: str | Iterable[str]) -> frozenset[str]:
    """Names given as a space-separated string or any iterable, upper-cased."""
    return _upper_set(_words(names))


def _name_tuple(names: str | Iterable[str]) -> tuple[str, ...]:
    return _upper_tuple(_words(names))


@attrs.frozen(cache_hash=True)
class EnvDeny:
    """Variable names a profile may not set, and the one reason that applies to all of them.

    ``names`` are exact, ``prefixes`` and ``suffixes`` match the start and end of a name,
    all compared case-insensitively (a space-separated string or any iterable). A
    **floor** group loads code, redirects trust or carries a credential: a site's
    ``allow`` list cannot open it, only an ``allow_unsafe`` entry naming the variable with
    a reason. When in doubt, it is a floor.
    """

    why: str
    names: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    prefixes: tuple[str, ...] = attrs.field(default=(), converter=_name_tuple)
    suffixes: tuple[str, ...] = attrs.field(default=(), converter=_name_tuple)
    floor: bool = True

    def matches(self, upper: str) -> bool:
        """Whether the upper-case name ``upper`` falls in this group."""
        return upper in self.names or upper.startswith(self.prefixes) or upper.endswith(self.suffixes)


@attrs.frozen(cache_hash=True)
class EnvAlias:
    """A name the engine reads as another: a profile's alias is judged as its target too.

    ``alias`` and ``target`` are full names, or, with ``prefix``, the starts of names: every
    name beginning with ``alias`` then stands for the same name with ``target`` in its
    place (SGLang copies every ``SGL_X`` over ``SGLANG_X`` at start). Compared
    case-insensitively. An alias only ever adds refusals: the name as spelled is judged as
    before, and its target as well, so ``SGL_HOST_IP`` is refused wherever
    ``SGLANG_HOST_IP`` is. ``why`` says where the engine does it, for the messages.
    """

    alias: str = attrs.field(converter=_upper)
    target: str = attrs.field(converter=_upper)
    prefix: bool = False
    why: str = ""

    def read_as(self, upper: str) -> str | None:
        """The name the upper-case ``upper`` stands for under this alias; None when it does not apply."""
        if self.prefix:
            return self.target + upper[len(self.alias) :] if upper.startswith(self.alias) else None
        return self.target if upper == self.alias else None


@attrs.frozen(kw_only=True)
class EnginePolicy:
    """One engine's variables and flags: what profiles may set, what they may not, and why.

    :ivar open_env: Prefixes of the variables profiles may set for this engine (its own
        tuning namespace, ``MYENGINE_``). A full name is its own prefix.
    :ivar reserved_env: Variables this engine generates from the shard's placement or its
        own wiring: no profile sets them, and nothing a site writes opens them.
    :ivar secret_env: Variables that carry a secret to the engine (its API-key variable).
        Reserved like ``reserved_env``; every command naming one in ``secret_env`` must
        declare it here.
    :ivar denied_env: Groups of names this engine would misuse (load code, write files),
        each with its reason; checked before the open namespaces.
    :ivar syntax: How the engine's parser reads options, for every check on ``args``.
    :ivar arity: How many values each option takes; given, every token the parser would
        read as a positional argument is refused.
    :ivar managed_args: Options enginekit sets itself, mapped to what to use instead.
    :ivar risky_args: Options that load code, touch host paths or reach the network,
        mapped to what they do; refused unless ``allowed_args`` names them.
    :ivar secret_args: Options that would put a secret on the command line, mapped to
        what to do instead; always refused.
    :ivar allowed_args: The risky options this site allows (the engine config's
        ``allow_args``), in canonical spelling.
    :ivar display_name: The engine as messages name it (``vLLM``, ``llama-server``).
    :ivar env_aliases: Names the engine reads as other names (:class:`EnvAlias`), for the
        configured release: each is judged as its target as well as by its own spelling.
    :ivar unsafe_env: Variables of the core's floor (the loader's, a shell's, Python's:
        what loads code or redirects trust) that this engine's own commands set, each
        mapped to why it must. The core refuses a floor variable in a command the engine
        builds unless it is named here, and every plan that carries one says so.
    """

    open_env: tuple[str, ...] = attrs.field(default=(), converter=_name_tuple)
    reserved_env: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    secret_env: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    denied_env: tuple[EnvDeny, ...] = attrs.field(default=(), converter=tuple[EnvDeny, ...])
    syntax: ArgSyntax = attrs.field(factory=ArgSyntax)
    arity: ArityTable | None = None
    managed_args: Mapping[str, str] = attrs.field(factory=dict)
    risky_args: Mapping[str, str] = attrs.field(factory=dict)
    secret_args: Mapping[str, str] = attrs.field(factory=dict)
    allowed_args: frozenset[str] = attrs.field(default=frozenset(), converter=_option_set)
    display_name: str = ""
    env_aliases: tuple[EnvAlias, ...] = attrs.field(default=(), converter=tuple[EnvAlias, ...])
    unsafe_env: Mapping[str, str] = attrs.field(factory=dict, converter=_upper_keys)

    def __attrs_post_init__(self) -> None:
        # An option of the tables the syntax does not know would match only when spelled
        # in full: a prefix of it, or an ambiguous one, would slip past every check.
        tables = {*self.managed_args, *self.risky_args, *self.secret_args}
        if not tables <= self.syntax.known:
            object.__setattr__(self, "syntax", attrs.evolve(self.syntax, known=self.syntax.known | tables))

    @property
    def protected_env(self) -> frozenset[str]:
        """Every variable no profile may set for this engine: reserved and secret."""
        return self.reserved_env | self.secret_env


#: The policy of an engine that declares none: nothing opened, nothing reserved.
NO_POLICY = EnginePolicy()
