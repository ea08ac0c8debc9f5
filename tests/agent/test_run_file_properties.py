"""Run files on disk: damage is reported, reading is bounded, saves leave nothing behind.

Properties (hypothesis, 1,000 examples each) — a damaged file is never loaded as another run:
(a) every single-bit flip of a saved file is a ``RunFileError`` (the checksum sees it);
(b) every truncation is a ``RunFileError``;
(c) replacing any leaf with random JSON gives a ``RunFileError`` or the very same run — and,
    in a file without checksum, a ``RunFileError`` or a run whose own file loads back equal.
Never another exception type. Then: what is not a regular file, too big, too deep or not UTF-8
is refused at once; a save removes killed saves' temp files (never a live save's: concurrent
saves to one path all succeed), writes through a symlink and gives the file the mode
``open()`` would.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from footprint_lab import RunFileError, load_run
from footprint_lab.agent.checkpoint import MAX_RUN_FILE_BYTES
from footprint_lab.agent.run import Run
from footprint_lab.scenarios import deploy_audit
from tests.agent.test_run_files import _refused, _run
from tests.budget import examples

_FOLDER = Path(tempfile.mkdtemp(prefix="run-file-properties-"))
atexit.register(shutil.rmtree, _FOLDER, ignore_errors=True)
_CACHE: dict[str, Any] = {}


def _original() -> Run:
    if "run" not in _CACHE:
        scenario = deploy_audit()
        _CACHE["run"] = scenario.run(scenario.strategies()["summarize-oldest"])
        _CACHE["dump"] = _CACHE["run"].checkpoint().model_dump()
    run: Run = _CACHE["run"]
    return run


def _dump() -> dict[str, Any]:
    _original()
    dump: dict[str, Any] = _CACHE["dump"]
    return dump


def _saved_bytes() -> bytes:
    if "bytes" not in _CACHE:
        _CACHE["bytes"] = _original().save(_FOLDER / "original.json").read_bytes()
    data: bytes = _CACHE["bytes"]
    return data


def _leaves(node: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if isinstance(node, dict) and node:
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list) and node:
        for i, value in enumerate(node):
            yield from _leaves(value, (*path, i))
    else:
        yield path


def _leaf_paths() -> list[tuple[str | int, ...]]:
    if "leaves" not in _CACHE:
        _CACHE["leaves"] = list(_leaves(json.loads(_saved_bytes())))
    leaves: list[tuple[str | int, ...]] = _CACHE["leaves"]
    return leaves


def _load(name: str, data: bytes) -> Run:
    path = _FOLDER / name
    path.write_bytes(data)
    try:
        return load_run(path)
    except RunFileError as exc:
        assert str(path) in str(exc)
        raise


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=examples(1000), deadline=None)
@given(data=st.data())
def test_every_bit_flip_is_reported(data: st.DataObject) -> None:
    original = _saved_bytes()
    at = data.draw(st.integers(0, len(original) - 1), label="byte")
    bit = data.draw(st.integers(0, 7), label="bit")
    flipped = bytearray(original)
    flipped[at] ^= 1 << bit
    with pytest.raises(RunFileError):
        _load("flipped.json", bytes(flipped))


@settings(max_examples=examples(1000), deadline=None)
@given(data=st.data())
def test_every_truncation_is_reported(data: st.DataObject) -> None:
    original = _saved_bytes()
    # Both ends are where a killed writer or a full disk cuts a file; draw there too.
    cut = data.draw(
        st.integers(0, len(original) - 1)
        | st.integers(0, 64)
        | st.integers(len(original) - 64, len(original) - 1),
        label="cut",
    )
    with pytest.raises(RunFileError):
        _load("truncated.json", original[:cut])


def test_truncations_near_both_ends_are_reported() -> None:
    original = _saved_bytes()
    for cut in [*range(0, 300), *range(len(original) - 300, len(original))]:
        with pytest.raises(RunFileError):
            _load("cut.json", original[:cut])


def _set(doc: Any, path: tuple[str | int, ...], value: Any) -> None:
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


@settings(max_examples=examples(1000), deadline=None)
@given(data=st.data())
def test_a_replaced_leaf_is_reported_or_changes_nothing(data: st.DataObject) -> None:
    leaf = data.draw(st.sampled_from(_leaf_paths()), label="leaf")
    value = data.draw(_JSON, label="value")
    doc = json.loads(_saved_bytes())
    _set(doc, leaf, value)
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    try:
        loaded = _load("mutated.json", text.encode("utf-8"))
    except RunFileError:
        return
    assert loaded.checkpoint().model_dump() == _dump()


@settings(max_examples=examples(1000), deadline=None)
@given(data=st.data())
def test_without_checksum_what_loads_is_a_whole_run(data: st.DataObject) -> None:
    leaf = data.draw(st.sampled_from([p for p in _leaf_paths() if p != ("checksum",)]))
    value = data.draw(_JSON, label="value")
    doc = json.loads(_saved_bytes())
    del doc["checksum"]
    _set(doc, leaf, value)
    try:
        loaded = _load("unchecked.json", json.dumps(doc).encode("utf-8"))
    except RunFileError:
        return
    # Whatever loads is a whole run: it saves, and its own file loads back equal.
    again = load_run(loaded.save(_FOLDER / "again.json"))
    assert again.checkpoint().model_dump() == loaded.checkpoint().model_dump()
    for i in range(len(loaded.calls)):
        assert again.window_sent(i) == loaded.window_sent(i)


def test_an_untouched_reserialisation_loads_equal() -> None:
    doc = json.loads(_saved_bytes())
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    assert _load("same.json", text.encode("utf-8")).checkpoint().model_dump() == _dump()


# -- bounded reading ----------------------------------------------------------------------


def _returns_within(seconds: float, fn: Callable[[], object]) -> BaseException | None:
    """Run ``fn`` in a thread; fail (rather than hang) when it does not return in time."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            fn()
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"load did not return within {seconds} s (it blocked)"
    return outcome[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    try:
        exc = _returns_within(5, lambda: load_run(fifo))
    finally:
        # Unblock a regressed reader still waiting on the FIFO, so its thread can end.
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert isinstance(exc, RunFileError) and str(fifo) in str(exc) and "FIFO" in str(exc)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    _refused(tmp_path, "is a directory")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_dev_zero_is_refused_without_reading() -> None:
    exc = _returns_within(5, lambda: load_run("/dev/zero"))
    assert isinstance(exc, RunFileError) and "/dev/zero" in str(exc)
    assert "character device" in str(exc)


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs unix sockets")
def test_a_socket_is_refused() -> None:
    folder = tempfile.mkdtemp()
    path = Path(folder) / "s.json"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
        _refused(path, "is a socket")
    finally:
        server.close()
        path.unlink(missing_ok=True)
        os.rmdir(folder)


def test_a_file_over_the_size_limit(tmp_path: Path) -> None:
    path = _run().save(tmp_path / "run.json")
    size = path.stat().st_size
    _refused(
        path, f"{size} bytes", "limit of 1000 bytes", loader=lambda p: load_run(p, max_bytes=1000)
    )
    assert load_run(path, max_bytes=size).status == "done"
    assert MAX_RUN_FILE_BYTES == 512 * 1024 * 1024


def test_deep_nesting_is_a_run_file_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, encoding="utf-8")
    _refused(path)
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    _refused(path)
    text = _run().checkpoint().model_dump_json()
    deep = text.replace('"meta":{', '"meta":{"deep":' + "[" * 50_000 + "]" * 50_000 + ",", 1)
    path.write_text(deep, encoding="utf-8")
    _refused(path, "nested too deeply")


