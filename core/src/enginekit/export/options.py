"""What a site says about its scheduler, from flags or the node config's ``[export]``, checked."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

import attrs

from enginekit.base.errors import ProblemsError, SpecError
from enginekit.base.text import unsafe_text
from enginekit.policy import carriers
from enginekit.run.options import MAX_SECONDS, STARTUP_TIMEOUT
from enginekit.spec.convert import structure

#: How long a leader may take to load its model before Kubernetes gives up on it: what
#: ``enginekit run`` itself allows by default, and for the same reason.
DEFAULT_STARTUP_TIMEOUT = STARTUP_TIMEOUT
#: The variable the API key travels in, into ``enginekit run --api-key-from-env``.
DEFAULT_KEY_ENV = carriers.KEY_VARIABLE
MAX_REPLICAS = 10_000

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\Z")
#: A LeaderWorkerSet's name: it names the headless Service too, so a DNS-1035 label (a letter first).
DNS_1035_LABEL = re.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?\Z")
_DNS_SUBDOMAIN = re.compile(
    r"(?=.{1,253}\Z)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z"
)
_SECRET_KEY = re.compile(r"[-._a-zA-Z0-9]{1,253}\Z")
_LABEL_NAME = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)\Z")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?\Z")
_QUANTITY = re.compile(r"([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?\Z")
#: An image reference: registry/path:tag@digest, nothing a YAML or shell reader treats specially.
_IMAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/:@-]{0,511}\Z")
#: What an ``#SBATCH`` line may hold: no shell quoting happens there, so nothing needs it.
_SBATCH_WORD = re.compile(r"[A-Za-z0-9_.:,@+%=-]{1,256}\Z")
#: A path written into a script or a manifest: absolute, plain characters, nothing to quote.
_PATH = re.compile(r"/[A-Za-z0-9_./+@%=-]{0,1023}\Z")

#: The GPUs each pod asks for: the count is the placement's, never an option's.
GPU_RESOURCE = "nvidia.com/gpu"
#: How a LeaderWorkerSet's name is described in a message.
LWS_NAME_RULE = (
    "a DNS-1035 label: lower-case letters, digits and '-', starting with a letter, "
    "at most 63 characters (it names the set's headless Service)"
)
T = TypeVar("T")


class ExportError(ProblemsError):
    """An export option or site setting that cannot be used; every problem listed."""


@attrs.frozen(kw_only=True)
class LWSOptions:
    """``enginekit export lws``: the site's Kubernetes facts."""

    #: The image with enginekit and the engine in it; required.
    image: str = ""
    namespace: str = ""
    #: The LeaderWorkerSet's name; the replica id when not given.
    name: str = ""
    #: The Secret holding the API key, ``NAME`` or ``NAME:KEY``; ``<name>-api-key:api-key``
    #: when the replica has a key and none is given.
    secret: str = ""
    #: Extended resources each pod asks for beside its GPUs, by name: the RDMA device plugin's.
    rdma_resources: Mapping[str, int] = attrs.field(factory=dict)
    node_selector: Mapping[str, str] = attrs.field(factory=dict)
    #: How many replicas (LeaderWorkerSet groups).
    replicas: int = 1
    #: The size limit of the pod's ``/dev/shm``; none when empty.
    shm_size: str = ""
    #: Seconds the leader may take to become healthy; also ``enginekit run --startup-timeout``.
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    #: The node config inside the image, for ``enginekit run --config``; its default when empty.
    node_config: str = ""


