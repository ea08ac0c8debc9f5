"""A store that checks itself: each part and checkpoint is sealed in its manifest entry (SHA-256
and size). Opening a damaged store refuses, naming the damaged files and the repair;
``corpus.verify()`` (and ``footprint-lab corpus verify``) finds every kind of damage, a
same-size byte flip too; building again from the same paths rebuilds each damaged file's parts
from its source and ends byte-identical to an undamaged build; a damaged file whose source the
build does not read becomes a problem row saying so, its runs gone."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from footprint_lab.corpus import Corpus, CorpusError
from tests.corpus.helpers import assert_same_store, small_sources


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return small_sources(tmp_path_factory.mktemp("damage-sources"))


@pytest.fixture(scope="module")
def whole(sources: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    store = tmp_path_factory.mktemp("damage-whole") / "store"
    return Corpus.build(sources, store, executor="inline", progress=False)


def _first(store: Path, folder: str) -> Path:
    return sorted((store / folder).glob("*.*"))[0]


def _delete(path: Path) -> None:
    path.unlink()


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip(path: Path) -> None:
    """One byte changed, the size kept: only hashing finds it."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _rewrite_rows(path: Path) -> None:
    """Valid Parquet, other rows: the file reads, and would be read as truth."""
    table = pq.read_table(path)
    pq.write_table(table.slice(0, max(0, table.num_rows - 1)), path)


DAMAGE: dict[str, tuple[str, Callable[[Path], None], bool]] = {
    "a part deleted": ("runs", _delete, True),
    "a part truncated": ("messages", _truncate, True),
    "a part's rows rewritten": ("calls", _rewrite_rows, True),
    "a part's byte flipped": ("messages", _flip, False),
    "a checkpoint deleted": ("checkpoints", _delete, True),
    "a checkpoint's byte flipped": ("checkpoints", _flip, False),
    "a problems part deleted": ("problems", _delete, True),
}
"""Each kind of damage: the folder, what is done to its first file, and whether opening the
store finds it (a size check) or only hashing does."""


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damage_is_found_and_a_build_repairs_it(
    sources: list[Path], whole: Corpus, tmp_path: Path, kind: str
) -> None:
    folder, damage, found_on_open = DAMAGE[kind]
    store = tmp_path / "store"
    shutil.copytree(whole.path, store)
    victim = _first(store, folder)
    damage(victim)
    relative = victim.relative_to(store).as_posix()
    if found_on_open:
        with pytest.raises(CorpusError) as refused:
            Corpus.open(store)
        message = str(refused.value)
        assert relative in message and "Build again from the same paths" in message
    else:
        Corpus.open(store)  # same size: opening does not hash
    verified = Corpus.open(store, check=False).verify()
    assert not verified.ok and [d.file for d in verified.damage] == [relative]
    assert relative in str(verified)
    repaired = Corpus.build(sources, store, executor="inline", progress=False)
    report = repaired.last_build
    assert report is not None and (report.repaired, report.lost) == (1, 0)
    assert "rebuilt from their source" in str(report)
    assert Corpus.open(store).verify().ok
    assert_same_store(Corpus.open(store), whole)


def test_damage_whose_source_is_not_read_becomes_a_problem(
    sources: list[Path], whole: Corpus, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    shutil.copytree(whole.path, store)
    entries = Corpus.open(store).entries()
    victim = next(e for e in entries.values() if e.runs)
    _delete(store / "checkpoints" / f"{victim.runs[0].split('-')[0]}.runs.zst")
    others = [p for p in sources if str(p) != victim.path]
    corpus = Corpus.build(others, store, executor="inline", progress=False)
    report = corpus.last_build
    assert report is not None and (report.repaired, report.lost) == (0, 1)
    assert corpus.verify().ok
    runs = corpus.frame("runs")
    assert victim.path not in set(runs["source_path"])
    problem = corpus.frame("problems")
    row = problem[problem["source_path"] == victim.path]
    assert len(row) == 1 and "its stored files are damaged" in row["message"].iloc[0]
    # building again with the file brings its runs back
    Corpus.build(sources, store, executor="inline", progress=False)
    assert_same_store(Corpus.open(store), whole)


def test_the_cli_verifies_a_store(whole: Corpus, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(whole.path, store)
    command = [sys.executable, "-m", "footprint_lab.cli", "corpus", "verify", str(store)]
    sound = subprocess.run(command, capture_output=True, text=True, check=False)
    assert sound.returncode == 0, sound.stderr
    assert "checked, every byte as sealed" in sound.stdout
    _flip(_first(store, "runs"))
    damaged = subprocess.run(command, capture_output=True, text=True, check=False)
    assert damaged.returncode == 1
    assert "1 damaged file(s)" in damaged.stderr and "changed" in damaged.stderr
    nothing = subprocess.run(
        [*command[:-1], str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert nothing.returncode == 2 and "no corpus store here" in nothing.stderr


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda data: data[:2], "corrupt checkpoint pack"),  # cut inside its index's length
        (lambda data: data[:4] + b"[1, x" + data[9:], "corrupt checkpoint pack"),  # its index
        (lambda data: data[:-3], "corrupt checkpoint"),  # cut inside the last run's frame
    ],
    ids=["length cut", "index broken", "frame cut"],
)
def test_a_damaged_pack_is_read_as_an_error_naming_it(
    whole: Corpus, tmp_path: Path, damage: Callable[[bytes], bytes], says: str
) -> None:
    # Reading does not hash (verify does): a run read from a damaged pack fails naming the pack
    # and what is wrong, never returns another run's bytes.
    store = tmp_path / "store"
    shutil.copytree(whole.path, store)
    corpus = Corpus.open(store, check=False)
    run_id = corpus.run_ids()[-1]
    pack = store / "checkpoints" / f"{run_id.split('-')[0]}.runs.zst"
    pack.write_bytes(damage(pack.read_bytes()))
    with pytest.raises(CorpusError, match=says) as raised:
        corpus.run(run_id)
    assert str(pack) in str(raised.value)


def test_a_run_past_its_packs_end_is_no_run(whole: Corpus) -> None:
    run_id = whole.run_ids()[0]
    with pytest.raises(CorpusError, match="no run"):
        whole.run(f"{run_id.split('-')[0]}-999")
