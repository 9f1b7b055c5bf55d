"""``SimEngine``: the simulated engine's hooks; it starts ``python -m enginekit_sim serve`` like an engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from enginekit.plugin import EngineError, hookimpl

from enginekit_sim.faults import Fault, parse_faults
from enginekit_sim.plugin.config import SimConfig

# Each hook imports what it uses when it first runs: `enginekit engines` imports every
# engine to list it, and needs its config and its hooks, not its planning code.
if TYPE_CHECKING:
    from collections.abc import Sequence

    from enginekit.plugin import (
        Command,
        EnginePolicy,
        GPUInfo,
        KVTransferPorts,
        LayoutRules,
        ParsedArgs,
        ProcessLayout,
        Profile,
        ShardSpec,
    )

MODULE = "enginekit_sim"
#: The data-parallel leader's one port, vLLM's ``--data-parallel-rpc-port``: every other
#: process of the replica joins there.
DP_RPC = "dp-rpc"
MIB = 1024 * 1024
DEFAULT_CONFIG = SimConfig()


class SimEngine:
    """Starts the simulated engine from a shard spec, with the launch shape of a real engine."""

    config_type: ClassVar[type[SimConfig]] = SimConfig
    takes_installed_build: ClassVar[bool] = False

    def __init__(self, config: SimConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        # Built when first asked, once: the config is frozen, and the registry asks once anyway.
        self._policy: EnginePolicy | None = None

    def __repr__(self) -> str:
        return f"SimEngine({self.config!r})"

    def _start(self, *args: str) -> tuple[str, ...]:
        # -I: no PYTHON* variable, user site or working directory decides what code runs.
        return ("-I", "-m", MODULE, *args)

    @hookimpl
    def policy(self) -> EnginePolicy:
        """The options enginekit manages or refuses, and the variables the commands generate."""
        if self._policy is None:
            from enginekit_sim.plugin import flags

            self._policy = flags.policy(self.config.allow_args)
        return self._policy

    @hookimpl
    def layout_rules(self) -> LayoutRules:
        """vLLM's layouts: every balancing mode, expert parallel, KV-event ports moved by the rank.

        Any all-to-all backend name is taken: the simulator moves no experts, and a vLLM
        profile's backend runs here unchanged.
        """
        from enginekit.plugin import LayoutRules

        return LayoutRules(
            balancing=frozenset({"internal", "hybrid", "external"}),
            expert_parallel=True,
            coordination=(DP_RPC,),
            kv_events_per_rank=True,
            kv_events_replay=True,
            kv_transfer=self._transfer_ports(),
        )

    def _transfer_ports(self) -> KVTransferPorts:
        """vLLM's NIXL side channel from 0.11.1 (one per engine core, at the base plus its rank),
        or SGLang's bootstrap server (a prefill's first process, at the base)."""
        from enginekit.plugin import PREFILL, TRANSFER_LEADER, TRANSFER_RANK, KVTransferPorts

        if self.config.disaggregation == "sglang":
            return KVTransferPorts(roles=frozenset({PREFILL}), scope=TRANSFER_LEADER)
        return KVTransferPorts(scope=TRANSFER_RANK)

    def _process(self, shard: ShardSpec) -> ProcessLayout | None:
        """The shard's process in its replica's layout under data parallel; None without."""
        if shard.profile.data_parallel == 1:
            return None
        from enginekit.plugin import shard_layout

        return shard_layout(shard, self.layout_rules())

    @hookimpl
    def validate(self, profile: Profile, gpus: Sequence[GPUInfo], args: ParsedArgs) -> list[str]:
        """Refuse values of pass-through arguments the simulator would refuse at start."""
        from enginekit_sim.plugin import flags

        return flags.problems(profile.name, args)

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        """One process per shard: the leader serves HTTP, every other rank joins it headless."""
        from enginekit.plugin import API_SERVER, CommandBuilder

        from enginekit_sim.commandline import API_KEY_ENV, CPU_FALLBACK_ENV

        profile, config = shard.profile, self.config
        process = self._process(shard)
        args = [*self._start("serve", profile.model_path), "--served-model-name", profile.model_name()]
        args += [
            "--tensor-parallel-size",
            str(profile.tp),
            "--pipeline-parallel-size",
            str(profile.pipeline_degree),
        ]
        if self.serves_http(shard):
            args += ["--host", shard.host(), "--port", str(shard.http_port)]
        if process is not None:
            args += _data_parallel_args(shard, process)
        elif shard.is_multi_node():
            args += ["--nnodes", str(shard.nnodes), "--node-rank", str(shard.rank)]
            args += ["--master-addr", shard.leader_addr, "--master-port", str(shard.leader_port)]
            if not shard.is_leader():
                args.append("--headless")
        if profile.expert_parallel:
            args.append("--enable-expert-parallel")
            if profile.all2all:
                args += ["--all2all-backend", profile.all2all]
        if profile.adapters:
            # Every rank gets them: a real group's members must agree on the LoRA config.
            args += [
                "--enable-lora",
                "--lora-modules",
                *(_lora_module(a.name, a.path) for a in profile.adapters),
                *("--max-loras", str(len(profile.adapters))),
            ]
        # Every process hosting ranks publishes its own (each rank on the port plus its
        # rank); without data parallel only the leader schedules, so only it does.
        if profile.kv_events and shard.kv_events_port and (process is not None or shard.is_leader()):
            args += ["--kv-events-config", self._kv_events(shard)]
        if shard.threads:
            args += ["--threads", str(shard.threads)]
        args += [
            *("--startup-seconds", f"{config.startup_seconds:g}", "--ttft-ms", f"{config.ttft_ms:g}"),
            *("--itl-ms", f"{config.itl_ms:g}", "--prefill-ms-per-token", f"{config.prefill_ms_per_token:g}"),
            *("--max-num-seqs", str(config.max_num_seqs), "--max-model-len", str(config.max_model_len)),
            *("--seed", str(config.seed), "--block-size", str(config.block_size)),
            *("--kv-bytes-per-token", str(config.kv_bytes_per_token), *self._kv_cache_size(shard)),
            *("--kv-event-format", config.kv_event_format),
        ]
        for fault in config.faults:
            args += ["--fault", fault]
        args += self._transfer_args(shard)
        args += profile.args
        build = CommandBuilder(shard)
        if shard.role != "aggregated" and config.disaggregation == "vllm":
            from enginekit.plugin import reachable_host

            build.put(
                "VLLM_NIXL_SIDE_CHANNEL_HOST",
                reachable_host(shard),
                "where the other instances reach this one's side channel: the node's own address",
            )
            if shard.kv_transfer_port:
                build.put(
                    "VLLM_NIXL_SIDE_CHANNEL_PORT",
                    str(shard.kv_transfer_port),
                    "the side channel's base port, from the layout: each rank listens on it plus its rank",
                )
        build.put_secret(
            API_KEY_ENV,
            shard.api_key,
            "the API key: the simulator reads it and removes it from its environment at start; "
            "never on the command line, where every local user can read it",
        )
        if any(f.kind == "cpu-fallback" for f in self._faults(shard)):
            build.put(
                CPU_FALLBACK_ENV,
                "1",
                "the cpu-fallback fault is injected: the device listing, run in this environment, "
                "reports no GPU, as an engine that silently fell back to the CPU would",
            )
        if process is not None:
            name = "sim" if process.role == API_SERVER else "sim-headless"
            # Every process but the leader's joins it: it waits for the leader's port.
            waits = bool(process.dials)
        else:
            name = (
                "sim"
                if not shard.is_multi_node()
                else "sim-leader"
                if shard.is_leader()
                else f"sim-worker-{shard.rank}"
            )
            waits = shard.is_multi_node() and not shard.is_leader()
        return [build.command(config.python, args, name=name, wait_for_leader_port=waits)]

    def _transfer_args(self, shard: ShardSpec) -> list[str]:
        """A prefill or decode instance's KV transfer, as vLLM's NixlConnector is configured."""
        if shard.role == "aggregated":
            return []
        where = f"shard {shard.shard_id or '(unnamed)'}"
        known = ("nixl", "mooncake") if self.config.disaggregation == "sglang" else ("nixl",)
        if shard.kv_connector and shard.kv_connector not in known:
            raise EngineError(
                f"{where}: kv_connector: the simulator moves KV caches as {self.config.disaggregation}'s "
                f"{' or '.join(known)} does, not {shard.kv_connector!r}"
            )
        if self.config.disaggregation == "sglang" and shard.role == "prefill" and not shard.kv_transfer_port:
            raise EngineError(
                f"{where}: kv_transfer_port: a prefill instance's bootstrap server needs its port"
            )
        given = next(
            (a.partition("=")[0] for a in shard.profile.args if a.partition("=")[0] in _ROLE_OPTIONS), None
        )
        if given is not None:
            raise EngineError(
                f"{where}: profile {shard.profile.name!r}: args: {given} is set from the "
                f"shard's role ({shard.role!r}) and kv_connector: leave it out"
            )
        latency = ["--kv-transfer-ms-per-token", f"{self.config.kv_transfer_ms_per_token:g}"]
        if self.config.disaggregation == "sglang":
            # SGLang's flags: the bootstrap server on a prefill, the backend by name.
            args = ["--disaggregation-mode", shard.role]
            args += ["--disaggregation-transfer-backend", shard.kv_connector or "mooncake"]
            if shard.role == "prefill":
                args += ["--disaggregation-bootstrap-port", str(shard.kv_transfer_port)]
            return args + latency
        role = "kv_producer" if shard.role == "prefill" else "kv_consumer"
        config = f'{{"kv_connector":"NixlConnector","kv_role":"{role}","kv_load_failure_policy":"fail"}}'
        return ["--kv-transfer-config", config, *latency]

    def _kv_cache_size(self, shard: ShardSpec) -> tuple[str, str]:
        """What sizes the KV cache: the memory placement reserved on a CPU shard, else the node's blocks.

        As vLLM is told ``VLLM_CPU_KVCACHE_SPACE``: a GPU shard's cache is what fits beside
        the model, but a CPU shard's comes out of the node's memory, which placement shares
        out; the simulator turns the bytes into blocks with ``--kv-bytes-per-token``.
        """
        from enginekit_sim.plugin import flags

        if not (shard.on_cpu() and shard.kv_cache_mib):
            return "--num-gpu-blocks-override", str(self.config.num_gpu_blocks)
        if flags.values(shard.profile.args, "--num-gpu-blocks-override"):
            # The server refuses both at start; say it here, where the fix is known.
            raise EngineError(
                f"profile {shard.profile.name!r}: args: '--num-gpu-blocks-override' sizes the KV "
                f"cache in blocks, but on this CPU shard the shard spec's kv_cache_mib "
                f"({shard.kv_cache_mib} MiB) sizes it, and {flags.DISPLAY_NAME} refuses both: remove "
                f"it from the profile's args (--kv-bytes-per-token sets how many blocks the memory "
                f"holds), or leave kv_cache_mib 0"
            )
        return "--kv-cache-memory-bytes", str(shard.kv_cache_mib * MIB)

    def _kv_events(self, shard: ShardSpec) -> str:
        # As the vLLM plugin renders it, and as vLLM reads it: bound, 'tcp://*:PORT' and
        # the replay endpoint; connecting, the agent's loopback subscriber. The topic is
        # left out when empty, vLLM's default, so the flag reads as the vLLM plugin's.
        import json

        from enginekit.plugin import kv_events_endpoints

        endpoint, replay = kv_events_endpoints(shard)
        config: dict[str, object] = {"enable_kv_cache_events": True, "publisher": "zmq", "endpoint": endpoint}
        if replay:
            config["replay_endpoint"] = replay
        if self.config.kv_events_topic:
            config["topic"] = self.config.kv_events_topic
        return json.dumps(config, separators=(",", ":"))

    def _faults(self, shard: ShardSpec) -> list[Fault]:
        """The faults injected on this shard's rank, from the node config and then the profile."""
        from enginekit_sim.plugin import flags

        texts = [*self.config.faults, *flags.values(shard.profile.args, "--fault")]
        try:
            return [f for f in parse_faults(texts) if f.applies_to(shard.rank)]
        except ValueError as exc:
            raise EngineError(f"profile {shard.profile.name!r}: args: {exc}") from None

    @hookimpl
    def serves_http(self, shard: ShardSpec) -> bool:
        """Only the leader answers the API, as in a real multi-node replica.

        Under data parallel, every API server of the layout: the leader alone (internal
        balancing), every node's (hybrid) or every rank's (external), as vLLM's.
        """
        process = self._process(shard)
        if process is not None:
            from enginekit.plugin import API_SERVER

            return process.role == API_SERVER
        return shard.is_leader()

    @hookimpl
    def notes(self, shard: ShardSpec) -> list[str]:
        """What differs from a real engine, and what the simulator still exposes."""
        notes = ["simulated engine: no model is loaded; answers are synthetic text, deterministic per seed"]
        process = self._process(shard)
        if process is not None:
            return notes + _data_parallel_notes(shard, process) + self._fault_notes(shard)
        if not shard.is_leader():
            notes.append(
                f"rank {shard.rank} serves no HTTP: it joins the leader at {shard.leader_addr}:"
                f"{shard.leader_port} and exits when the leader goes away"
            )
            return notes + self._fault_notes(shard)
        if shard.api_key:
            # vLLM guards only /v1, /v2, /inference and /cohere: the state-changing
            # /reset_prefix_cache stays open there too, so say so rather than hide it.
            notes.append(
                "/health, /metrics, /version and POST /reset_prefix_cache (served only with "
                "VLLM_SERVER_DEV_MODE=1) answer without the API key, as in vLLM (anyone who can "
                "reach the port can then clear the prefix cache); /v1 needs it"
            )
        else:
            notes.append(f"no API key: /v1 answers anyone who can reach {shard.host()}:{shard.http_port}")
        if shard.is_multi_node():
            notes.append(
                f"ready only when all {shard.nnodes - 1} worker rank(s) have joined at {shard.leader_addr}:"
                f"{shard.leader_port}; unhealthy for good if one leaves"
            )
        if shard.profile.kv_events and shard.kv_events_port:
            from enginekit.plugin import kv_events_wiring

            wiring = kv_events_wiring(shard, per_rank=True, replay=True)
            notes.append(
                f"{wiring}; topic {self.config.kv_events_topic!r}, vLLM {self.config.kv_event_format} format"
            )
        elif shard.profile.kv_events:
            notes.append(
                "the profile asks for KV-cache events, but the shard has no kv_events_port: none are sent"
            )
        return notes + self._fault_notes(shard)

    def _fault_notes(self, shard: ShardSpec) -> list[str]:
        return [f"fault injected on this rank: {f.kind}" for f in self._faults(shard)]

    @hookimpl
    def leader_exit(self, shard: ShardSpec) -> str:
        """A worker exits 1 by itself once its leader is gone: nothing needs to stop it.

        It holds a connection to the leader and exits when the connection closes or three
        heartbeats (``--heartbeat-seconds``) pass without a word, which covers a leader
        killed, hung or cut off. A worker still trying to join (its leader never listened)
        exits after ``--join-timeout`` instead.
        """
        return "stops"

    @hookimpl
    def device_listing(self) -> Command:
        """List the GPUs the process was given; run it with the shard command's environment."""
        from enginekit.plugin import Command

        node_wide = any(f.kind == "cpu-fallback" and f.rank is None for f in parse_faults(self.config.faults))
        extra = ("--fault", "cpu-fallback") if node_wide else ()
        return Command(path=self.config.python, args=self._start("devices", *extra), name="sim-devices")

    @hookimpl
    def parse_devices(self, output: str) -> list[str]:
        """The devices in the listing: one ``GPU <id>`` line each; none means it runs on the CPU."""
        return [line[4:].strip() for line in output.splitlines() if line.startswith("GPU ")]

    @hookimpl
    def help_command(self, command: Command) -> Command:
        """``serve --help`` through the same interpreter, not the interpreter's own help."""
        from enginekit.plugin import Command

        return Command(path=command.path, args=self._start("serve", "--help"), name="sim-help")


