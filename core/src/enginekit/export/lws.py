"""A replica as a Kubernetes LeaderWorkerSet, its leader's Service, and the spec every pod starts from."""

from __future__ import annotations

import json
import math
from typing import Any

from enginekit.export.options import (
    DEFAULT_KEY_ENV,
    DNS_1035_LABEL,
    GPU_RESOURCE,
    LWS_NAME_RULE,
    ExportError,
    LWSOptions,
    shown,
)
from enginekit.export.runline import RunLine
from enginekit.export.template import RankTemplate

API_VERSION = "leaderworkerset.x-k8s.io/v1"
#: Where the ConfigMap with the rank template is mounted in every pod.
SPEC_DIR = "/etc/enginekit/replica"
SPEC_FILE = "spec.json"
#: The label LeaderWorkerSet puts on every pod of a set, and the role this manifest adds.
SET_LABEL = "leaderworkerset.sigs.k8s.io/name"
ROLE_LABEL = "role"
#: The variable the pod's own IP arrives in (the downward API), for the rank's bind address.
POD_IP_ENV = "ENGINEKIT_POD_IP"
#: What LeaderWorkerSet gives every pod: its index in the group (0 is the leader) and the
#: leader pod's DNS name.
RANK_ENV = "LWS_WORKER_INDEX"
LEADER_ENV = "LWS_LEADER_ADDRESS"
#: A StatefulSet's pods carry the label ``controller-revision-hash: NAME-HASH`` (up to 11
#: characters more), and a label value is at most 63 characters: a longer StatefulSet name
#: is accepted, and then no pod of it is ever created.
MAX_STATEFULSET_NAME = 52
PROBE_PERIOD = 10
DEFAULT_SECRET_KEY = "api-key"


def manifest(exported: RankTemplate, options: LWSOptions, *, health_path: str, key: bool) -> dict[str, Any]:
    """A ``v1`` ``List``, as ``kubectl apply -f`` takes it: the ConfigMap, the LeaderWorkerSet, the Service.

    :param health_path: the leader plan's health path, which the readiness and startup
        probes ask.
    :param key: whether the leader gets the API key, from the Secret ``options`` names.
    """
    name = options.name or exported.replica.replica_id
    problems = name_problems(
        name, given=bool(options.name), replicas=options.replicas, size=exported.replica.profile.node_count
    )
    if problems:
        raise ExportError(problems)
    items = [_config_map(exported, options, name), _set(exported, options, name, health_path, key)]
    items.append(_service(exported, options, name))
    return {"apiVersion": "v1", "kind": "List", "items": items}


def name_problems(name: str, *, given: bool, replicas: int, size: int) -> list[str]:
    """Why ``name`` cannot name the LeaderWorkerSet and what it makes; none when it can.

    The set's StatefulSets are ``NAME`` (the leaders) and ``NAME-GROUP`` (each group's
    workers), whose pods are named after them.
    """
    field = "--name" if given else "replica_id"
    hint = "" if given else ", or give --name"
    if not name:
        return ["replica_id: empty, and the LeaderWorkerSet needs a name: give --name"]
    if not DNS_1035_LABEL.match(name):
        return [f"{field}: a LeaderWorkerSet's name must be {LWS_NAME_RULE}; got {shown(name)}{hint}"]
    longest = name if size == 1 else f"{name}-{replicas - 1}"
    if len(longest) > MAX_STATEFULSET_NAME:
        return [
            f"{field}: {len(name)} characters is too long for {replicas} group(s) of {size}: the "
            f"StatefulSet {longest!r} would be {len(longest)}, and Kubernetes creates no pod for "
            f"one longer than {MAX_STATEFULSET_NAME}{hint}"
        ]
    return []


def secret_ref(options: LWSOptions, name: str) -> tuple[str, str]:
    """The Secret and its key the API key is read from."""
    secret, _, key = (options.secret or f"{name}-api-key").partition(":")
    return secret, key or DEFAULT_SECRET_KEY


def _metadata(options: LWSOptions, name: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if options.namespace:
        meta["namespace"] = options.namespace
    meta["labels"] = {"app.kubernetes.io/managed-by": "enginekit"}
    return meta


def _config_map(exported: RankTemplate, options: LWSOptions, name: str) -> dict[str, Any]:
    # Compact and sorted: the same replica always gives the same bytes, so a re-export
    # that changed nothing changes nothing in the cluster.
    spec = json.dumps(exported.template.to_dict(), sort_keys=True, separators=(",", ":"))
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _metadata(options, f"{name}-spec"),
        "data": {SPEC_FILE: spec},
    }


