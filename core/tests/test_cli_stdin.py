"""``SPEC`` as ``-``: the spec read from stdin, bounded, strict and masked exactly as a file is."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from enginekit.cli import main
from enginekit.spec.convert import MAX_DOCUMENT_BYTES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

KEY = "sk-stdin-0123456789abcdef"
SPEC = f"""
replica_id = "r1"
shard_id = "r1-0"
http_port = 8000
gpu_indices = [0]
api_key = "{KEY}"

[profile]
name = "fake-1"
engine = "fake"
model_path = "/models/llama"
"""
SPEC_JSON = {
    "replica_id": "r1",
    "shard_id": "r1-0",
    "http_port": 8000,
    "gpu_indices": [0],
    "api_key": KEY,
    "profile": {"name": "fake-1", "engine": "fake", "model_path": "/models/llama"},
}
NO_CONFIG = {"ENGINEKIT_CONFIG": ""}


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: bytes,
    *argv: str,
    environ: dict[str, str] | None = None,
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = main(list(argv), {**NO_CONFIG, **(environ or {})})
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("form", ["toml", "json"])
def test_render_reads_a_toml_or_json_spec_from_stdin(
    form: str, fake_dists: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = SPEC if form == "toml" else json.dumps(SPEC_JSON, indent=1)
    code, out, err = run(capsys, monkeypatch, text.encode(), "render", "-")
    assert code == 0, err
    assert "engine fake, profile fake-1, rank 0 of 1 (leader)" in out
    assert KEY not in out + err
    code, out, _ = run(capsys, monkeypatch, text.encode(), "render", "-", "--show-secrets")
    assert f"FAKE_API_KEY={KEY}" in out


def test_env_and_validate_read_stdin_too(
    fake_dists: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, SPEC.encode(), "env", "-", "--format", "dotenv")
    assert (code, out.splitlines()[-1]) == (0, "NCCL_IB_DISABLE=1")
    assert KEY not in out
    code, out, _ = run(capsys, monkeypatch, SPEC.encode(), "validate", "-")
    assert (code, out) == (0, "profile 'fake-1': valid for engine 'fake'\n")
    profile = json.dumps({"name": "bad", "engine": "fake", "model_path": "/m", "tp": 3})
    code, _, err = run(capsys, monkeypatch, profile.encode(), "validate", "-")
    assert (code, err) == (1, "enginekit: invalid: profile 'bad': fake refuses tp 3\n")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"a = ", "enginekit: error: <stdin>: not valid TOML: "),
        (b'{"replica_id": ', "enginekit: error: <stdin>: not valid JSON: "),
        (b"", "enginekit: error: spec.profile: required field missing"),
        (b"\xff\xfe", "enginekit: error: <stdin>: not UTF-8 text (byte 0)\n"),
        (
            b"x" * (MAX_DOCUMENT_BYTES + 1),
            f"enginekit: error: <stdin>: larger than {MAX_DOCUMENT_BYTES} bytes; a spec or config is a few KiB\n",
        ),
        (
            b'disabled = ["trtllm"]\n',
            "enginekit: error: <stdin>: a node config, not a shard spec; pass it with --config\n",
        ),
        (b"[profile]\nname = 'p'\nengine = 'fake'\nadpaters = []\n", "enginekit: error: "),
    ],
)
def test_bad_input_on_stdin_is_one_message_naming_stdin(
    data: bytes,
    expected: str,
    fake_dists: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run(capsys, monkeypatch, data, "render", "-")
    assert (code, out) == (2, "")
    assert err.startswith(expected), err
    assert "Traceback" not in err


def test_exactly_the_limit_is_read(
    fake_dists: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    padded = SPEC.encode().ljust(MAX_DOCUMENT_BYTES, b" ")
    code, _, err = run(capsys, monkeypatch, padded, "render", "-")
    assert code == 0, err


def test_a_closed_or_unreadable_stdin_is_one_message(
    fake_dists: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    closed = io.TextIOWrapper(io.BytesIO(b""))
    closed.close()
    for stdin, expected in [
        (closed, "enginekit: error: <stdin>: cannot read: stdin is closed\n"),
        (None, "enginekit: error: <stdin>: cannot read: stdin is closed\n"),
        (io.StringIO(SPEC.replace("fake-1", "caf\udce9")), "enginekit: error: <stdin>: not UTF-8 text\n"),
    ]:
        monkeypatch.setattr(sys, "stdin", stdin)
        code = main(["render", "-"], NO_CONFIG)
        out, err = capsys.readouterr()
        assert (code, out, err) == (2, "", expected)


def test_a_text_stream_without_bytes_is_read_as_text(
    fake_dists: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(SPEC))
    assert main(["validate", "-"], NO_CONFIG) == 0
    assert capsys.readouterr().out == "profile 'fake-1': valid for engine 'fake'\n"


@settings(max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_no_bytes_on_stdin_give_a_traceback_or_the_key(
    fake_dists: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, data: bytes
) -> None:
    code, out, err = run(capsys, monkeypatch, SPEC.encode() + data, "render", "-")
    assert code in (0, 1, 2)
    assert "Traceback" not in err
    assert KEY not in out + err
