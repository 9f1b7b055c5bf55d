"""The processes of a vLLM shard, in start order: the server, or Ray's head and join around it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from enginekit.plugin import (
    Command,
    CommandBuilder,
    EngineError,
    ShardSpec,
    Version,
    host_port,
    is_mig,
    node_ip,
    resolve_executable,
)

from enginekit_vllm.config import VllmConfig
from enginekit_vllm.disaggregated import transfer_args, transfer_env, transfer_problem
from enginekit_vllm.serveargs import kv_events, lora, parallel
from enginekit_vllm.versions import (
    CPU_MOE_DATA_PARALLEL_FAILS_SINCE,
    NATIVE_MULTINODE_SINCE,
    UUID_DEVICES_SINCE,
)

API_KEY_VAR = "VLLM_API_KEY"
API_KEY_WHY = "the API key: vLLM reads it from here, never from argv"


def build(config: VllmConfig, shard: ShardSpec, installed: Path | None) -> list[Command]:
    """The commands of ``shard``.

    :raises EngineError: when this vLLM cannot run this shard, saying why.
    """
    _refuse(config, shard)
    vllm = resolve_executable(config.executable, installed, "bin/vllm")
    ray = resolve_executable(config.ray_executable, installed, "bin/ray")
    if shard.profile.data_parallel > 1:
        return [_data_parallel(config, shard, vllm)]
    if not shard.is_multi_node():
        build = _builder(shard)
        return [_server(shard, build, vllm, expert_args(shard, config.release, build), config.release)]
    if config.multinode == "ray":
        return _ray(config, shard, vllm, ray, node_ip(shard))
    return _native(config, shard, vllm, node_ip(shard))


def _refuse(config: VllmConfig, shard: ShardSpec) -> None:
    where = f"shard {shard.shard_id or '(unnamed)'}"
    facts = config.facts
    # Either case: vLLM refuses (or misreads) a MIG instance however its UUID is written.
    mig = next((uuid for uuid in shard.gpu_uuids if is_mig(uuid)), None)
    why = facts.mig_problem
    if mig is not None and why is not None:
        raise EngineError(f"{where}: gpu_uuids: {mig} is a MIG instance, and {why}; use whole GPUs")
    if shard.gpu_uuids and not facts.uuid_devices:
        raise EngineError(
            f"{where}: gpu_uuids: vLLM {config.release} reads every CUDA_VISIBLE_DEVICES entry with "
            f"int() and stops at start-up on a UUID (fixed in {UUID_DEVICES_SINCE}); "
            f"name the GPUs by gpu_indices alone"
        )
    if shard.on_cpu():
        _refuse_cpu(where, shard)
        _refuse_cpu_moe(where, shard, config.release)
    role = transfer_problem(shard, config.release)
    if role is not None:
        raise EngineError(role)
    if not shard.is_multi_node() or shard.profile.data_parallel > 1:
        return  # a data-parallel rank is on one node: no multi-node executor
    if config.multinode == "native" and not facts.native_multinode:
        raise EngineError(
            f'{where}: engines.vllm.multinode = "native" needs vLLM {NATIVE_MULTINODE_SINCE} '
            f'or newer, the node runs {config.release}: set engines.vllm.multinode = "ray"'
        )
    if config.multinode == "ray" and node_ip(shard) is None:
        field = "leader_addr or bind_addr" if shard.is_leader() else "bind_addr"
        raise EngineError(
            f"{where}: {field}: Ray needs this node's IP address for --node-ip-address and "
            f"VLLM_HOST_IP; left to guess, Ray and vLLM take the default route's address, which "
            f"on a multi-homed node is not the management network (vllm-project/vllm#19670)"
        )


def _refuse_cpu_moe(where: str, shard: ShardSpec, release: Version) -> None:
    """Expert parallel means a MoE model, whose data-parallel ranks cannot exchange tokens on the CPU."""
    profile = shard.profile
    if profile.expert_parallel and profile.data_parallel > 1 and release >= CPU_MOE_DATA_PARALLEL_FAILS_SINCE:
        raise EngineError(
            f"{where}: expert_parallel: vLLM {release}'s CPU build cannot run a MoE model over "
            f"data-parallel ranks: its CPU communicator has no all_gatherv, which the MoE layers' "
            f"dispatch between ranks calls (NotImplementedError at start, with or without expert "
            f"parallel); on the CPU, data parallel serves dense models"
        )


#: Profile options that size the KV cache of a CPU shard as well as placement's
#: ``kv_cache_mib`` does: on the CPU backend the "GPU" fraction is of the NUMA node's memory.
CPU_MEMORY_OPTIONS = ("--kv-cache-memory-bytes", "--gpu-memory-utilization", "--device-memory-utilization")
GIB = 1024


def _refuse_cpu(where: str, shard: ShardSpec) -> None:
    """A CPU shard must say how much memory its KV cache takes, in whole GiB for vLLM."""
    if shard.kv_cache_mib:
        if shard.kv_cache_mib < GIB:
            raise EngineError(
                f"{where}: kv_cache_mib: {shard.kv_cache_mib} MiB is less than the 1 GiB that "
                f"vLLM's CPU backend takes at least (VLLM_CPU_KVCACHE_SPACE counts whole GiB)"
            )
        return
    from enginekit_vllm.argpolicy import SYNTAX

    if SYNTAX.parse(shard.profile.args).find(CPU_MEMORY_OPTIONS):
        return
    raise EngineError(
        f"{where}: kv_cache_mib: a CPU shard of vLLM needs the memory placement reserved for its "
        f"KV cache; without it vLLM's CPU backend asks for 92% of the NUMA node's memory at start "
        f"and stops when less is free (ValueError: Available memory on node 0 … is less than "
        f"desired CPU memory utilization). Set the shard spec's kv_cache_mib, or the profile's "
        f"--kv-cache-memory-bytes"
    )


def _builder(shard: ShardSpec) -> CommandBuilder:
    """The shard's placement variables, and on a CPU shard what vLLM's CPU backend needs."""
    build = CommandBuilder(shard)
    if shard.on_cpu():
        _cpu(shard, build)
    for name, (value, why) in transfer_env(shard).items():
        build.put(name, value, why)
    return build


def _native(config: VllmConfig, shard: ShardSpec, vllm: str, ip: str | None) -> list[Command]:
    distributed = [
        "--distributed-executor-backend", "mp",
        "--nnodes", str(shard.nnodes),
        "--node-rank", str(shard.rank),
        "--master-addr", shard.leader_addr,
        "--master-port", str(shard.leader_port),
    ]  # fmt: skip
    build = _builder(shard)
    if ip:
        build.put(
            "VLLM_HOST_IP",
            ip,
            "this node's management address: the leader binds the queue that feeds the other "
            "nodes there, and vLLM otherwise guesses from the default route",
        )
    if shard.is_leader():
        return [_server(shard, build, vllm, distributed, config.release)]
    args = ["serve", shard.profile.model_path, *parallel(shard), *distributed, "--headless"]
    args += [*lora(shard, serving=False), *transfer_args(shard, config.release), *shard.profile.args]
    return [build.command(vllm, args, name="vllm-headless", wait_for_leader_port=True)]


def _ray(config: VllmConfig, shard: ShardSpec, vllm: str, ray: str, ip: str | None) -> list[Command]:
    build = _builder(shard).put(
        "VLLM_HOST_IP",
        ip or "",
        "this node's management address, the one Ray knows it by: Ray's workers inherit it, "
        "and vLLM matches workers to nodes by it",
    )
    node = [f"--node-ip-address={ip}", f"--num-gpus={shard.profile.per_node}", "--block"]
    leader = host_port(shard.leader_addr, shard.leader_port)
    if not shard.is_leader():
        join = ["start", f"--address={leader}", *node]
        return [build.command(ray, join, name="ray-worker", wait_for_leader_port=True)]
    head = build.command(ray, ["start", "--head", f"--port={shard.leader_port}", *node], name="ray-head")
    build.put(
        "RAY_ADDRESS",
        leader,
        "the server joins this shard's own Ray head; left unset, Ray takes the cluster started "
        "last on this node, which may be another replica's",
    )
    # The server attaches to the head the sidecar starts: it waits until the head listens
    # on the leader port rather than racing it and failing to find a cluster.
    distributed = ["--distributed-executor-backend", "ray", *expert_args(shard, config.release, build)]
    return [head, _server(shard, build, vllm, distributed, config.release, wait=True)]


def expert_args(shard: ShardSpec, release: Version, build: CommandBuilder) -> list[str]:
    """Expert parallel's flags, when the profile asks (the module that spells them loads only then)."""
    if not shard.profile.expert_parallel:
        return []
    from enginekit_vllm.dataparallel import expert_args

    return expert_args(shard, release, build)


