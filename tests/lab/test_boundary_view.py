"""One Boundary view, two hosts: a typed model, one script, the record in words once.

The Boundary view is a :class:`BoundaryView` (pydantic: frozen, no extra fields, a meaning for
each field); the report embeds its JSON and the Inspector's pane syncs the same JSON, and one
script, ``footprint_lab/lab/render/boundary.js`` (a file of the package), renders it in both.
The script is held to the model's JSON schema: every field it reads is in the schema.
``test_report_boundary_browser.py`` shows both hosts render the same boundary in Chromium.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, ValidationError

from footprint_lab import Run
from footprint_lab.lab import Inspector, capture
from footprint_lab.lab.render import BOUNDARY_SCRIPT, boundary_css, boundary_script
from footprint_lab.lab.views import (
    BoundaryIteration,
    BoundaryMessage,
    BoundaryRecord,
    BoundaryView,
    boundary_view,
    boundary_views,
)
from footprint_lab.lab.widgets._boundary_pane import BoundaryPane
from tests.lab.test_report_boundary import pinned_run

ROOT = Path(__file__).resolve().parents[2]
MODELS: dict[str, type[BaseModel]] = {
    "view": BoundaryView,
    "step": BoundaryIteration,
    "message": BoundaryMessage,
    "record": BoundaryRecord,
}
"""The script's variable for each model (its header comment names them)."""

READ_IN_PYTHON: dict[str, set[str]] = {
    "view": {"total", "note", "text_chars"},  # the report's template: the slider, the note
    "step": {"call", "sent"},  # in the caption's words already
    "message": set(),
    "record": set(),
}
"""Fields the script does not read, and who does."""


@pytest.fixture(scope="module")
def run() -> Run:
    return pinned_run()


@pytest.fixture(scope="module")
def view(run: Run) -> BoundaryView:
    return boundary_view(run, capture(run))


def _definition(model: type[BaseModel]) -> dict[str, Any]:
    schema = BoundaryView.model_json_schema()
    if model is BoundaryView:
        return schema
    found: dict[str, Any] = schema["$defs"][model.__name__]
    return found


def _resolved(view: BoundaryView, index: int) -> tuple[Any, ...]:
    """Iteration ``index`` of ``view`` with its references resolved (they differ by view)."""
    step = view.iterations[index]
    return (
        step.iteration,
        step.caption,
        [(view.messages[ref], view.marks[view.states[code]]) for ref, code in step.window],
        [(view.messages[ref], how, born) for ref, how, born in step.left],
        step.records,
    )


def test_the_boundary_view_is_frozen_closed_and_each_field_has_a_meaning(
    view: BoundaryView,
) -> None:
    for model in MODELS.values():
        assert model.model_config.get("frozen") is True
        assert model.model_config.get("extra") == "forbid"
        properties = _definition(model)["properties"]
        assert set(properties) == set(model.model_fields)
        for name, field in properties.items():
            assert field.get("description", "").strip(), f"{model.__name__}.{name}"
    with pytest.raises(ValidationError):
        view.initial = 0  # type: ignore[misc]
    with pytest.raises(ValidationError):
        BoundaryView.model_validate({**view.model_dump(), "extra": 1})


def test_the_json_both_hosts_read_is_the_model_dumped(run: Run, view: BoundaryView) -> None:
    data = view.model_dump(mode="json")
    assert boundary_views(run, capture(run)) == data
    jsonschema.validate(data, BoundaryView.model_json_schema())
    assert BoundaryView.model_validate(data) == view
    # the Inspector's pane holds the same model's JSON, for the slider's iteration
    insp = Inspector(run)
    for step in view.iterations:
        insp.slider.value = step.iteration
        assert insp.boundary == boundary_view(run, insp.frames, [step.iteration])
        assert insp.boundary_pane.view == insp.boundary.model_dump(mode="json")
        assert _resolved(insp.boundary, 0) == _resolved(view, view.iterations.index(step))


def test_the_script_reads_only_fields_of_the_schema() -> None:
    script = boundary_script()
    for name, model in MODELS.items():
        read = set(re.findall(rf"\b{name}\.([A-Za-z_]\w*)", script))
        fields = set(_definition(model)["properties"])
        assert read, f"the script reads no field of `{name}` ({model.__name__})"
        assert read <= fields, f"{model.__name__} has no {sorted(read - fields)}"
        assert fields - read == READ_IN_PYTHON[name], model.__name__


def test_the_script_is_a_file_of_the_package_used_by_both_hosts(run: Run) -> None:
    asset = resources.files("footprint_lab.lab.render").joinpath(BOUNDARY_SCRIPT)
    assert asset.is_file()
    assert boundary_script() == asset.read_text(encoding="utf-8")
    # the wheel is the whole package folder: nothing in it is left out
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["hatch"]
    assert wheel["build"]["targets"]["wheel"] == {"packages": ["footprint_lab"]}
    assert not any(
        line.strip() and Path("footprint_lab/lab/render/boundary.js").match(line.strip())
        for line in (ROOT / ".gitignore").read_text("utf-8").splitlines()
    )
    # the report inlines it once; the pane runs it as its module
    from footprint_lab.lab.report import render_report

    page = render_report({"pinned": {"sliding-window": run}}).html
    assert page.count(boundary_script()) == 1
    assert BoundaryPane._esm == boundary_script()
    assert BoundaryPane._css == boundary_css("jupyterlab")
    for where in ("report", "jupyterlab"):
        assert "&#" not in boundary_css(where)  # type: ignore[arg-type]  # CSS, not escaped
    assert "var(--jp-layout-color1" in boundary_css("jupyterlab")
    assert "var(--jp-" not in boundary_css("report")
