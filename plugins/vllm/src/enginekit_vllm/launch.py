"""The processes of a vLLM shard, in start order: the server, or Ray's head and join around it."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from pathlib import Path

from enginekit import Command, ShardSpec
from enginekit.errors import EngineError
from enginekit.ncclenv import placement_env

from enginekit_vllm.config import VllmConfig
from enginekit_vllm.serveargs import kv_events, lora, parallel
from enginekit_vllm.versions import NATIVE_MULTINODE_SINCE, UUID_DEVICES_SINCE, mig_problem, shown

API_KEY_VAR = "VLLM_API_KEY"


class _Env:
    """Generated variables and why each is set, built up per command."""

    def __init__(self, shard: ShardSpec) -> None:
        build = placement_env(shard)
        self.env, self.why = dict(build.env), dict(build.why)
        self.secret: frozenset[str] = frozenset()
        if shard.on_cpu():
            _cpu(shard, self)

    def put(self, key: str, value: str, why: str) -> _Env:
        self.env[key], self.why[key] = value, why
        return self

    def command(self, path: str, args: Sequence[str], name: str, *, wait: bool = False) -> Command:
        return Command(
            path=path,
            args=tuple(args),
            env=self.env,
            why=self.why,
            name=name,
            wait_for_leader_port=wait,
            secret_env=self.secret,
        )


def build(config: VllmConfig, shard: ShardSpec, installed: Path | None) -> list[Command]:
    """The commands of ``shard``.

    :raises EngineError: when this vLLM cannot run this shard, saying why.
    """
    _refuse(config, shard)
    vllm = str(installed / "bin" / "vllm") if installed else config.executable
    ray = str(installed / "bin" / "ray") if installed else config.ray_executable
    if not shard.is_multi_node():
        return [_server(shard, _Env(shard), vllm, [])]
    ip = node_ip(shard)
    if config.multinode == "ray":
        return _ray(shard, vllm, ray, ip)
    return _native(shard, vllm, ip)


def node_ip(shard: ShardSpec) -> str | None:
    """This node's own IP address: the leader's is ``leader_addr``; any node's is ``bind_addr``."""
    candidates = [shard.leader_addr, shard.bind_addr] if shard.is_leader() else [shard.bind_addr]
    return next((c for c in candidates if _is_ip(c)), None)


def _refuse(config: VllmConfig, shard: ShardSpec) -> None:
    where = f"shard {shard.shard_id or '(unnamed)'}"
    release = config.release
    mig = next((uuid for uuid in shard.gpu_uuids if uuid.startswith("MIG-")), None)
    why = mig_problem(release)
    if mig is not None and why is not None:
        raise EngineError(f"{where}: gpu_uuids: {mig} is a MIG instance, and {why}; use whole GPUs")
    if shard.gpu_uuids and release < UUID_DEVICES_SINCE:
        raise EngineError(
            f"{where}: gpu_uuids: vLLM {config.version} reads every CUDA_VISIBLE_DEVICES entry with "
            f"int() and stops at start-up on a UUID (fixed in {shown(UUID_DEVICES_SINCE)}); "
            f"name the GPUs by gpu_indices alone"
        )
    if not shard.is_multi_node():
        return
    if shard.on_cpu():
        raise EngineError(f"{where}: a CPU shard spans one node; vLLM's CPU backend is not run across nodes")
    if config.multinode == "native" and release < NATIVE_MULTINODE_SINCE:
        raise EngineError(
            f'{where}: engines.vllm.multinode = "native" needs vLLM {shown(NATIVE_MULTINODE_SINCE)} '
            f'or newer, the node runs {config.version}: set engines.vllm.multinode = "ray"'
        )
    if config.multinode == "ray" and node_ip(shard) is None:
        field = "leader_addr or bind_addr" if shard.is_leader() else "bind_addr"
        raise EngineError(
            f"{where}: {field}: Ray needs this node's IP address for --node-ip-address and "
            f"VLLM_HOST_IP; left to guess, Ray and vLLM take the default route's address, which "
            f"on a multi-homed node is not the management network (vllm-project/vllm#19670)"
        )


def _native(shard: ShardSpec, vllm: str, ip: str | None) -> list[Command]:
    distributed = [
        "--distributed-executor-backend", "mp",
        "--nnodes", str(shard.nnodes),
        "--node-rank", str(shard.rank),
        "--master-addr", shard.leader_addr,
        "--master-port", str(shard.leader_port),
    ]  # fmt: skip
    env = _Env(shard)
    if ip:
        env.put(
            "VLLM_HOST_IP",
            ip,
            "this node's management address: the leader binds the queue that feeds the other "
            "nodes there, and vLLM otherwise guesses from the default route",
        )
    if shard.is_leader():
        return [_server(shard, env, vllm, distributed)]
    args = ["serve", shard.profile.model_path, *parallel(shard), *distributed, "--headless"]
    args += [*lora(shard, serving=False), *shard.profile.args]
    return [env.command(vllm, args, "vllm-headless", wait=True)]


def _ray(shard: ShardSpec, vllm: str, ray: str, ip: str | None) -> list[Command]:
    env = _Env(shard).put(
        "VLLM_HOST_IP",
        ip or "",
        "this node's management address, the one Ray knows it by: Ray's workers inherit it, "
        "and vLLM matches workers to nodes by it",
    )
    node = [f"--node-ip-address={ip}", f"--num-gpus={shard.profile.per_node}", "--block"]
    leader = _host_port(shard.leader_addr, shard.leader_port)
    if not shard.is_leader():
        return [env.command(ray, ["start", f"--address={leader}", *node], "ray-worker", wait=True)]
    head = env.command(ray, ["start", "--head", f"--port={shard.leader_port}", *node], "ray-head")
    env.put(
        "RAY_ADDRESS",
        leader,
        "the server joins this shard's own Ray head; left unset, Ray takes the cluster started "
        "last on this node, which may be another replica's",
    )
    # The server attaches to the head the sidecar starts: it waits until the head listens
    # on the leader port rather than racing it and failing to find a cluster.
    return [head, _server(shard, env, vllm, ["--distributed-executor-backend", "ray"], wait=True)]


def _server(
    shard: ShardSpec, env: _Env, vllm: str, distributed: Sequence[str], *, wait: bool = False
) -> Command:
    profile = shard.profile
    args = ["serve", profile.model_path, "--host", shard.host(), "--port", str(shard.http_port)]
    args += ["--served-model-name", profile.model_name(), *parallel(shard), *distributed]
    args += [*lora(shard, serving=True), *kv_events(shard), *profile.args]
    if shard.api_key:
        env.put(API_KEY_VAR, shard.api_key, "the API key: vLLM reads it from here, never from argv")
        env.secret = frozenset({API_KEY_VAR})
    return env.command(vllm, args, "vllm", wait=wait)


def _cpu(shard: ShardSpec, env: _Env) -> None:
    env.put(
        "VLLM_TARGET_DEVICE",
        "cpu",
        "a CPU shard: vLLM picks its CPU platform only when told, or from a '+cpu' build",
    )
    if shard.threads:
        env.put(
            "VLLM_CPU_OMP_THREADS_BIND",
            "nobind",
            "placement reserved a number of cores, not which: vLLM's auto binding would take "
            "every core of a NUMA node whoever else runs there",
        )
        env.put(
            "OMP_NUM_THREADS",
            str(max(1, shard.threads // shard.profile.per_node)),
            "the cores placement reserved, shared among the shard's ranks: vLLM sizes the "
            "OpenMP pool itself only when it binds",
        )


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