def _data_parallel(config: VllmConfig, shard: ShardSpec, vllm: str) -> Command:
    """One process of a data-parallel replica: its ranks and the leader it dials, from the layout.

    Every node runs its own ``vllm serve`` with the multiprocessing backend (a rank fits on
    one node), whatever ``engines.vllm.multinode`` says: that setting is how one rank spans
    nodes, which the layout refuses.
    """
    from enginekit.plugin import API_SERVER, shard_layout

    from enginekit_vllm.dataparallel import data_parallel_args, layout_rules

    process = shard_layout(shard, layout_rules(config.release))
    if process.role != API_SERVER:
        from enginekit_vllm.argpolicy import SYNTAX

        if SYNTAX.parse(shard.profile.args).values("--api-server-count"):
            # vLLM refuses it with --headless at start: say so now, with the way out.
            raise EngineError(
                f"profile {shard.profile.name!r}: args: --api-server-count reaches every node, and "
                f"node {shard.rank} runs --headless under internal balancing, which vLLM refuses it "
                f"with; leave it out (vLLM picks the API servers' count itself), or balance hybrid"
            )
    build = _builder(shard)
    ip = node_ip(shard)
    if ip and shard.is_multi_node():
        build.put(
            "VLLM_HOST_IP",
            ip,
            "this node's management address: its engines' sockets to the other nodes bind "
            "there, and vLLM otherwise guesses from the default route",
        )
    profile = shard.profile
    args = ["serve", profile.model_path]
    if process.role == API_SERVER:
        args += [
            "--host",
            shard.host(),
            "--port",
            str(shard.http_port),
            "--served-model-name",
            profile.model_name(),
        ]
    args += [
        *parallel(shard),
        *data_parallel_args(shard, process),
        *expert_args(shard, config.release, build),
    ]
    args += [
        *lora(shard, serving=process.role == API_SERVER),
        *kv_events(shard),
        *transfer_args(shard, config.release),
    ]
    args += profile.args
    dials = bool(process.dials)  # every process but the leader's waits for the leader's handshake port
    if process.role == API_SERVER:
        build.put_secret(API_KEY_VAR, shard.api_key, API_KEY_WHY)
        return build.command(vllm, args, name="vllm", wait_for_leader_port=dials)
    return build.command(vllm, args, name="vllm-headless", wait_for_leader_port=dials)