def _set(
    exported: RankTemplate, options: LWSOptions, name: str, health_path: str, key: bool
) -> dict[str, Any]:
    leader = _pod(exported, options, name, leader=True, health_path=health_path, key=key)
    serves = exported.every_node_serves
    worker = _pod(
        exported, options, name, leader=False, health_path=health_path, key=key and serves, serves=serves
    )
    template: dict[str, Any] = {
        "size": exported.replica.profile.node_count,
        # A tensor- or pipeline-parallel group whose member died hangs on its next collective:
        # the whole group is recreated instead.
        "restartPolicy": "RecreateGroupOnPodRestart",
    }
    if exported.replica.profile.node_count > 1:
        template["leaderTemplate"] = leader
    template["workerTemplate"] = worker if exported.replica.profile.node_count > 1 else leader
    return {
        "apiVersion": API_VERSION,
        "kind": "LeaderWorkerSet",
        "metadata": _metadata(options, name),
        "spec": {
            "replicas": options.replicas,
            # Not LeaderReady: a multi-node leader is healthy only once its workers have
            # joined, so workers that wait for a ready leader would wait for ever.
            "startupPolicy": "LeaderCreated",
            "leaderWorkerTemplate": template,
        },
    }


def _pod(
    exported: RankTemplate,
    options: LWSOptions,
    name: str,
    *,
    leader: bool,
    health_path: str,
    key: bool,
    serves: bool = False,
) -> dict[str, Any]:
    """One pod of the group: the leader's, or a worker's (``serves``: one that serves the API too)."""
    spec = exported.template
    run = RunLine(
        spec=f"{SPEC_DIR}/{SPEC_FILE}",
        rank_env=RANK_ENV,
        leader_addr_env=LEADER_ENV,
        bind_addr_env=POD_IP_ENV,
        api_key_env=DEFAULT_KEY_ENV if key else "",
        node_config=options.node_config,
        startup_timeout=options.startup_timeout,
    )
    env: list[dict[str, Any]] = [
        {"name": POD_IP_ENV, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
    ]
    if key:
        secret, secret_key = secret_ref(options, name)
        env.append(
            {"name": DEFAULT_KEY_ENV, "valueFrom": {"secretKeyRef": {"name": secret, "key": secret_key}}}
        )
    limits: dict[str, str] = {}
    if exported.gpus_per_node:
        limits[GPU_RESOURCE] = str(exported.gpus_per_node)
    limits.update({resource: str(count) for resource, count in sorted(options.rdma_resources.items())})
    container: dict[str, Any] = {
        "name": "engine",
        "image": options.image,
        "command": run.argv(),
        "env": env,
    }
    if leader or serves:
        container["ports"] = [{"name": "http", "containerPort": spec.http_port, "protocol": "TCP"}]
    if limits:
        container["resources"] = {"limits": limits}
    if spec.hcas:
        # NCCL registers its buffers with the adapters: pinned memory beyond the default limit.
        container["securityContext"] = {"capabilities": {"add": ["IPC_LOCK"]}}
    container["volumeMounts"] = [
        {"name": "dshm", "mountPath": "/dev/shm"},
        {"name": "spec", "mountPath": SPEC_DIR, "readOnly": True},
    ]
    if leader or serves:
        probe = {"httpGet": {"path": health_path, "port": "http"}, "periodSeconds": PROBE_PERIOD}
        container["readinessProbe"] = {**probe, "timeoutSeconds": 5, "failureThreshold": 3}
        container["startupProbe"] = {
            **probe,
            "timeoutSeconds": 5,
            "failureThreshold": max(1, math.ceil(options.startup_timeout / PROBE_PERIOD)),
        }
    shm: dict[str, Any] = {"medium": "Memory"}
    if options.shm_size:
        shm["sizeLimit"] = options.shm_size
    pod: dict[str, Any] = {"containers": [container]}
    if options.node_selector:
        pod["nodeSelector"] = dict(sorted(options.node_selector.items()))
    pod["volumes"] = [
        {"name": "dshm", "emptyDir": shm},
        {"name": "spec", "configMap": {"name": f"{name}-spec"}},
    ]
    return {"metadata": {"labels": {ROLE_LABEL: "leader" if leader else "worker"}}, "spec": pod}


def service_name(name: str) -> str:
    """The leaders' Service for the LeaderWorkerSet ``name``: never ``name`` itself, the controller's."""
    return f"{name}-http"


def _service(exported: RankTemplate, options: LWSOptions, name: str) -> dict[str, Any]:
    port = exported.template.http_port
    return {
        "apiVersion": "v1",
        "kind": "Service",
        # Not NAME: the LeaderWorkerSet controller makes the headless Service NAME that gives
        # every pod its DNS name (the leader's LWS_LEADER_ADDRESS), and makes none when a
        # Service of that name exists already: the workers would never find their leader.
        "metadata": _metadata(options, service_name(name)),
        "spec": {
            "type": "ClusterIP",
            # Every group's leader, and only the leaders, who alone serve the API; every
            # pod where every rank serves (data parallel under hybrid or external balancing).
            "selector": {SET_LABEL: name}
            if exported.every_node_serves
            else {SET_LABEL: name, ROLE_LABEL: "leader"},
            "ports": [{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}],
        },
    }