def test_a_bom_is_accepted(tmp_path: Path) -> None:
    path = _run().save(tmp_path / "run.json")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_run(path).checkpoint().model_dump() == _run().checkpoint().model_dump()


def test_invalid_utf8_is_a_run_file_error(tmp_path: Path) -> None:
    path = _run().save(tmp_path / "run.json")
    data = path.read_bytes()
    at = data.index(b"DEPLOY")
    path.write_bytes(data[:at] + b"\xff\xfe" + data[at + 2 :])
    _refused(path, "not valid UTF-8")


# -- saves leave nothing behind -----------------------------------------------------------


def test_stale_temp_files_are_removed_and_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "audit.json"
    stale = [tmp_path / ".audit.json.abc.tmp", tmp_path / ".audit.json.k2_x9QzW.tmp"]
    stale[0].write_text("half a run")
    with open(stale[1], "wb") as handle:
        handle.truncate(8 * 1024 * 1024)  # a large leftover
    unrelated = [
        tmp_path / ".audit.json.bak",
        tmp_path / "audit.json.abc.tmp",
        tmp_path / ".other.json.abc.tmp",
        tmp_path / ".audit.json.x.abc.tmp",  # the temp of audit.json.x, not of audit.json
        tmp_path / ".audit.json..tmp",
        tmp_path / "notes.txt",
    ]
    for path in unrelated:
        path.write_text("keep me")
    os.symlink(tmp_path / "notes.txt", tmp_path / ".audit.json.lnk.tmp")
    _run().save(target)
    assert not any(p.exists() for p in stale)
    assert all(p.read_text() == "keep me" for p in unrelated)
    assert (tmp_path / ".audit.json.lnk.tmp").is_symlink()
    assert load_run(target).status == "done"


