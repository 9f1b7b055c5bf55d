"""The command keeps secrets out of the programs it runs and off stdout, whatever the streams."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from enginekit import load_spec
from enginekit.cli import main

from tests.conftest import EXAMPLES

INHERITED = "inherited-key-0123456789"


def test_probe_keeps_an_inherited_key_out_of_the_device_listing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "llama-server"
    listing.write_text('#!/bin/sh\necho "key=[$LLAMA_API_KEY]" >&2\nexit 3\n')
    listing.chmod(0o755)
    environ = {"PATH": f"{tmp_path}:/usr/bin:/bin", "LLAMA_API_KEY": INHERITED, "ENGINEKIT_CONFIG": ""}
    code = main(["probe", str(EXAMPLES / "llamacpp-gpu.toml")], environ)
    out, err = capsys.readouterr()
    assert code == 2
    assert "key=[]" in err  # the listing ran, without the engine's key variable
    assert INHERITED not in out + err


def test_a_timeout_beyond_a_day_is_refused_by_the_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["probe", str(EXAMPLES / "llamacpp-gpu.toml"), "--timeout", "99999999999"], {})
    _, err = capsys.readouterr()
    assert code == 2
    assert "expected at most 86400 seconds (a day), got '99999999999'" in err


def test_with_stderr_closed_nothing_but_the_output_reaches_stdout(tmp_path: Path) -> None:
    script = f'exec "{sys.executable}" -m enginekit render "{tmp_path / "missing.toml"}" 2>&-'
    result = subprocess.run(
        ["/bin/sh", "-c", script], capture_output=True, text=True, timeout=60, env={"ENGINEKIT_CONFIG": ""}
    )
    assert result.returncode == 2
    assert result.stdout == ""


#: The key variables of every engine this repository ships, and the core's own.
EVERY_KEY_VARIABLE = ("VLLM_API_KEY", "LLAMA_API_KEY", "ENGINEKIT_API_KEY")


def test_probe_keeps_every_engines_key_variable_and_any_copy_of_the_key_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "llama-server"
    listing.write_text("#!/bin/sh\nenv >&2\nexit 3\n")
    listing.chmod(0o755)
    environ = {"PATH": f"{tmp_path}:/usr/bin:/bin", "ENGINEKIT_CONFIG": ""}
    environ |= {name: f"{name.lower()}-inherited-0123456789" for name in EVERY_KEY_VARIABLE}
    # The shard's own key, re-cased, under a name nobody declares.
    environ["MY_COPY"] = load_spec(EXAMPLES / "llamacpp-gpu.toml").spec.api_key.upper()
    code = main(["probe", str(EXAMPLES / "llamacpp-gpu.toml")], environ)
    _, err = capsys.readouterr()
    assert code == 2
    assert "PATH=" in err  # the listing ran, and printed its environment
    for name in (*EVERY_KEY_VARIABLE, "MY_COPY"):
        assert f"{name}=" not in err, name


def test_help_options_keeps_every_engines_key_variable_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    helper = tmp_path / "llama-server"
    helper.write_text("#!/bin/sh\nenv\n")
    helper.chmod(0o755)
    environ = {"PATH": f"{tmp_path}:/usr/bin:/bin", "ENGINEKIT_CONFIG": ""}
    environ |= {name: f"{name.lower()}-inherited-0123456789" for name in EVERY_KEY_VARIABLE}
    code = main(["help-options", str(EXAMPLES / "llamacpp-gpu.toml")], environ)
    out, _ = capsys.readouterr()
    assert code == 0
    assert "PATH=" in out
    for name in EVERY_KEY_VARIABLE:
        assert f"{name}=" not in out, name


def test_env_names_a_profile_variable_holding_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "ekt.Q7vXr2Lm9ZpK4wTb8NcYs3Hd"
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'replica_id = "r1"\nshard_id = "s1"\nhttp_port = 8000\ngpu_indices = [0]\napi_key = "{key}"\n'
        f'[profile]\nname = "p"\nengine = "vllm"\nmodel_path = "/models/m"\n'
        f'env = {{ VLLM_LOGGING_PREFIX = "{key.upper()}" }}\n'
    )
    code = main(["env", str(spec)], {"ENGINEKIT_CONFIG": ""})
    out, err = capsys.readouterr()
    assert code == 0
    assert "# VLLM_LOGGING_PREFIX: holds the API key, though no secret variable of the engine" in out
    assert "export VLLM_LOGGING_PREFIX='<secret>'" in out
    assert "env VLLM_LOGGING_PREFIX holds the API key" in err
    assert key.upper() not in out + err


SIM_KEY = "sim-demo-key-0123456789abcdef"  # examples/sim-single.toml's


@pytest.mark.parametrize(
    ("before", "after", "field"),
    [
        ('model_path = "/models/tiny-llama"', f'model_path = "/models/{SIM_KEY}"', "profile.model_path"),
        ('args = ["--ttft-ms"', f'args = ["--dtype", "{SIM_KEY}", "--ttft-ms"', "profile.args[1]"),
        ('path = "/adapters/sql-lora"', f'path = "/adapters/{SIM_KEY}"', "profile.adapters[0].path"),
    ],
    ids=["model_path", "args", "adapter path"],
)
@pytest.mark.parametrize("command", ["render", "validate"])
def test_a_key_pasted_into_a_spec_field_is_named_as_that_field_never_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], before: str, after: str, field: str, command: str
) -> None:
    text = (EXAMPLES / "sim-single.toml").read_text()
    assert f'api_key = "{SIM_KEY}"' in text
    assert before in text
    spec = tmp_path / "spec.toml"
    spec.write_text(text.replace(before, after))
    code = main([command, str(spec)], {"ENGINEKIT_CONFIG": ""})
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (
        f"enginekit: error: {field} holds the API key; engine 'sim' passes it on a command line, which any "
        "local user can read: take the key out of it (the engine gets it only in its environment, from "
        "api_key); refusing it\n"
    )
    assert SIM_KEY not in err


def test_a_disabled_engines_key_variable_is_kept_out_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """vLLM disabled here is never imported, so its policy is never read: its key is kept out by name."""
    helper = tmp_path / "llama-server"
    helper.write_text("#!/bin/sh\nenv\n")
    helper.chmod(0o755)
    environ = {
        "PATH": f"{tmp_path}:/usr/bin:/bin",
        "ENGINEKIT_CONFIG": "",
        "ENGINEKIT_ENGINES": "llamacpp",
        "VLLM_API_KEY": "vllm-inherited-0123456789",
    }
    code = main(["help-options", str(EXAMPLES / "llamacpp-gpu.toml")], environ)
    out, _ = capsys.readouterr()
    assert code == 0
    assert "PATH=" in out
    assert "VLLM_API_KEY" not in out
