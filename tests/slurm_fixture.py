"""A real single-node Slurm (controller, node daemon, munge) on this machine, for the end-to-end tests.

As a pytest fixture it reuses a Slurm that answers already, else starts one — installing
``slurm-wlm`` and ``munge`` with apt-get first only where ``ENGINEKIT_SLURM_INSTALL=1`` —
and stops only what it started. Where Slurm cannot be had the tests skip with the reason,
unless ``ENGINEKIT_REQUIRE_SLURM=1`` (CI sets it), where they fail instead.

As a script (``python3 tests/slurm_fixture.py start|stop``) it does the same for CI, which
starts Slurm once for every pass and stops it at the end.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

CONF_DIR = Path("/etc/slurm")
CONF = CONF_DIR / "slurm.conf"
RUN_DIR = Path("/run/slurm")
SPOOL_CTLD = Path("/var/spool/slurmctld")
SPOOL_D = Path("/var/spool/slurmd")
LOG_DIR = Path("/var/log/slurm")
MUNGE_KEY = Path("/etc/munge/munge.key")
#: What the daemons write their pids to, so that stopping kills exactly them.
PID_FILES = {
    "slurmd": RUN_DIR / "slurmd.pid",
    "slurmctld": RUN_DIR / "slurmctld.pid",
    "munged": Path("/run/munge/munged.pid"),
}
#: Serialises starting and stopping between test workers and CI.
LOCK = Path("/tmp/enginekit-slurm.lock")
PARTITION = "debug"


class SlurmUnavailable(Exception):
    """Slurm is not here and cannot be installed or started; the message says why."""


def _run(argv: list[str], *, timeout: float = 30, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise SlurmUnavailable(f"{argv[0]}: not found") from None
    except subprocess.TimeoutExpired:
        raise SlurmUnavailable(f"{' '.join(argv)}: no answer in {timeout:g} s") from None
    if check and done.returncode != 0:
        said = (done.stderr or done.stdout).strip()[-400:]
        raise SlurmUnavailable(f"{' '.join(argv)}: exit {done.returncode}: {said}")
    return done


def answering() -> bool:
    """Whether a Slurm controller answers and this node is idle or busy in it."""
    if shutil.which("scontrol") is None:
        return False
    try:
        ping = _run(["scontrol", "ping"], timeout=10, check=False)
        state = _run(["sinfo", "-h", "-o", "%T"], timeout=10, check=False)
    except SlurmUnavailable:
        return False
    states = state.stdout.split()
    return (
        "UP" in ping.stdout and bool(states) and all(s.startswith(("idle", "mix", "alloc")) for s in states)
    )


def install() -> None:
    """``apt-get install slurm-wlm munge``, where this is root with apt-get."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SlurmUnavailable("slurm-wlm is not installed, and installing it needs root and apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for argv, timeout in (
        (["apt-get", "update", "-q"], 300),
        (["apt-get", "install", "-y", "-q", "--no-install-recommends", "slurm-wlm", "munge"], 600),
    ):
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, check=False)
        if done.returncode != 0:
            raise SlurmUnavailable(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")


def write_conf() -> None:
    """A one-node ``slurm.conf``: this host, its CPUs, and memory below what is free."""
    host = _run(["hostname", "-s"]).stdout.strip()
    facts = dict(item.split("=", 1) for item in _run(["slurmd", "-C"]).stdout.split() if "=" in item)
    cpus = int(facts.get("CPUs", os.cpu_count() or 1))
    free_mib = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20
    memory = max(256, min(int(facts.get("RealMemory", free_mib)), free_mib) * 3 // 4)
    topology = " ".join(
        f"{key}={facts[key]}"
        for key in ("Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore")
        if key in facts
    )
    CONF_DIR.mkdir(parents=True, exist_ok=True)
    CONF.write_text(
        f"""\
# Written by enginekit's test fixture (tests/slurm_fixture.py): one node, this host.
ClusterName=enginekit-test
SlurmctldHost={host}
AuthType=auth/munge
CredType=cred/munge
SlurmUser=slurm
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
EnforcePartLimits=ALL
KillWait=10
StateSaveLocation={SPOOL_CTLD}
SlurmdSpoolDir={SPOOL_D}
SlurmctldPidFile={PID_FILES["slurmctld"]}
SlurmdPidFile={PID_FILES["slurmd"]}
SlurmctldLogFile={LOG_DIR}/slurmctld.log
SlurmdLogFile={LOG_DIR}/slurmd.log
NodeName={host} CPUs={cpus} {topology} RealMemory={memory} State=UNKNOWN
PartitionName={PARTITION} Default=YES Nodes=ALL MaxTime=INFINITE State=UP
"""
    )


def start() -> None:
    """Start munged, slurmctld and slurmd, and wait until the node is idle."""
    if not MUNGE_KEY.exists():
        _run(["/usr/sbin/mungekey", "--create"], check=False)
    if MUNGE_KEY.exists():
        shutil.chown(MUNGE_KEY, "munge", "munge")
        MUNGE_KEY.chmod(0o400)
    _run(["install", "-d", "-o", "munge", "-g", "munge", "-m", "0755", "/run/munge"])
    if not _alive("munged"):
        _run(["runuser", "-u", "munge", "--", "/usr/sbin/munged"])
    for path in (SPOOL_CTLD, LOG_DIR):
        _run(["install", "-d", "-o", "slurm", "-g", "slurm", "-m", "0755", str(path)])
    for path in (SPOOL_D, RUN_DIR):
        path.mkdir(parents=True, exist_ok=True)
    RUN_DIR.chmod(0o777)  # slurmctld (user slurm) and slurmd (root) both write pid files here
    if not _alive("slurmctld"):
        _run(["slurmctld"])  # "could not open ... state file" on a first start is normal
    _wait(lambda: "UP" in _run(["scontrol", "ping"], check=False).stdout, "scontrol ping: UP", 30)
    if not _alive("slurmd"):
        _run(["slurmd"])
    _wait(answering, "sinfo: this node idle", 30)


def stop() -> None:
    """Kill the daemons by their pid files; a zombie counts as stopped."""
    for name in ("slurmd", "slurmctld", "munged"):
        pid = _pid(name)
        if pid is None:
            continue
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _running(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _pid(name: str) -> int | None:
    try:
        return int(PID_FILES[name].read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _alive(name: str) -> bool:
    pid = _pid(name)
    return pid is not None and _running(pid)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def _wait(ready: object, what: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(ready) and ready():
            return
        time.sleep(0.2)
    raise SlurmUnavailable(f"Slurm did not come up: no {what} after {seconds:g} s (logs in {LOG_DIR})")


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    with LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@contextlib.contextmanager
def slurm_running(environ: dict[str, str] | None = None) -> Iterator[bool]:
    """A Slurm that answers, for the body; yields whether this call started it (and stops it after).

    :raises SlurmUnavailable: when there is none and it cannot be installed or started.
    """
    environ = dict(os.environ) if environ is None else environ
    started = False
    with _locked():
        if not answering():
            if shutil.which("slurmctld") is None:
                if environ.get("ENGINEKIT_SLURM_INSTALL") != "1":
                    raise SlurmUnavailable(
                        "slurm-wlm is not installed (ENGINEKIT_SLURM_INSTALL=1 installs it with apt-get)"
                    )
                install()
            if os.geteuid() != 0:
                raise SlurmUnavailable("starting Slurm's daemons needs root")
            write_conf()
            start()
            started = True
    try:
        yield started
    finally:
        if started:
            with _locked():
                stop()


def main(argv: list[str]) -> int:
    """``start``: install where allowed and start, leaving it running; ``stop``: stop it."""
    if argv[1:] == ["stop"]:
        with _locked():
            stop()
        return 0
    if argv[1:] != ["start"]:
        print("usage: slurm_fixture.py start|stop", file=sys.stderr)
        return 2
    try:
        with _locked():
            if answering():
                return 0
            if shutil.which("slurmctld") is None:
                install()
            write_conf()
            start()
    except (SlurmUnavailable, OSError, subprocess.SubprocessError) as exc:
        print(f"slurm_fixture: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
