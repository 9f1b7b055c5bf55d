"""The status file's writer: only a regular file (or nothing) is replaced, through a new file nobody could plant."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest
from enginekit.run import status as st
from enginekit.run.status import StatusFile, StatusPathRefused, refusal

DOCUMENT = {"format_version": st.STATUS_FORMAT, "state": st.STARTING}


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(path))  # the name stays after the socket is closed


def _directory(path: Path) -> None:
    path.mkdir()


def _link(path: Path) -> None:
    target = path.with_name("target.json")
    target.write_text("the target's own text\n")
    path.symlink_to(target)


def _dangling_link(path: Path) -> None:
    path.symlink_to(path.with_name("nothing-here.json"))


MAKERS = {
    "FIFO": (_fifo, "is a FIFO, not a regular file"),
    "socket": (_socket, "is a socket, not a regular file"),
    "directory": (_directory, "is a directory, not a regular file"),
    "symlink": (_link, "is a symbolic link: each status write would replace the link itself"),
    "dangling symlink": (_dangling_link, "is a symbolic link"),
}


@pytest.fixture
def short_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A socket's path has a limit of about 100 bytes: keep the folder's name short.
    return tmp_path_factory.mktemp("st", numbered=True)


def test_nothing_yet_or_a_regular_file_may_be_replaced(short_tmp: Path) -> None:
    path = short_tmp / "status.json"
    assert refusal(path) is None
    path.write_text("{}")
    assert refusal(path) is None
    assert refusal(short_tmp / "missing" / "status.json") is None, "the write says why, as a warning"


def test_a_character_device_is_refused_and_never_written() -> None:
    why = refusal(Path("/dev/null"))
    assert why == (
        "/dev/null is a character device, not a regular file: each status write replaces the path "
        "with a new file; give the path of a regular file, or of nothing yet"
    )


@pytest.mark.parametrize("kind", list(MAKERS))
def test_what_is_not_a_regular_file_is_refused_naming_what_it_is(short_tmp: Path, kind: str) -> None:
    make, said = MAKERS[kind]
    path = short_tmp / "s"
    make(path)
    why = refusal(path)
    assert why is not None
    assert why.startswith(f"{path} {said}")


@pytest.mark.parametrize("kind", list(MAKERS))
def test_a_path_swapped_after_a_write_is_left_alone_and_no_temporary_file_remains(
    short_tmp: Path, kind: str
) -> None:
    make, said = MAKERS[kind]
    path = short_tmp / "s"
    writer = StatusFile(path)
    writer.write(DOCUMENT)
    assert json.loads(path.read_text()) == DOCUMENT
    path.unlink()
    make(path)
    before = os.lstat(path)
    with pytest.raises(StatusPathRefused, match=said):
        writer.write({**DOCUMENT, "state": st.READY})
    after = os.lstat(path)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)
    if kind == "symlink":
        assert path.with_name("target.json").read_text() == "the target's own text\n"
    assert sorted(p.name for p in short_tmp.iterdir() if p.name.endswith(".tmp")) == []


def test_the_temporary_file_is_only_ever_a_new_one(short_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file planted at the temporary name is neither truncated nor written, nor renamed over the status."""
    path = short_tmp / "status.json"
    monkeypatch.setattr(os, "urandom", lambda n: b"\x01" * n)
    planted = short_tmp / f".status.json.{'01' * 8}.tmp"
    planted.write_text("planted\n")
    with pytest.raises(FileExistsError):
        StatusFile(path).write(DOCUMENT)
    assert planted.read_text() == "planted\n"
    assert not path.exists()


def test_each_write_uses_a_fresh_random_name_and_the_mode_of_before(
    short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names: list[str] = []
    flags: list[int] = []
    modes: list[int] = []
    real_open = os.open

    def recording_open(name: str | Path, flag: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if str(name).endswith(".tmp"):  # the writer's; anything else opened meanwhile passes
            names.append(os.path.basename(name))
            flags.append(flag)
            modes.append(mode)
        return real_open(name, flag, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", recording_open)
    writer = StatusFile(short_tmp / "status.json")
    writer.write(DOCUMENT)
    writer.write(DOCUMENT)
    assert len(set(names)) == 2
    assert modes == [0o644, 0o644], "readable by a node agent of another user, as before"
    assert all(str(os.getpid()) not in name.split(".") for name in names)
    assert all(flag & os.O_CREAT and flag & os.O_EXCL and flag & os.O_NOFOLLOW for flag in flags)
    assert not any(flag & os.O_TRUNC for flag in flags)


def test_a_parent_re_pointed_after_the_first_write_moves_no_write(short_tmp: Path) -> None:
    """The directory is held open: a link in the path, changed later, chooses nothing."""
    real = short_tmp / "real"
    other = short_tmp / "other"
    real.mkdir()
    other.mkdir()
    (other / "status.json").write_text("the operator's file\n")
    link = short_tmp / "link"
    link.symlink_to(real)
    writer = StatusFile(link / "status.json")
    writer.write(DOCUMENT)
    link.unlink()
    link.symlink_to(other)  # whoever owns the link points it at another directory
    writer.write(DOCUMENT)
    assert (other / "status.json").read_text() == "the operator's file\n"
    assert json.loads((real / "status.json").read_text()) == DOCUMENT
