"""Compact cells: long lists in a records table said briefly.

Layer: lab (views). A record that refused eight turns for one reason lists that reason eight
times, and a summarizing strategy can remove dozens of stage ids at one visit: as they are,
those cells make a records table wider than any screen. :func:`compact_records` is the one
place the records table — the widgets' and the report's, through
:func:`footprint_lab.lab.views.records_view` — says them briefly: a repeated reason once with
its count and its turns as ranges (``inside-keep-window × 8 (turns 1–8)``), repeated tool names
once with their count, and a long id list as its first ids and how many more. Each shortened
cell is an :class:`Abridged` string that keeps the whole list (the table shows it as the
cell's tooltip); the frames themselves, and a table's CSV download, keep every item.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = [
    "ID_LIST_SHOWN",
    "Abridged",
    "compact_records",
    "counted",
    "id_list",
    "number_ranges",
    "split_list",
]

ID_LIST_SHOWN = 6
"""A list of ids longer than this shows its first ``ID_LIST_SHOWN - 1`` and how many more."""

SEPARATOR = ", "
"""How the records frame joins the items of a list cell."""

TIMES = "×"
"""Between an item and its count."""


class Abridged(str):
    """A cell's short text that keeps what it stands for: ``full`` (the whole list, shown as
    the cell's tooltip)."""

    full: str

    def __new__(cls, text: str, full: str) -> Abridged:
        """``text`` shown, ``full`` kept."""
        made = super().__new__(cls, text)
        made.full = full
        return made


def split_list(cell: Any) -> list[str]:
    """The items of a joined list cell (``"a, b, a"``); none for a blank or missing cell."""
    if not isinstance(cell, str) or not cell:
        return []
    return cell.split(SEPARATOR)


def number_ranges(numbers: Iterable[int]) -> str:
    """Whole numbers as sorted ranges: ``[1, 2, 3, 5, 7, 8]`` -> ``"1–3, 5, 7–8"``."""
    ordered = sorted(set(numbers))
    spans: list[str] = []
    start = prev = None
    for n in [*ordered, None]:
        if start is not None and n is not None and prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            spans.append(str(start) if start == prev else f"{start}–{prev}")
        start = prev = n
    return SEPARATOR.join(spans)


def _with_turns(turns: Sequence[int]) -> str:
    if not turns:
        return ""
    word = "turn" if len(set(turns)) == 1 else "turns"
    return f" ({word} {number_ranges(turns)})"


def counted(items: Sequence[str], turns: Mapping[str, Sequence[int]] | None = None) -> str:
    """Each distinct item once, in order of first appearance, with ``× n`` when it repeats and
    its ``turns`` as ranges when given: ``["a", "b", "b"]`` -> ``"a, b × 2"``."""
    counts = Counter(items)
    parts = []
    for item in dict.fromkeys(items):
        n = counts[item]
        times = f" {TIMES} {n}" if n > 1 else ""
        parts.append(f"{item}{times}{_with_turns((turns or {}).get(item, ()))}")
    return SEPARATOR.join(parts)


def id_list(ids: Sequence[str], shown: int = ID_LIST_SHOWN) -> str:
    """``ids`` joined, or, when there are more than ``shown``, the first ``shown - 1`` and how
    many more: ``"a, b, c, d, e … and 12 more"``."""
    if len(ids) <= shown:
        return SEPARATOR.join(ids)
    head = SEPARATOR.join(ids[: shown - 1])
    return f"{head} … and {len(ids) - (shown - 1)} more"


def _abridged(text: str, full: Any) -> Any:
    """``text`` as an :class:`Abridged` cell when it is shorter than ``full``, else ``full``."""
    if isinstance(full, str) and text != full:
        return Abridged(text, full)
    return full


def _cells(frame: pd.DataFrame, values: list[Any]) -> pd.Series:
    """``values`` as a column of ``frame`` that keeps them as they are (object dtype: a string
    dtype would turn an :class:`Abridged` back into a plain string)."""
    return pd.Series(values, index=frame.index, dtype=object)


def _turns_by_record(refusals: pd.DataFrame) -> dict[int, dict[str, list[int]]]:
    """Record -> reason -> the turns refused for it."""
    out: dict[int, dict[str, list[int]]] = {}
    if refusals.empty or not {"record", "reason", "turn_index"} <= set(refusals.columns):
        return out
    for record, reason, turn in refusals.loc[:, ["record", "reason", "turn_index"]].itertuples(
        index=False, name=None
    ):
        if pd.isna(record) or pd.isna(turn):
            continue
        out.setdefault(int(record), {}).setdefault(str(reason), []).append(int(turn))
    return out


def compact_records(
    records: pd.DataFrame, refusals: pd.DataFrame, columns: Sequence[str]
) -> pd.DataFrame:
    """``records`` cut to ``columns`` (those it has), with its list cells said briefly:
    ``refusal_reasons`` counted with their turns (from ``refusals``, the capture's refusals
    frame), ``pinned_tools`` counted, ``removed_stage_ids`` and ``cleared_stage_ids`` as
    :func:`id_list`. Shortened cells are :class:`Abridged`; the others are as they were.

    Args:
        records: A capture's ``records`` frame.
        refusals: The same capture's ``refusals`` frame (one row per refused turn).
        columns: The columns to keep, in order.
    """
    shown = [c for c in columns if c in records.columns]
    out = records.loc[:, shown].copy()
    turns = _turns_by_record(refusals)
    record_ids: list[Any] = (
        records["record"].tolist() if "record" in records.columns else [None] * len(records)
    )
    if "refusal_reasons" in out.columns:
        out["refusal_reasons"] = _cells(
            out,
            [
                _abridged(
                    counted(
                        split_list(cell),
                        turns.get(int(rid), {}) if rid is not None and not pd.isna(rid) else None,
                    ),
                    cell,
                )
                for cell, rid in zip(out["refusal_reasons"].tolist(), record_ids, strict=True)
            ],
        )
    if "pinned_tools" in out.columns:
        out["pinned_tools"] = _cells(
            out, [_abridged(counted(split_list(c)), c) for c in out["pinned_tools"].tolist()]
        )
    for column in ("removed_stage_ids", "cleared_stage_ids"):
        if column in out.columns:
            out[column] = _cells(
                out, [_abridged(id_list(split_list(c)), c) for c in out[column].tolist()]
            )
    return out
