"""The supervisor with real processes: small Python programs stand in for an engine, so no engine is needed.

Each test runs the supervisor in a thread, bounded in time; the fixture checks that every
process group it started is gone afterwards, and kills any that is not.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest
from enginekit import Command, LaunchPlan, Profile, ShardSpec
from enginekit.plan.leader import MUST_BE_STOPPED, STOPS
from enginekit.run import RunOptions, Supervisor
from enginekit.run.children import reap_orphans

KEY = "sk-run-0123456789abcdef"
#: A health endpoint: 401 without the key when TEST_KEY is set; 200, or 503 after ``limit`` checks.
SERVER = r"""
import http.server, os, sys, time
time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 0)
key, limit, count = os.environ.get("TEST_KEY", ""), int(sys.argv[2]), 0
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global count
        if key and self.headers.get("Authorization") != "Bearer " + key:
            self.send_response(401); self.end_headers(); return
        count += 1
        self.send_response(200 if not limit or count <= limit else 503); self.end_headers()
    def log_message(self, *args):
        pass
print("serving", flush=True)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Health).serve_forever()
"""
FAST = RunOptions(
    health_interval=0.1,
    leader_interval=0.1,
    progress_every=0.5,
    stop_grace=5,
    startup_timeout=20,
    leader_timeout=20,
    handle_signals=False,
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def python(code: str, *args: str, name: str = "", **fields: object) -> Command:
    return Command(path=sys.executable, args=("-c", code, *args), name=name, **fields)  # type: ignore[arg-type]


def plan_of(*commands: Command, serves_http: bool = False, port: int = 0, **shard: object) -> LaunchPlan:
    spec = ShardSpec(
        replica_id="r",
        shard_id="r-0",
        bind_addr="127.0.0.1",
        http_port=port or free_port(),
        profile=Profile(name="p", engine="test"),
        **shard,  # type: ignore[arg-type]
    )
    return LaunchPlan(
        engine="test",
        shard=spec,
        commands=commands,
        serves_http=serves_http,
        health_path="/health",
        metrics_path="/metrics",
    )


def worker_plan(
    *commands: Command, leader_port: int, on_leader_exit: str, watch_port: int | None = None
) -> LaunchPlan:
    """A worker's plan; a rank that must be stopped is watched at ``watch_port`` (default: ``leader_port``)."""
    plan = plan_of(*commands, rank=1, nnodes=2, leader_addr="127.0.0.1", leader_port=leader_port)
    return attrs.evolve(plan, on_leader_exit=on_leader_exit, leader_watch_port=watch_port or 0)