def _server(
    shard: ShardSpec,
    build: CommandBuilder,
    vllm: str,
    distributed: Sequence[str],
    release: Version,
    *,
    wait: bool = False,
) -> Command:
    profile = shard.profile
    args = ["serve", profile.model_path, "--host", shard.host(), "--port", str(shard.http_port)]
    args += ["--served-model-name", profile.model_name(), *parallel(shard), *distributed]
    args += [*lora(shard, serving=True), *kv_events(shard), *transfer_args(shard, release), *profile.args]
    build.put_secret(API_KEY_VAR, shard.api_key, API_KEY_WHY)
    return build.command(vllm, args, name="vllm", wait_for_leader_port=wait)


def _cpu(shard: ShardSpec, build: CommandBuilder) -> None:
    build.put(
        "VLLM_TARGET_DEVICE",
        "cpu",
        "a CPU shard: vLLM picks its CPU platform only when told, or from a '+cpu' build",
    )
    if shard.kv_cache_mib:
        whole = shard.kv_cache_mib // GIB
        rounded = "" if whole * GIB == shard.kv_cache_mib else f", {shard.kv_cache_mib} MiB rounded down"
        build.put(
            "VLLM_CPU_KVCACHE_SPACE",
            str(whole),
            f"the memory placement reserved for the KV cache, in GiB{rounded}: without it vLLM "
            f"wants 92% of the NUMA node's memory free at start",
        )
    if shard.threads:
        build.put(
            "VLLM_CPU_OMP_THREADS_BIND",
            "nobind",
            "placement reserved a number of cores, not which: vLLM's auto binding would take "
            "every core of a NUMA node whoever else runs there",
        )
        build.put(
            "OMP_NUM_THREADS",
            str(max(1, shard.threads // shard.profile.per_node)),
            "the cores placement reserved, shared among the shard's ranks: vLLM sizes the "
            "OpenMP pool itself only when it binds",
        )
