"""``VllmConfig``: the node config's ``[engines.vllm]`` section."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import attrs
from enginekit.plugin import Version
from enginekit.plugin import allow_args as allow_args_field
from enginekit.plugin import executable as executable_field
from enginekit.plugin import version as version_field

from enginekit_vllm.flags import ALLOWABLE, NEVER_ALLOWED
from enginekit_vllm.versions import NEWEST, ReleaseFacts, facts_for, vllm_release

if TYPE_CHECKING:
    from enginekit.plugin import ReleaseOptions

MULTINODE_MODES = ("native", "ray")


def _check_multinode(_: Any, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in MULTINODE_MODES:
        raise ValueError(
            f'multinode {value!r} is not a way vLLM spans nodes: expected "native" '
            f'(vLLM\'s own multiprocessing, --nnodes) or "ray" (a Ray cluster)'
        )


@attrs.frozen(kw_only=True)
class VllmConfig:
    """How this node runs vLLM::

    [engines.vllm]
    version = "0.34.0"          # the installed release: flags and checks follow it
    multinode = "native"        # or "ray"
    allow_args = ["--trust-remote-code"]
    """

    #: The ``vllm`` program when the agent installed no build (``<build>/bin/vllm`` otherwise).
    executable: str = executable_field("vllm")
    #: The ``ray`` program for ``multinode = "ray"`` (``<build>/bin/ray`` from a build).
    ray_executable: str = executable_field("ray")
    #: The installed vLLM release, final releases only (every fact is keyed by one). Left
    #: empty, the newest release the plugin has read is assumed, and every plan says so.
    version: str = version_field(final_only=True)
    #: How a replica spans nodes. ``native`` (the default) is vLLM's own multiprocessing
    #: executor: no extra daemon, no unauthenticated Ray cluster running as root, and each
    #: node keeps its own NCCL settings (under Ray, vLLM copies the server's ``NCCL_*`` and
    #: ``VLLM_*`` variables to every worker). It needs vLLM 0.11.1 or newer.
    multinode: str = attrs.field(default="native", validator=_check_multinode)
    #: Flags the site allows in profiles although they load code, write where their value
    #: says or reach other hosts (see ``flags.ALLOWABLE``), in canonical spelling.
    allow_args: tuple[str, ...] = allow_args_field(ALLOWABLE, never=NEVER_ALLOWED)

    @functools.cached_property
    def release(self) -> Version:
        """The configured release, or the newest read when none is: for the tables' facts."""
        return vllm_release(self.version or NEWEST)

    @property
    def options(self) -> ReleaseOptions:
        """What the configured release's ``vllm serve`` parser accepts, from the option table.

        A plain property: the table remembers each release's view, and the table's module
        is imported only by the configs that check arguments.
        """
        from enginekit_vllm.known import SETTING, table

        return table().for_release(self.version or None, setting=SETTING)

    @functools.cached_property
    def facts(self) -> ReleaseFacts:
        """What the plugin's tables say about the configured release, looked up once."""
        return facts_for(self.release)