#: What a role sets, which a profile may then not set itself (vLLM's and SGLang's spellings).
_ROLE_OPTIONS = frozenset(
    {
        "--kv-transfer-config",
        "--disaggregation-mode",
        "--disaggregation-transfer-backend",
        "--disaggregation-bootstrap-port",
    }
)


def _lora_module(name: str, path: str) -> str:
    # vLLM reads ``name=path`` only without a comma; otherwise the JSON object form.
    import json

    if "," in path:
        return json.dumps({"name": name, "path": path}, separators=(",", ":"))
    return f"{name}={path}"


def _data_parallel_args(shard: ShardSpec, process: ProcessLayout) -> list[str]:
    """vLLM's data-parallel flags for ``process``, every rank and port from the layout.

    As the vLLM plugin writes them, so a vLLM profile's layout runs here unchanged: the
    leader is never given a start rank, hybrid balancing is said on every node, and under
    external balancing the rank says it all.
    """
    from enginekit.plugin import HEADLESS

    dial = process.dialed(DP_RPC)
    port = dial.port if dial is not None else process.port(DP_RPC)
    args = [
        "--data-parallel-size", str(shard.profile.data_parallel),
        "--data-parallel-address", shard.leader_addr or "127.0.0.1",
        "--data-parallel-rpc-port", str(port),
    ]  # fmt: skip
    mode = shard.profile.dp_balancing
    if mode == "external":
        return [*args, "--data-parallel-external-lb", "--data-parallel-rank", str(process.dp_start)]
    args += ["--data-parallel-size-local", str(len(process.dp_ranks))]
    if mode == "hybrid":
        return [*args, "--data-parallel-hybrid-lb", "--data-parallel-start-rank", str(process.dp_start)]
    if process.role == HEADLESS:
        return [*args, "--headless", "--data-parallel-start-rank", str(process.dp_start)]
    return args


