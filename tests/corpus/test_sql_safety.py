"""``Corpus.sql`` cannot hurt the store: by default a query reads the frames and nothing else —
no file read, no file written (the store's own parts least of all), no database attached, no
extension installed, no setting changed back — and ``allow_external=True`` lets a query the
user wrote join their own files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from footprint_lab.corpus import Corpus
from tests.corpus.overview_fixtures import copy_of


@pytest.fixture(scope="module")
def corpus(real_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """A copy of the real corpus: these tests try to damage it."""
    return copy_of(real_corpus, tmp_path_factory.mktemp("sql") / "store")


def _fingerprint(root: Path) -> dict[str, str]:
    """Every file under ``root`` and the hash of its bytes."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_the_frames_read_as_before(corpus: Corpus) -> None:
    for name in ("runs", "calls", "messages", "records", "problems"):
        counted = corpus.sql(f"select count(*) as n from {name}")["n"].iloc[0]
        assert counted == len(corpus.frame(name)), name
    by_format = corpus.sql("select format, count(*) as n from runs group by format order by format")
    frame = corpus.frame("runs").groupby("format").size()
    assert dict(zip(by_format["format"], by_format["n"], strict=True)) == frame.to_dict()


def test_a_query_cannot_read_write_or_attach_files(corpus: Corpus, tmp_path: Path) -> None:
    root = Path(corpus.path)
    before = _fingerprint(root)
    part = next((root / "runs").glob("*.parquet"))
    outside = tmp_path / "secret.csv"
    outside.write_text("a,b\n1,2\n", encoding="utf-8")
    attempts = {
        "read a file": f"select * from read_csv('{outside}')",
        "read a part directly": f"select * from read_parquet('{part}')",
        "list files": f"select * from glob('{root}/*')",
        "overwrite a live part": f"copy (select * from runs limit 1) to '{part}' (format parquet)",
        "write beside the store": f"copy runs to '{root}/runs/extra.parquet' (format parquet)",
        "write anywhere": f"copy runs to '{tmp_path}/out.csv'",
        "attach a database": f"attach '{tmp_path}/x.duckdb'",
        "switch access back on": "set enable_external_access = true",
        "unlock the settings": "set lock_configuration = false",
        "install an extension": "install httpfs",
    }
    for what, query in attempts.items():
        with pytest.raises(duckdb.Error) as refused:
            corpus.sql(query)
        message = str(refused.value)
        assert "disabled by configuration" in message or "configuration has been locked" in (
            message
        ), (what, message)
    # an in-memory table lasts for its query and touches nothing
    assert corpus.sql("create table t as select * from runs") is not None
    assert not (tmp_path / "out.csv").exists()
    assert _fingerprint(root) == before
    assert len(corpus.frame("runs")) == len(corpus.refresh().frame("runs"))


def test_allow_external_joins_the_users_own_files(corpus: Corpus, tmp_path: Path) -> None:
    formats = tmp_path / "formats.csv"
    formats.write_text("format,family\nswe-agent,coding\ntau-bench,retail\n", encoding="utf-8")
    query = (
        f"select f.family, count(*) as n from runs join read_csv('{formats}') f "
        "using (format) group by f.family order by f.family"
    )
    with pytest.raises(duckdb.Error, match="disabled by configuration"):
        corpus.sql(query)
    joined = corpus.sql(query, allow_external=True)
    runs = corpus.frame("runs")
    expected = {
        "coding": int((runs["format"] == "swe-agent").sum()),
        "retail": int((runs["format"] == "tau-bench").sum()),
    }
    assert dict(zip(joined["family"], joined["n"], strict=True)) == expected
