"""One invocation of the command: its arguments, the node config and registry it reads, its output."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from enginekit.base.errors import SpecError
from enginekit.base.exits import EXIT_INVALID
from enginekit.cli import output

# Each loaded when a handler first asks for it: ``--version`` reads no config, and no
# handler pays for machinery it does not use.
if TYPE_CHECKING:
    from enginekit.platform.config import NodeConfig
    from enginekit.platform.registry import Registry
    from enginekit.spec.model import ShardSpec


class Invalid(Exception):
    """Validation failed: every problem listed, with exit status ``code``."""

    def __init__(self, problems: Sequence[str], *, code: int = EXIT_INVALID) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)
        self.code = code


class Run:
    """What a handler works with: the arguments, the environment given, an output buffer, the secrets seen.

    Handlers print their output to :attr:`out`; it reaches stdout when the handler is
    done, with every API key read from a spec masked unless ``--show-secrets``.
    """

    def __init__(
        self, args: argparse.Namespace, environ: Mapping[str, str], *, stdin: IO[str] | None = None
    ) -> None:
        self.args = args
        self.environ = environ
        self.stdin = sys.stdin if stdin is None else stdin
        self.out = io.StringIO()
        #: The API keys of the specs this invocation read: masked in everything it prints.
        self.secrets: list[str] = []
        self._config: NodeConfig | None = None
        self._registry: Registry | None = None

    @property
    def config(self) -> NodeConfig:
        """The node config: ``--config``, else ``$ENGINEKIT_CONFIG``, else the default path if it exists."""
        if self._config is None:
            from enginekit.platform.config import DEFAULT_CONFIG_PATH, load_config

            path: Path | None = getattr(self.args, "config", None)
            if path is not None:
                self._config = load_config(path, required=True)
            elif self.environ.get("ENGINEKIT_CONFIG"):
                self._config = load_config(Path(self.environ["ENGINEKIT_CONFIG"]), required=True)
            else:
                self._config = load_config(DEFAULT_CONFIG_PATH, required=False)
        return self._config

    @property
    def registry(self) -> Registry:
        """The node's engines, as its config and the environment given allow."""
        if self._registry is None:
            from enginekit.platform.config import registry_for

            self._registry = registry_for(self.config, self.environ)
        return self._registry

    def warnings(self) -> list[str]:
        """What the registry noticed that is worth saying; none when no handler built one."""
        return list(self._registry.warnings) if self._registry is not None else []

    def error(self, message: str, *, kind: str = "error") -> None:
        """One message on stderr, secrets masked."""
        output.error(message, kind=kind, secrets=self.secrets)

    def document(self, source: str) -> tuple[Mapping[str, Any], str]:
        """The parsed document ``source`` names (``-``: stdin) and what messages call it."""
        from enginekit.cli.inputs import read_document

        raw, name = read_document(source, self.stdin)
        # Whatever field a key was pasted into (a profile name, an env name, a note), the
        # output shows the mask; --show-secrets is the one way to print it.
        self.secrets.extend(_raw_keys(raw))
        return raw, name

    def load_spec(self, source: str) -> ShardSpec:
        """The shard spec ``source`` names, read from a file or stdin, bounded and strict."""
        return self.spec_from(*self.document(source))

    def spec_from(self, raw: Mapping[str, Any], name: str) -> ShardSpec:
        """The shard spec in an already parsed document."""
        from enginekit.cli.inputs import structure_spec
        from enginekit.spec.documents import looks_like_node_config

        if looks_like_node_config(raw):
            raise SpecError([f"{name}: a node config, not a shard spec; pass it with --config"])
        spec, unknown = structure_spec(raw, lenient=self.config.lenient)
        for problem in unknown:
            self.error(f"{name}: {problem} (ignored: lenient mode)", kind="warning")
        return spec


def _raw_keys(raw: Mapping[str, Any]) -> list[str]:
    """The API key of a raw spec, however it is spelled and whatever holds it."""
    from enginekit.spec.convert import entries_named, strings_in

    # A key sent in a list, or a table, is still the key: every string in it is masked.
    return [text for text in strings_in(entries_named(raw, "api_key")) if text]