@attrs.frozen(kw_only=True)
class SlurmOptions:
    """``enginekit export slurm``: the site's Slurm facts."""

    partition: str = ""
    time: str = ""
    account: str = ""
    #: Every rank a task on one node, at the replica's own addresses (tests, one big host).
    one_node: bool = False
    #: A file on the first node holding the key, read into :attr:`api_key_env` at start.
    api_key_file: str = ""
    #: The variable the key arrives in from the submitter (or from :attr:`api_key_file`).
    api_key_env: str = DEFAULT_KEY_ENV
    #: A variable a site's TaskProlog sets to the node's management address, for the
    #: engines to listen on; every address when empty.
    bind_addr_env: str = ""
    #: ``enginekit`` on the nodes: a name on their PATH or an absolute path.
    enginekit: str = "enginekit"
    node_config: str = ""
    #: ``enginekit run --startup-timeout``; enginekit run's own default when 0.
    startup_timeout: float = 0.0


@attrs.frozen(kw_only=True)
class ExportConfig:
    """The node config's ``[export]`` section."""

    lws: LWSOptions = LWSOptions()
    slurm: SlurmOptions = SlurmOptions()


def site_options(section: Mapping[str, Any]) -> ExportConfig:
    """The node config's raw ``[export]`` section, structured strictly.

    :raises ExportError: naming each problem as ``config.export.lws.image: …``.
    """
    try:
        return structure(section, ExportConfig, path="config.export")[0]
    except SpecError as exc:
        raise ExportError(exc.problems) from None


def overridden(options: T, flags: Mapping[str, Any]) -> T:
    """``options`` with each flag given (not ``None``) in its place; tables merged, flags winning."""
    changes: dict[str, Any] = {}
    for name, value in flags.items():
        if value is None:
            continue
        current = getattr(options, name)
        changes[name] = {**current, **value} if isinstance(current, Mapping) else value
    return attrs.evolve(options, **changes)  # type: ignore[misc]


def check_lws(options: LWSOptions) -> None:
    """:raises ExportError: every problem with the options, each naming its flag."""
    problems = list(_lws(options))
    if problems:
        raise ExportError(problems)


def check_slurm(options: SlurmOptions) -> None:
    """:raises ExportError: every problem with the options, each naming its flag."""
    problems = list(_slurm(options))
    if problems:
        raise ExportError(problems)


def _lws(o: LWSOptions) -> Iterator[str]:
    if not o.image:
        yield "--image: required: the image with enginekit and the engine (or [export.lws] image)"
    elif not _IMAGE.match(o.image):
        yield f"--image: expected an image reference (registry/name:tag), got {shown(o.image)}"
    if o.namespace and not _DNS_LABEL.match(o.namespace):
        yield f"--namespace: expected a namespace (a lower-case DNS label), got {shown(o.namespace)}"
    if o.name and not DNS_1035_LABEL.match(o.name):
        yield f"--name: expected {LWS_NAME_RULE}, got {shown(o.name)}"
    if o.secret:
        name, _, key = o.secret.partition(":")
        if not _DNS_SUBDOMAIN.match(name):
            yield f"--secret: expected a Secret name (lower-case DNS name), got {shown(name)}"
        if key and not _SECRET_KEY.match(key):
            yield f"--secret: expected a key of letters, digits, '-', '_' or '.', got {shown(key)}"
    for resource, count in o.rdma_resources.items():
        if not _qualified(resource) or not _extended(resource):
            # Not cpu, memory, hugepages-* or a kubernetes.io name: a limit on one of those
            # would starve the engine. Not the GPUs either: their count is the placement's.
            yield (
                f"--rdma-resource: expected a device plugin's resource name such as rdma/ib "
                f"(a domain/name outside kubernetes.io, not {GPU_RESOURCE}), got {shown(resource)}"
            )
        if not 1 <= count <= 1024:
            yield f"--rdma-resource {resource}: expected a count in 1-1024, got {count}"
    for key, value in o.node_selector.items():
        if not _qualified(key):
            yield f"--node-selector: expected a label name, got {shown(key)}"
        if not _LABEL_VALUE.match(value):
            yield f"--node-selector {key}: expected a label value, 63 characters at most, got {shown(value)}"
    if not 1 <= o.replicas <= MAX_REPLICAS:
        yield f"--replicas: expected 1-{MAX_REPLICAS}, got {o.replicas}"
    quantity = _QUANTITY.match(o.shm_size)
    if o.shm_size and (not quantity or not float(quantity.group(1)) > 0):
        # A zero limit is no /dev/shm at all for NCCL, not "no limit": leave the option out for that.
        yield f"--shm-size: expected a positive Kubernetes quantity such as 64Gi, got {shown(o.shm_size)}"
    yield from _seconds("--startup-timeout", o.startup_timeout, zero=False)
    if o.node_config and not _PATH.match(o.node_config):
        yield f"--node-config: expected an absolute path of plain characters, got {shown(o.node_config)}"