def _data_parallel_notes(shard: ShardSpec, process: ProcessLayout) -> list[str]:
    """Where the process's ranks are served from, and when it is ready."""
    from enginekit.plugin import API_SERVER

    profile = shard.profile
    ranks = process.dp_ranks
    hosted = f"ranks {ranks[0]}-{ranks[-1]}" if len(ranks) > 1 else f"rank {ranks[0]}"
    dial = process.dialed(DP_RPC)
    joins = (
        f"listens for the other processes' joins on {DP_RPC} port {process.port(DP_RPC)}"
        if dial is None
        else f"joins the leader at {dial.addr or '?'}:{dial.port} and exits when it goes"
    )
    notes = [
        f"hosts data-parallel {hosted} of {profile.data_parallel} ({profile.dp_balancing} balancing); {joins}"
    ]
    if process.role != API_SERVER:
        notes.append("serves no HTTP: the leader's API server sends its ranks their requests")
    else:
        fronted = "every rank" if profile.dp_balancing == "internal" else "its own rank(s)"
        notes.append(
            f"API server for {fronted}: requests go to the rank with the fewest waiting (x4) and "
            f"running requests, as vLLM's; ready only when all {profile.data_parallel} ranks have "
            f"joined and loaded, unhealthy for good if a process leaves"
        )
    if profile.kv_events and shard.kv_events_port:
        from enginekit.plugin import kv_events_wiring

        notes.append(
            f"{kv_events_wiring(shard, per_rank=True, replay=True)} (this process's ranks: ports "
            f"{shard.kv_events_port + ranks[0]}-{shard.kv_events_port + ranks[-1]})"
        )
    return notes