class Started:
    """A supervisor running in a thread, its log, and what it returned."""

    def __init__(self, supervisor: Supervisor, log: io.BytesIO) -> None:
        self.supervisor, self.log = supervisor, log
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.code = self.supervisor.run()

    def text(self) -> str:
        return self.log.getvalue().decode("utf-8", "replace")

    def wait_for(self, what: Callable[[], bool], timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not what():
            assert time.monotonic() < deadline, f"timed out; the log:\n{self.text()}"
            assert self.thread.is_alive() or what(), (
                f"the supervisor ended ({self.code}); the log:\n{self.text()}"
            )
            time.sleep(0.05)

    def result(self, timeout: float = 30) -> int:
        self.thread.join(timeout)
        if self.thread.is_alive():
            self.supervisor.stop()
            self.supervisor.stop()
            self.thread.join(10)
            pytest.fail(f"the supervisor did not end within {timeout} s; the log:\n{self.text()}")
        assert self.code is not None
        return self.code


@pytest.fixture
def start() -> Iterator[Callable[..., Started]]:
    runs: list[Started] = []

    def starting(plan: LaunchPlan, **kwargs: object) -> Started:
        log = io.BytesIO()
        options = kwargs.pop("options", FAST)
        supervisor = Supervisor(
            plan, environ=kwargs.pop("environ", dict(os.environ)), options=options, log=log, **kwargs
        )  # type: ignore[arg-type]
        runs.append(Started(supervisor, log))
        return runs[-1]

    yield starting
    left = []
    for run in runs:
        run.result()
        for pid in run.supervisor.pids:
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                continue
            left.append(pid)
            os.killpg(pid, signal.SIGKILL)
    assert not left, f"process groups left running: {left}"


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_main_process_exit_status_is_the_runner_s_and_its_lines_are_prefixed(
    start: Callable[..., Started],
) -> None:
    run = start(plan_of(python("print('hello'); import sys; sys.exit(3)", name="engine")))
    assert run.result() == 3
    assert "[engine] hello\n" in run.text()
    assert re.search(
        r"Z enginekit run: exit status 3: the main process engine exited \(exit status 3\)", run.text()
    )


def test_a_main_process_killed_by_a_signal_is_128_plus_its_number(start: Callable[..., Started]) -> None:
    run = start(plan_of(python("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")))
    assert run.result() == 128 + 9
    assert "the main process main exited (killed by SIGKILL (status 137))" in run.text()


def test_the_child_gets_the_generated_variables_over_the_inherited_ones(
    start: Callable[..., Started],
) -> None:
    code = "import os; print(os.environ['A'], os.environ['B'])"
    run = start(plan_of(python(code, env={"A": "generated"})), environ={"A": "inherited", "B": "kept"})
    assert run.result() == 0
    assert "[main] generated kept\n" in run.text()


def test_a_sidecar_s_exit_stops_the_shard(start: Callable[..., Started]) -> None:
    sidecar = python("import time, sys; time.sleep(0.3); sys.exit(5)", name="side")
    main = python("import time; time.sleep(60)", name="engine")
    run = start(plan_of(sidecar, main))
    assert run.result() == 84
    text = run.text()
    assert "enginekit run: error: sidecar side exited (exit status 5): stopping the shard" in text
    assert "stopping side, engine: SIGTERM to each process group, SIGKILL after 5 s" in text


def test_sigterm_then_sigkill_after_the_grace_and_the_whole_group_goes(start: Callable[..., Started]) -> None:
    # The main process ignores SIGTERM and has a child of its own in its group.
    code = (
        "import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print('grandchild', p.pid, flush=True); time.sleep(60)"
    )
    run = start(plan_of(python(code, name="stubborn")), options=attrs.evolve(FAST, stop_grace=0.5))
    # The pid line itself: the logged command line says "grandchild" before the process runs.
    run.wait_for(lambda: re.search(r"grandchild (\d+)\n", run.text()) is not None)
    grandchild = int(re.search(r"grandchild (\d+)\n", run.text()).group(1))  # type: ignore[union-attr]
    began = time.monotonic()
    run.supervisor.stop()
    assert run.result() == 128 + signal.SIGTERM
    assert time.monotonic() - began < 5
    assert "warning: killed stubborn with SIGKILL (not stopped within 0.5 s)" in run.text()
    assert gone(grandchild)


def test_a_second_stop_kills_at_once(start: Callable[..., Started]) -> None:
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(60)"
    run = start(plan_of(python(code)), options=attrs.evolve(FAST, stop_grace=60))
    run.wait_for(lambda: "[main] up" in run.text())
    run.supervisor.stop(signal.SIGINT)
    time.sleep(0.3)
    run.supervisor.stop(signal.SIGINT)
    assert run.result(timeout=10) == 130
    assert "killed main with SIGKILL (a second signal)" in run.text()


def test_a_worker_command_waits_for_the_leader_s_port(start: Callable[..., Started]) -> None:
    port = free_port()
    main = python("print('joined')", wait_for_leader_port=True)
    run = start(worker_plan(main, leader_port=port, on_leader_exit=STOPS))
    run.wait_for(lambda: f"main waits until the leader at 127.0.0.1:{port} accepts connections" in run.text())
    time.sleep(0.7)
    assert "still waiting for the leader" in run.text()
    assert run.supervisor.pids == []
    with socket.create_server(("127.0.0.1", port)):
        assert run.result() == 0
    assert "[main] joined" in run.text()


def test_a_leader_that_never_listens_is_a_timeout_before_anything_starts(
    start: Callable[..., Started],
) -> None:
    port = free_port()
    plan = worker_plan(
        python("print('never')", wait_for_leader_port=True), leader_port=port, on_leader_exit=STOPS
    )
    run = start(plan, options=attrs.evolve(FAST, leader_timeout=0.5))
    assert run.result() == 82
    assert f"error: the leader at 127.0.0.1:{port} did not accept a connection within 0.5 s" in run.text()
    assert run.supervisor.pids == []


def test_a_worker_that_must_be_stopped_is_stopped_when_the_leader_s_port_stays_closed(
    start: Callable[..., Started],
) -> None:
    port = free_port()
    leader = socket.create_server(("127.0.0.1", port))
    main = python("import time; print('up', flush=True); time.sleep(60)", wait_for_leader_port=True)
    plan = worker_plan(main, leader_port=port, on_leader_exit=MUST_BE_STOPPED)
    run = start(plan, options=attrs.evolve(FAST, leader_gone_grace=0.5))
    run.wait_for(lambda: "[main] up" in run.text())
    time.sleep(0.5)
    assert run.thread.is_alive()  # the port is open: it runs on
    leader.close()
    assert run.result() == 85
    assert f"error: the leader at 127.0.0.1:{port} has not accepted a connection for 0.5 s" in run.text()


def test_a_worker_watched_at_the_leader_s_api_server_outlives_the_closed_join_port_not_the_server(
    start: Callable[..., Started],
) -> None:
    """A plan watching another port than leader_port (vLLM data parallel): the join port may close.

    The worker waits for the join port, which then closes (vLLM's handshake ends); it runs
    on while the leader's API server listens, and is stopped once that has been closed for
    the grace, the message naming the server's port.
    """
    join, api = free_port(), free_port()
    joined = socket.create_server(("127.0.0.1", join))
    main = python("import time; print('up', flush=True); time.sleep(60)", wait_for_leader_port=True)
    plan = worker_plan(main, leader_port=join, on_leader_exit=MUST_BE_STOPPED, watch_port=api)
    run = start(plan, options=attrs.evolve(FAST, leader_gone_grace=0.5, leader_timeout=0.5))
    run.wait_for(lambda: "[main] up" in run.text())
    joined.close()  # the handshake is over
    server = socket.create_server(("127.0.0.1", api))  # the API server opens after loading
    time.sleep(1.5)  # past the grace and the leader timeout: neither the join port nor a late server counts
    assert run.thread.is_alive()
    assert f"watching the leader's API server at 127.0.0.1:{api}" in run.text()
    server.close()
    assert run.result() == 85
    assert f"error: the leader at 127.0.0.1:{api} has not accepted a connection for 0.5 s" in run.text()


def test_a_leader_s_api_server_is_awaited_as_long_as_a_rank_s_start_not_the_leader_timeout(
    start: Callable[..., Started],
) -> None:
    """An API server that never opens is a leader timeout only past the startup timeout (it loads a model)."""
    join, api = free_port(), free_port()
    joined = socket.create_server(("127.0.0.1", join))
    plan = worker_plan(
        python("import time; time.sleep(60)"),
        leader_port=join,
        on_leader_exit=MUST_BE_STOPPED,
        watch_port=api,
    )
    begun = time.monotonic()
    run = start(plan, options=attrs.evolve(FAST, leader_timeout=0.2, startup_timeout=1.5))
    assert run.result() == 82
    assert time.monotonic() - begun >= 1.5
    assert f"error: the leader at 127.0.0.1:{api} did not accept a connection within 1.5 s" in run.text()
    joined.close()


def test_health_gates_ready_the_key_is_sent_only_when_asked_for_and_never_shown(
    start: Callable[..., Started], tmp_path: Path
) -> None:
    port = free_port()
    main = python(SERVER, str(port), "3", "0.3", env={"TEST_KEY": KEY}, secret_env=frozenset({"TEST_KEY"}))
    status = tmp_path / "status.json"
    run = start(plan_of(main, serves_http=True, port=port, api_key=KEY), status_file=status)
    run.wait_for(lambda: run.supervisor.state == "ready")
    run.wait_for(lambda: run.supervisor.state == "unready")  # the server answers 503 from its 4th check
    run.supervisor.stop()
    assert run.result() == 143
    text = run.text()
    url = f"http://127.0.0.1:{port}/health"
    assert f"{url} asked for the API key: sending it as a bearer token from now on" in text
    assert f"state starting -> ready: {url} answered 200" in text
    assert f"state ready -> unready: {url} answered 503" in text
    document = json.loads(status.read_text())
    assert [t["state"] for t in document["transitions"]] == [
        "starting",
        "ready",
        "unready",
        "stopping",
        "exited",
    ]
    assert (document["state"], document["exit_code"], document["reason"]) == (
        "exited",
        143,
        "stopped by SIGTERM",
    )
    assert document["processes"][0]["pid"] == run.supervisor.pids[0]
    assert document["health_url"] == url
    assert KEY not in text
    assert KEY not in status.read_text()


def test_a_health_url_that_never_answers_200_is_a_startup_timeout(start: Callable[..., Started]) -> None:
    port = free_port()
    run = start(
        plan_of(python("import time; time.sleep(60)"), serves_http=True, port=port),
        options=attrs.evolve(FAST, startup_timeout=1.0),
    )
    assert run.result() == 83
    text = run.text()
    assert re.search(rf"not ready yet, \d s of 1 s: http://127.0.0.1:{port}/health connection refused", text)
    assert f"error: not ready within 1 s: http://127.0.0.1:{port}/health connection refused" in text


def test_a_program_that_cannot_start_is_unusable_input(start: Callable[..., Started]) -> None:
    run = start(plan_of(Command(path="/nonexistent/engine", args=("serve",))))
    assert run.result() == 2
    assert "error: main: cannot start: /nonexistent/engine not found: /nonexistent/engine serve" in run.text()


def test_an_unwritable_status_file_is_one_warning_and_the_shard_runs(
    start: Callable[..., Started], tmp_path: Path
) -> None:
    run = start(plan_of(python("print('ran')")), status_file=tmp_path / "missing" / "status.json")
    assert run.result() == 0
    assert run.text().count("warning: cannot write the status file") == 1
    assert "[main] ran" in run.text()


def test_a_supervisor_runs_its_plan_once(start: Callable[..., Started]) -> None:
    run = start(plan_of(python("pass")))
    assert run.result() == 0
    with pytest.raises(RuntimeError, match="runs its plan once"):
        run.supervisor.run()


def test_signals_are_caught_only_on_the_main_thread() -> None:
    supervisor = Supervisor(plan_of(python("pass")), environ={}, log=io.BytesIO())
    failed: list[BaseException] = []

    def run() -> None:
        try:
            supervisor.run()
        except RuntimeError as exc:
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(10)
    assert "handle_signals needs the main thread" in str(failed[0])


def test_options_refuse_what_is_not_a_positive_number_of_seconds() -> None:
    with pytest.raises(ValueError, match=r"stop_grace: expected a positive number of seconds, got 0"):
        RunOptions(stop_grace=0)
    with pytest.raises(ValueError, match=r"leader_timeout: expected a positive number of seconds, got nan"):
        RunOptions(leader_timeout=float("nan"))


def test_orphans_are_reaped_and_our_own_children_left_alone() -> None:
    ours = subprocess.Popen([sys.executable, "-c", "pass"])
    other = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = os.waitid(os.P_PID, other.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        mine = os.waitid(os.P_PID, ours.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if found is not None and mine is not None:
            break
        time.sleep(0.02)
    # One call reaps until it meets one of ours: the other may come after it.
    reaped = reap_orphans({ours.pid})
    assert ours.wait(timeout=10) == 0  # still ours to reap, with its status
    reaped += reap_orphans({ours.pid})
    assert reaped == [other.pid]
    with pytest.raises(ChildProcessError):
        os.waitpid(other.pid, os.WNOHANG)


def test_raw_logs_pass_lines_without_the_prefix(start: Callable[..., Started]) -> None:
    run = start(plan_of(python("print('plain')", name="engine")), options=attrs.evolve(FAST, raw_logs=True))
    assert run.result() == 0
    assert "\nplain\n" in run.text()
    assert "[engine]" not in run.text()


def test_a_caught_sighup_stops_the_shard_and_the_handlers_are_given_back() -> None:
    # On the main thread, as the command runs it: the signal is caught, forwarded as SIGTERM.
    log = io.BytesIO()
    plan = plan_of(python("import time; print('up', flush=True); time.sleep(60)"))
    supervisor = Supervisor(
        plan, environ=dict(os.environ), options=attrs.evolve(FAST, handle_signals=True), log=log
    )
    before = signal.getsignal(signal.SIGHUP)

    def hang_up() -> None:
        deadline = time.monotonic() + 20
        while b"[main] up" not in log.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGHUP)

    sender = threading.Thread(target=hang_up, daemon=True)
    sender.start()
    assert supervisor.run() == 128 + signal.SIGHUP
    sender.join(10)
    assert signal.getsignal(signal.SIGHUP) is before
    assert "exit status 129: stopped by SIGHUP" in log.getvalue().decode()
    assert all(gone(pid) for pid in supervisor.pids)


def test_a_leader_not_up_yet_has_not_gone_and_one_never_up_is_a_leader_timeout(
    start: Callable[..., Started],
) -> None:
    # A worker started without waiting: its leader's port closed from the start is a leader
    # still starting, not one gone; the grace counts only from the port's first opening.
    port = free_port()
    plan = worker_plan(
        python("import time; time.sleep(60)"), leader_port=port, on_leader_exit=MUST_BE_STOPPED
    )
    run = start(plan, options=attrs.evolve(FAST, leader_gone_grace=0.2, leader_timeout=1.0))
    assert run.result() == 82
    assert f"error: the leader at 127.0.0.1:{port} did not accept a connection within 1 s" in run.text()
    assert "has not accepted a connection for" not in run.text()


def test_a_plan_with_no_commands_is_refused_when_the_supervisor_is_made() -> None:
    with pytest.raises(ValueError, match=r"the plan of shard r-0 has no commands to run"):
        Supervisor(plan_of(), environ={}, log=io.BytesIO())


def test_the_key_in_a_failing_argv_reaches_neither_the_log_nor_the_status_file(
    start: Callable[..., Started], tmp_path: Path
) -> None:
    status = tmp_path / "status.json"
    run = start(
        plan_of(Command(path="/nonexistent/engine", args=("--api-key", KEY)), api_key=KEY), status_file=status
    )
    assert run.result() == 2
    document = json.loads(status.read_text())
    assert document["reason"] == (
        "main: cannot start: /nonexistent/engine not found: /nonexistent/engine --api-key <secret>"
    )
    assert KEY not in run.text() + status.read_text()


def test_a_long_argv_is_masked_before_it_is_cut_so_no_part_of_the_key_shows(
    start: Callable[..., Started],
) -> None:
    # The "started" line shows the argv cut at 2000 characters: here, in the key's middle.
    head = f"{sys.executable} -c pass "
    pad = "x" * (2000 - len(head) - 1 - len(KEY) // 2)
    run = start(plan_of(python("pass", pad, KEY), api_key=KEY))
    assert run.result() == 0
    started = next(line for line in run.text().splitlines() if "started main process" in line)
    assert KEY[: len(KEY) // 2] not in started
    assert started.endswith("<secret>…")


def test_a_child_whose_output_cannot_be_passed_on_is_stopped_not_left_running(
    start: Callable[..., Started], monkeypatch: pytest.MonkeyPatch
) -> None:
    from enginekit.run import children

    started: list[subprocess.Popen[bytes]] = []
    real_popen, real_dup = subprocess.Popen, os.dup

    def popen(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        started.append(real_popen(*args, **kwargs))  # type: ignore[call-overload]
        return started[-1]

    def dup(fd: int) -> int:
        if started and fd == started[-1].stderr.fileno():  # type: ignore[union-attr]
            raise OSError(24, "Too many open files")
        return real_dup(fd)

    monkeypatch.setattr(children.subprocess, "Popen", popen)
    monkeypatch.setattr(children.os, "dup", dup)
    run = start(plan_of(python("import time; time.sleep(60)")))
    assert run.result() == 2
    assert "main: cannot pass its output on (Too many open files), so it was stopped" in run.text()
    (process,) = started
    assert process.returncode is not None  # killed and reaped, not left running
    assert run.supervisor.pids == []


def test_a_status_file_that_fails_for_a_while_is_written_again_and_ends_exited(
    start: Callable[..., Started], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from enginekit.run.status import StatusFile

    real_write = StatusFile.write
    failures = [OSError(28, "No space left on device")] * 2

    def write(self: StatusFile, document: dict[str, object]) -> None:
        if failures:
            raise failures.pop()
        real_write(self, document)

    monkeypatch.setattr(StatusFile, "write", write)
    status = tmp_path / "status.json"
    run = start(plan_of(python("import time; time.sleep(0.3)")), status_file=status)
    assert run.result() == 0
    text = run.text()
    assert text.count("warning: cannot write the status file") == 1
    assert f"the status file {status} is written again" in text
    document = json.loads(status.read_text())
    assert (document["state"], document["exit_code"]) == ("exited", 0)


#: The main process: once the status file is there, it puts something else in its place.
SWAP = """
import os, sys, time
path, kind = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 10
while not os.path.isfile(path) and time.monotonic() < deadline:
    time.sleep(0.01)
os.remove(path)
if kind == "fifo":
    os.mkfifo(path)
else:
    os.symlink(path + ".victim", path)
print("swapped", flush=True)
time.sleep(0.3)
"""


@pytest.mark.parametrize(("kind", "said"), [("fifo", "is a FIFO"), ("symlink", "is a symbolic link")])
def test_a_status_file_swapped_for_what_is_not_a_regular_file_is_left_alone_and_said_once(
    start: Callable[..., Started], tmp_path: Path, kind: str, said: str
) -> None:
    status = tmp_path / "status.json"
    victim = tmp_path / "status.json.victim"
    victim.write_text("not the runner's\n")
    run = start(plan_of(python(SWAP, str(status), kind)), status_file=status)
    assert run.result() == 0
    text = run.text()
    assert "[main] swapped" in text
    assert text.count("warning: the status file is no longer written: ") == 1
    assert f"{status} {said}" in text
    assert "cannot write the status file" not in text
    mode = os.lstat(status).st_mode
    assert stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISLNK(mode)
    assert victim.read_text() == "not the runner's\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_supervisor_refuses_a_status_file_that_is_not_a_regular_file(tmp_path: Path) -> None:
    from enginekit.run.status import StatusPathRefused

    fifo = tmp_path / "status.json"
    os.mkfifo(fifo)
    with pytest.raises(
        StatusPathRefused, match=rf"^status_file: {re.escape(str(fifo))} is a FIFO, not a regular"
    ):
        Supervisor(plan_of(python("pass")), environ={}, status_file=fifo, log=io.BytesIO())
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


class _BrokenEngine:
    """An engine whose device listing hook breaks in a way the runner does not expect."""

    name = "broken"

    def device_listing(self, _shard: object) -> Command:
        raise RuntimeError("a plugin bug")


def test_an_unexpected_error_still_leaves_the_status_file_exited(tmp_path: Path) -> None:
    status = tmp_path / "status.json"
    plan = plan_of(python("pass"), gpu_indices=(0,))
    supervisor = Supervisor(
        plan, environ={}, engine=_BrokenEngine(), options=FAST, status_file=status, log=io.BytesIO()
    )  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="a plugin bug"):
        supervisor.run()
    document = json.loads(status.read_text())
    assert (document["state"], document["exit_code"]) == ("exited", 70)
    assert document["reason"] == "stopped by an internal error (RuntimeError)"
    assert supervisor.pids == []


def test_a_grandchild_that_left_the_group_is_reported_not_silently_left(
    start: Callable[..., Started],
) -> None:
    # It calls setsid(): out of its parent's group, out of reach, and it holds the pipes open.
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid(); print('escaped', os.getpid(), flush=True); time.sleep(30); os._exit(0)\n"
        "time.sleep(0.3)\n"
    )
    run = start(plan_of(python(code)))
    try:
        assert run.result() == 0
        assert re.search(
            r"warning: the output of main is still held open by a process outside its process group",
            run.text(),
        )
    finally:
        found = re.search(r"escaped (\d+)", run.text())
        if found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(found.group(1)), signal.SIGKILL)


def test_a_health_answer_that_trickles_is_cut_at_the_timeout() -> None:
    from enginekit.run.readiness import check

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    done = threading.Event()

    def trickle() -> None:
        connection, _ = server.accept()
        with connection:
            connection.recv(4096)
            # A byte at a time, each well inside the per-read timeout: never a whole answer.
            for _ in range(100):  # 10 s at most, so that the test ends even where the cut fails
                if done.wait(0.1):
                    return
                with contextlib.suppress(OSError):
                    connection.sendall(b"H")

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        began = time.monotonic()
        health = check(f"http://127.0.0.1:{port}/health", timeout=0.5)
        assert time.monotonic() - began < 3
        assert (health.status, health.error) == (None, "did not answer within 0.5 s")
    finally:
        done.set()
        thread.join(5)
        server.close()


def test_the_health_poller_outlives_an_unexpected_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from enginekit.run import readiness

    def broken(url: str, *, key: str = "", timeout: float) -> readiness.Health:
        raise ValueError("not expected")

    monkeypatch.setattr(readiness, "check", broken)
    poller = readiness.HealthPoller("http://127.0.0.1:9/health", key="", interval=0.05, timeout=1)
    try:
        deadline = time.monotonic() + 5
        while poller.latest is None and time.monotonic() < deadline:
            time.sleep(0.02)
        first = poller.latest
        assert first is not None
        assert first.error == "failed: ValueError"
        while poller.latest is first and time.monotonic() < deadline:
            time.sleep(0.02)
        assert poller.latest is not first  # still polling
    finally:
        poller.stop()


class _SlowListingEngine:
    """An engine whose device listing takes a minute: a stop must not wait for it."""

    name = "slow"
    policy = attrs.make_class("Policy", {"secret_env": attrs.field(default=frozenset())})()

    def device_listing(self, _shard: object) -> Command:
        return python("import time; print('listing', flush=True); time.sleep(60)", name="listing")

    def parse_devices(self, _text: str) -> list[str]:
        return ["GPU 0"]


def test_a_stop_during_the_device_check_stops_the_listing_at_once(start: Callable[..., Started]) -> None:
    plan = plan_of(python("print('must never start')"), gpu_indices=(0,))
    run = start(plan, engine=_SlowListingEngine(), options=attrs.evolve(FAST, probe_timeout=60))
    time.sleep(0.5)  # the listing is running
    began = time.monotonic()
    run.supervisor.stop()
    assert run.result(timeout=10) == 128 + signal.SIGTERM
    assert time.monotonic() - began < 3, "the listing was stopped, not waited for"
    assert "must never start" not in run.text()
    assert "cannot check the devices" not in run.text()