@pytest.mark.skipif(os.name != "posix", reason="advisory locks")
def test_a_live_saves_temp_file_is_left_alone(tmp_path: Path) -> None:
    import fcntl

    live = tmp_path / ".audit.json.live1234.tmp"
    with open(live, "w") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        _run().save(tmp_path / "audit.json")
        assert live.exists()
    _run().save(tmp_path / "audit.json")
    assert not live.exists()


def test_saving_through_a_symlink_writes_its_target(tmp_path: Path) -> None:
    real = tmp_path / "store" / "real.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    returned = _run().save(link)
    assert returned == link
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert load_run(real).status == "done"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert not [p for p in real.parent.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_saved_files_get_the_mode_open_would_give(tmp_path: Path, umask: int) -> None:
    previous = os.umask(umask)
    try:
        probe = tmp_path / "probe.txt"
        with open(probe, "w"):
            pass
        expected = stat.S_IMODE(probe.stat().st_mode)
        saved = _run().save(tmp_path / "run.json")
        assert stat.S_IMODE(saved.stat().st_mode) == expected
        os.chmod(saved, 0o640)  # an existing file keeps its mode, as open() would leave it
        _run().save(saved)
        assert stat.S_IMODE(saved.stat().st_mode) == 0o640
    finally:
        os.umask(previous)


_SAVE_CHILD = Path(__file__).with_name("concurrent_save_child.py")


@pytest.mark.skipif(os.name != "posix", reason="advisory locks")
def test_concurrent_saves_to_one_path_all_succeed(tmp_path: Path) -> None:
    # Three processes of four threads, 300 saves in all to one path: each save's sweep of
    # killed saves' temp files must leave the others' live temps alone (#24 item 12).
    target = tmp_path / "run.json"
    children = [
        subprocess.Popen(
            [sys.executable, str(_SAVE_CHILD), str(target), "4", "25", str(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    saves, failures = 0, []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        report = json.loads(out)
        saves += report["saves"]
        failures += report["failures"]
    assert saves == 300
    assert failures == []
    assert load_run(target).request in {f"save from {n}" for n in range(3)}
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temp file left behind


@pytest.mark.skipif(os.name != "posix", reason="advisory locks")
def test_a_sweep_in_the_instant_before_the_lock_costs_the_save_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race of #24 item 12, made certain: another save's sweep runs right after this
    # save's temp file is created and before it is locked. The save must still land.
    from footprint_lab.agent import _runfile_io

    target = tmp_path / "run.json"
    real_mkstemp = tempfile.mkstemp
    swept: list[Path] = []

    def mkstemp_then_sweep(*args: Any, **kwargs: Any) -> tuple[int, str]:
        made = real_mkstemp(*args, **kwargs)
        if not swept:  # once: the retry's temp is left to the save
            swept.extend(_runfile_io.remove_stale_temps(target))
        return made

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_then_sweep)  # as _runfile_io calls it
    _run().save(target)
    assert [p.name for p in swept] and swept[0].name.endswith(".tmp")  # the sweep took it
    assert load_run(target).status == "done"
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]
