"""The router in front of a replica's API servers: its command line, built from their plans alone; pure.

A router that routes by KV cache (``vllm-router --policy kv_aware``) subscribes to each
worker's KV-cache events. Its workers, their URLs and their event endpoints come from
the plans (:attr:`LaunchPlan.base_url`, :attr:`LaunchPlan.kv_events`), which come from the
replica's layout: nothing here computes a port.

The key stays off the router's command line, and out of its environment: ``vllm-router``
takes a key only on argv (``--api-key``), and uses it only for its own calls to workers
under intra-node data parallel, which is not built here. Clients send their key; the
router forwards the request's ``Authorization`` header to the worker it picks, and the
worker checks it.

In front of a disaggregated replica's prefill and decode instances (plans with a
``role``), ``vllm-router --vllm-pd-disaggregation`` sends each request to a prefill, then
to a decode with the prefill's ``kv_transfer_params``. It forwards no client's
``Authorization`` there: it calls both with ``Bearer $OPENAI_API_KEY`` of its own
environment, and checks no client's key (vllm-router 0.1.17, observed). So the key is
given to it in that variable (never on argv), and a router holding a key is refused on an
address beyond loopback unless the caller says a gateway in front checks clients.

Instances that speak SGLang's protocol (their command says ``--disaggregation-mode``) get
``sglang-router launch --pd-disaggregation`` instead: each prefill with its bootstrap port
(the layout's, its ``kv_transfer_port``), each decode. Given no ``--api-key``, it forwards
each client's ``Authorization`` to both instances unchanged (sglang-router 0.3.2,
observed), and they check it: the router holds no key.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attrs

from enginekit.base.errors import SpecError
from enginekit.base.text import host_port
from enginekit.plan.launch import LaunchPlan
from enginekit.spec.model import AGGREGATED, DECODE, PREFILL, Command
from enginekit.spec.rules import is_host, is_loopback

#: The routers enginekit builds a command for.
VLLM_ROUTER = "vllm-router"
SGLANG_ROUTER = "sglang-router"
#: ``sglang-router``'s policies (0.3.2's ``--policy`` choices).
SGLANG_POLICIES = ("random", "round_robin", "cache_aware", "power_of_two", "manual")
#: What says a plan's instance speaks SGLang's disaggregated protocol (bootstrap rooms).
SGLANG_MODE = "--disaggregation-mode"
#: ``vllm-router``'s policies (0.1.17's ``--policy`` choices).
POLICIES = (
    "kv_aware",
    "cache_aware",
    "round_robin",
    "random",
    "power_of_two",
    "consistent_hash",
    "sticky_least_loaded",
)
#: The policy that reads the workers' KV-cache events.
KV_AWARE = "kv_aware"
#: vllm-router's block size for static event sources, and vLLM's on GPUs.
DEFAULT_BLOCK_SIZE = 16
#: vllm-router's own Prometheus port.
DEFAULT_METRICS_PORT = 29000
#: The variable vllm-router's PD mode reads the key it calls the instances with from.
PD_KEY_VAR = "OPENAI_API_KEY"
#: The policy a PD router takes when none is given: kv_aware is not built for PD here.
PD_DEFAULT_POLICY = "round_robin"
#: The KV connectors vllm-router's PD mode knows (``--kv-connector``).
PD_CONNECTORS = ("nixl", "mooncake", "moriio")
#: What a vLLM worker needs to answer ``/v1/completions/render``, which a ``kv_aware``
#: vllm-router asks every worker for before it routes (vLLM 0.30 on; 403 without).
SCALE_OUT = "--enable-scale-out"


@attrs.frozen(kw_only=True)
class RouterOptions:
    """How the router listens and routes.

    :ivar port: Where clients reach the router.
    :ivar host: The address it binds (``127.0.0.1`` by default, vllm-router's own default).
    :ivar policy: One of :data:`POLICIES`; ``kv_aware`` subscribes to the workers' events.
    :ivar block_size: The workers' KV-cache block size in tokens: the router hashes
        prompts in blocks of this size to match the workers' events, so it must be theirs
        (vLLM's default 16 on GPUs, 128 on its CPU backend; the simulator's ``--block-size``).
    :ivar executable: The router program.
    :ivar metrics_port: Where it serves its Prometheus metrics, on ``host``: vllm-router's
        default, 29000, is taken by the first router of a host, and a second one stops at
        start.
    """

    port: int
    host: str = "127.0.0.1"
    policy: str = KV_AWARE
    block_size: int = DEFAULT_BLOCK_SIZE
    #: Empty: the router the workers' protocol calls for (``vllm-router``, or ``sglang-router``
    #: in front of SGLang's prefill and decode instances).
    executable: str = VLLM_ROUTER
    metrics_port: int = DEFAULT_METRICS_PORT
    #: In front of prefill and decode instances with a key, serve on an address beyond
    #: loopback although vllm-router checks no client's key there: only where a gateway in
    #: front checks every client.
    unchecked_clients: bool = False


def router_problems(plans: Sequence[LaunchPlan], options: RouterOptions) -> list[str]:
    """Why no router can front ``plans`` with ``options``, each naming its shard and field; none is fine."""
    problems = []
    if not is_host(options.host):
        # vllm-router parses its argv with argparse: '--host --api-key=x' is two options.
        problems.append(f"router host: expected a host name or IP address, got {options.host[:40]!r}")
    if not 1 <= options.port <= 65535:
        problems.append(f"router port: expected a port in 1-65535, got {options.port}")
    if not 1 <= options.metrics_port <= 65535:
        problems.append(f"router metrics port: expected a port in 1-65535, got {options.metrics_port}")
    elif options.metrics_port == options.port:
        problems.append(f"router metrics port: {options.metrics_port} is the router's own port")
    # A PD router's policies are its own, judged with its instances (sglang-router's differ).
    if options.policy not in POLICIES and not is_disaggregated(plans):
        problems.append(f"router policy: expected one of {', '.join(POLICIES)}, got {options.policy[:40]!r}")
    if not 1 <= options.block_size <= 4096:
        problems.append(f"router block size: expected 1-4096 tokens, got {options.block_size}")
    if not plans:
        problems.append("router: give the shard specs of the API servers it fronts")
    if is_disaggregated(plans):
        return problems + _pd_problems(plans, options)
    models = {plan.shard.profile.model_name() for plan in plans}
    if len(models) > 1:
        shown = ", ".join(sorted(models))
        problems.append(f"router: its workers serve different models ({shown}): one model per router")
    unbuilt = (
        "replica behind vllm-router is not built yet (its ranks' events would need the router's "
        "data-parallel routing)"
    )
    for name, plan in _workers(plans, options, problems, unbuilt):
        if options.policy != KV_AWARE:
            continue
        if not plan.kv_events:
            problems.append(
                f"{name}: the kv_aware policy routes by the workers' KV-cache events, and this shard "
                f"publishes none a router can subscribe to: set the profile's kv_events, a "
                f"kv_events_port, and kv_events_mode 'bind'"
            )
        given = block_size(plan.commands[-1].args)
        if given is not None and given != options.block_size:
            # The router hashes prompts in blocks of its size: with another, it matches nothing.
            problems.append(
                f"{name}: its command says --block-size {given}, and the router hashes blocks of "
                f"{options.block_size} tokens: give the router --block-size {given}, the workers' block size"
            )
        if SCALE_OUT not in plan.commands[-1].args:
            # Without it every render is refused, and the router routes blind: all to one worker.
            problems.append(
                f"{name}: profile {plan.shard.profile.name!r}: args: add {SCALE_OUT}: the kv_aware "
                f"policy asks every worker for the prompt's token ids (POST /v1/completions/render) "
                f"before it routes, which vLLM answers only with it"
            )
    return problems


def is_disaggregated(plans: Sequence[LaunchPlan]) -> bool:
    """Whether ``plans`` are a disaggregated replica's instances: any of them has a role."""
    return any(plan.shard.role != AGGREGATED for plan in plans)


def connector_of(plan: LaunchPlan) -> str:
    """How an instance moves its cache: its ``kv_connector``, else its engine's default."""
    return plan.shard.kv_connector or ("mooncake" if speaks_sglang(plan) else "nixl")


def speaks_sglang(plan: LaunchPlan) -> bool:
    """Whether an instance speaks SGLang's protocol: its command says ``--disaggregation-mode``."""
    return any(SGLANG_MODE in command.args for command in plan.commands)


def pd_router(plans: Sequence[LaunchPlan]) -> str:
    """The router a disaggregated replica's instances call for: ``sglang-router`` or ``vllm-router``."""
    return SGLANG_ROUTER if plans and all(speaks_sglang(plan) for plan in plans) else VLLM_ROUTER


def _pd_problems(plans: Sequence[LaunchPlan], options: RouterOptions) -> list[str]:
    """Why a PD router cannot front these prefill and decode instances."""
    problems = []
    sglang = {speaks_sglang(plan) for plan in plans}
    if len(sglang) > 1:
        problems.append(
            "router: some instances speak SGLang's protocol (--disaggregation-mode) and some vLLM's: "
            "one router serves one protocol"
        )
    elif sglang == {True}:
        problems += _sglang_problems(plans)
    roles = {plan.shard.role for plan in plans}
    if AGGREGATED in roles:
        problems.append(
            "router: some workers are prefill or decode instances and some aggregated: a PD router "
            "fronts prefill and decode instances only"
        )
    for role in (PREFILL, DECODE):
        if role not in roles:
            problems.append(f"router: no {role} instance among the workers: a PD router needs both roles")
    if options.policy == KV_AWARE:
        problems.append(
            "router policy: kv_aware in front of prefill and decode instances is not built yet: "
            "give --policy round_robin (or another)"
        )
    elif sglang == {True} and options.policy not in SGLANG_POLICIES:
        problems.append(
            f"router policy: sglang-router has no {options.policy[:40]!r} policy "
            f"(it has {', '.join(SGLANG_POLICIES)})"
        )
    elif sglang == {False} and options.policy not in POLICIES:
        problems.append(
            f"router policy: vllm-router has no {options.policy[:40]!r} policy (it has {', '.join(POLICIES)})"
        )
    models = {plan.shard.profile.model_name() for plan in plans}
    if len(models) > 1:
        problems.append(f"router: its workers serve different models ({', '.join(sorted(models))})")
    connectors = {connector_of(plan) for plan in plans}
    if len(connectors) != 1 or not connectors.issubset(PD_CONNECTORS):
        problems.append(
            f"router: kv_connector: the instances say {', '.join(sorted(connectors))}: a prefill and a "
            f"decode move the cache with one connector ({' or '.join(PD_CONNECTORS)}), and the "
            f"router names one for all of them"
        )
    sizes = {block_size(plan.commands[-1].args) for plan in plans}
    if len(sizes) > 1:
        shown = ", ".join(sorted("the default" if s is None else str(s) for s in sizes))
        problems.append(
            f"router: the instances' --block-size differ ({shown}): a decode instance reads the "
            f"prefill's cache block by block, so both roles use one block size"
        )
    keys = {plan.shard.api_key for plan in plans}
    if len(keys) > 1:
        problems.append(
            "router: the instances demand different API keys, and the router calls them all with one"
        )
    if sglang == {False} and keys - {""} and not options.unchecked_clients and not is_loopback(options.host):
        problems.append(
            f"router host: {options.host}: vllm-router's PD mode checks no client's key and calls the "
            f"instances with the key itself, so anyone who reaches {options.host} would be served: bind "
            f"it on loopback behind a gateway, or say that a gateway in front checks every client "
            f"(--unchecked-clients)"
        )
    # Consumed for what they add to problems: a PD router asks nothing more of each.
    list(_workers(plans, options, problems, "instance behind vllm-router is not built yet"))
    return problems


def _workers(
    plans: Sequence[LaunchPlan], options: RouterOptions, problems: list[str], unbuilt: str
) -> Iterator[tuple[str, LaunchPlan]]:
    """Each plan that serves HTTP, by the name problems give it, once what every router asks of it is said.

    Into ``problems``: a worker rank (no API), a data-parallel one (``unbuilt`` says so), a
    URL another worker has, and a router port its host uses.
    """
    urls: dict[str, int] = {}
    for i, plan in enumerate(plans):
        name = f"shard spec {plan.shard.shard_id or '(unnamed)'}"
        if not plan.serves_http:
            problems.append(f"{name}: serves no HTTP (a worker rank): give the router the API servers only")
            continue
        if plan.shard.profile.data_parallel > 1:
            problems.append(f"{name}: profile {plan.shard.profile.name!r}: a data-parallel {unbuilt}")
        first = urls.setdefault(plan.base_url, i)
        if first != i:
            problems.append(f"{name}: serves at {plan.base_url}, as the router's worker {first + 1} does")
        problems += _taken(name, plan, options)
        yield name, plan


def _sglang_problems(plans: Sequence[LaunchPlan]) -> list[str]:
    """What sglang-router needs that vllm-router does not: each prefill's bootstrap port."""
    return [
        f"shard spec {plan.shard.shard_id or '(unnamed)'}: kv_transfer_port: a prefill instance of "
        f"SGLang's protocol needs its bootstrap port, which the router gives every decode"
        for plan in plans
        if plan.shard.role == PREFILL and not plan.shard.kv_transfer_port
    ]


#: Addresses that stand for a whole host: a listener on one shares its ports with every other.
_EVERY = frozenset({"", "*", "0.0.0.0", "::"})


def _one_host(a: str, b: str) -> bool:
    """Whether listeners at ``a`` and ``b`` can take the same port: one host, as far as addresses say."""
    loopback = ("127.", "::1", "localhost")
    return a == b or a in _EVERY or b in _EVERY or (a.startswith(loopback) and b.startswith(loopback))


def _taken(name: str, plan: LaunchPlan, options: RouterOptions) -> list[str]:
    """The router's ports that ``plan``'s worker listens on, where both are on one host."""
    mine = {options.port: "router port", options.metrics_port: "router metrics port"}
    theirs = [(plan.shard.host(), plan.shard.http_port, "HTTP port")]
    for source in plan.kv_events:
        # The engine binds its publisher on every address (vLLM binds only tcp://*).
        theirs.append(("*", int(source.endpoint.rpartition(":")[2]), "KV-event publisher"))
        if source.replay:
            host, _, port = source.replay.removeprefix("tcp://").rpartition(":")
            theirs.append((host.strip("[]"), int(port), "KV-event replay endpoint"))
    return [
        f"{mine[port]}: {port} is {name}'s {what}, on the same host"
        for host, port, what in theirs
        if port in mine and _one_host(host, options.host)
    ]


def block_size(args: Sequence[str]) -> int | None:
    """The KV-cache block size a vLLM-style command line says (its last ``--block-size``), or None."""
    found = None
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name.replace("_", "-") != "--block-size":
            continue
        if not eq:
            value = args[i + 1] if i + 1 < len(args) else ""
        found = int(value) if value.isascii() and value.isdigit() else found
    return found


def router_command(plans: Sequence[LaunchPlan], options: RouterOptions) -> Command:
    """The router's command: its workers, and under ``kv_aware`` each worker's event and replay endpoints.

    :raises SpecError: listing every problem :func:`router_problems` finds.
    """
    problems = router_problems(plans, options)
    if problems:
        raise SpecError(problems)
    if is_disaggregated(plans):
        return _pd_command(plans, options)
    args = ["--host", options.host, "--port", str(options.port), "--policy", options.policy]
    args += ["--prometheus-host", options.host, "--prometheus-port", str(options.metrics_port)]
    args += ["--worker-urls", *(plan.base_url for plan in plans)]
    if options.policy == KV_AWARE:
        for plan in plans:
            # One entry per worker, its ranks' endpoints in rank order, as the router reads them.
            url = plan.base_url
            args += ["--kv-event-source", f"{url}={','.join(s.endpoint for s in plan.kv_events)}"]
            replays = [s.replay for s in plan.kv_events if s.replay]
            if len(replays) == len(plan.kv_events):
                args += ["--kv-event-replay-source", f"{url}={','.join(replays)}"]
        args += ["--kv-event-block-size", str(options.block_size)]
        args += ["--kv-event-model", plans[0].shard.profile.model_name()]
    return Command(path=options.executable, args=tuple(args), name="router")


def _sglang_command(plans: Sequence[LaunchPlan], options: RouterOptions) -> Command:
    """sglang-router in PD mode: each prefill with its bootstrap port, each decode; no key."""
    path = options.executable if options.executable != VLLM_ROUTER else SGLANG_ROUTER
    args = ["launch", "--pd-disaggregation"]
    for plan in plans:
        if plan.shard.role == PREFILL:
            # The bootstrap server listens on the prefill's first process, at its transfer base.
            args += ["--prefill", plan.base_url, str(plan.shard.kv_transfer_port)]
    for plan in plans:
        if plan.shard.role == DECODE:
            args += ["--decode", plan.base_url]
    args += ["--host", options.host, "--port", str(options.port), "--policy", options.policy]
    args += ["--prometheus-host", options.host, "--prometheus-port", str(options.metrics_port)]
    return Command(path=path, args=tuple(args), name="router")


def _pd_command(plans: Sequence[LaunchPlan], options: RouterOptions) -> Command:
    """vllm-router in PD mode: each prefill, each decode, the connector, and the key in its environment."""
    if pd_router(plans) == SGLANG_ROUTER:
        return _sglang_command(plans, options)
    args = ["--host", options.host, "--port", str(options.port), "--policy", options.policy]
    args += ["--prometheus-host", options.host, "--prometheus-port", str(options.metrics_port)]
    args.append("--vllm-pd-disaggregation")
    for plan in plans:
        if plan.shard.role == PREFILL:
            # No bootstrap port: NIXL's decode finds the prefill at the side channel its
            # answer names (kv_transfer_params), and vllm-router ignores one under nixl.
            args += ["--prefill", plan.base_url]
    for plan in plans:
        if plan.shard.role == DECODE:
            args += ["--decode", plan.base_url]
    # One connector and one key for them all: router_problems refused any other.
    (connector,) = {connector_of(plan) for plan in plans}
    args += ["--kv-connector", connector]
    env, why = {}, {}
    for key in {plan.shard.api_key for plan in plans} - {""}:
        env[PD_KEY_VAR] = key
        why[PD_KEY_VAR] = "the key vllm-router's PD mode calls the instances with (it reads no other)"
    return Command(
        path=options.executable,
        args=tuple(args),
        env=env,
        secret_env=frozenset(env),
        why=why,
        name="router",
    )


def router_url(options: RouterOptions) -> str:
    """Where clients reach the router."""
    return f"http://{host_port(options.host, options.port)}"