def _slurm(o: SlurmOptions) -> Iterator[str]:
    for flag, value in (("--partition", o.partition), ("--time", o.time), ("--account", o.account)):
        if value and not _SBATCH_WORD.match(value):
            yield f"{flag}: expected letters, digits and _ . : , @ + % = - only, got {shown(value)}"
    for flag, value in (("--api-key-file", o.api_key_file), ("--node-config", o.node_config)):
        if value and not _PATH.match(value):
            yield f"{flag}: expected an absolute path of plain characters, got {shown(value)}"
    if o.enginekit != "enginekit" and not _PATH.match(o.enginekit):
        yield f"--enginekit: expected an absolute path of plain characters, got {shown(o.enginekit)}"
    # The key and the address reach every rank in variables: never one the script assigns
    # itself (its own are lower case), nor one the shell, Slurm or enginekit sets or reads
    # (enginekit.policy.carriers says which and why).
    if not o.api_key_env:
        yield "--api-key-env: expected a variable name, got an empty one"
    else:
        why = carriers.problem(o.api_key_env, "api_key")
        if why is not None:
            yield f"--api-key-env: {why}"
    if o.bind_addr_env:
        why = carriers.problem(o.bind_addr_env, "bind_addr")
        if why is None and not carriers.KEY_NAME.match(o.bind_addr_env):
            why = f"expected an upper-case name (the script's own are lower case), got {o.bind_addr_env!r}"
        if why is None and o.bind_addr_env.startswith(carriers.SET_PREFIXES):
            # Slurm's own address variables name the node srun runs on, not this one.
            why = f"{o.bind_addr_env!r} is Slurm's or a launcher's; a TaskProlog's variable names this node"
        if why is not None:
            yield f"--bind-addr-env: {why}"
    if o.bind_addr_env and o.bind_addr_env == o.api_key_env:
        yield f"--bind-addr-env: {o.bind_addr_env!r} is --api-key-env too: one variable cannot be both"
    yield from _seconds("--startup-timeout", o.startup_timeout, zero=True)


def _extended(resource: str) -> bool:
    """An extended resource a device plugin advertises: domain-qualified, outside ``kubernetes.io``."""
    domain, _, _ = resource.rpartition("/")
    return (
        bool(domain)
        and resource != GPU_RESOURCE
        and domain != "kubernetes.io"
        and not domain.endswith(".kubernetes.io")
    )


def _qualified(name: str) -> bool:
    """A Kubernetes qualified name: ``[prefix/]name``, the prefix a DNS subdomain."""
    prefix, _, name = name.rpartition("/")
    return bool(_LABEL_NAME.match(name)) and (not prefix or bool(_DNS_SUBDOMAIN.match(prefix)))


def _seconds(flag: str, value: float, *, zero: bool) -> Iterator[str]:
    # At most what `enginekit run --startup-timeout` takes: an export it would refuse at
    # start would crash-loop its pods, or fail a job after it waited in the queue.
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero) or value > MAX_SECONDS:
        yield f"{flag}: expected a positive number of seconds, at most {MAX_SECONDS:g} (a day), got {value:g}"


def shown(text: str) -> str:
    """``text`` for a message: its first characters, or why it cannot be shown."""
    why = unsafe_text(text)
    return f"a string that {why}" if why else repr(text[:80])
