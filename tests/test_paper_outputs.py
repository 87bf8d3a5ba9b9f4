"""What a paper takes from a run besides the pages: vector PDF figures, LaTeX tables, comparisons that cannot
mislead (one judge however it is spelled, organization runs refused with a reason, runs never written into a
sweep or another directory), console tables that survive a pipe, and honest cost cells."""

from __future__ import annotations

import json
import re
from html import unescape
import zlib
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.errors import UserError
from blockpact.experiments.studies.compare import compare
from blockpact.experiments.studies.compare_sources import FORMAL_JUDGE, judge_label
from blockpact.experiments.outputs.llm_accounting import cost_text
from blockpact.experiments.outputs.plot_style import action_window
from blockpact.experiments.outputs.svg_figure import Figure, ticks
from blockpact.experiments.outputs.svg_pdf import SvgPdfError, _pdf_string, _text_bytes, svg_to_pdf, text_width
from blockpact.experiments.outputs.tables import latex_escape, latex_table
from blockpact.worlds.colors import palette


@pytest.fixture(scope="module")
def dv(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dv") / "run"
    assert main(["run", "double_vein", "--seeds", "2", "--out", str(out)]) == 0
    return out


def _pdf_ops(pdf: bytes) -> str:
    stream = pdf[pdf.index(b"stream\n") + 7: pdf.index(b"\nendstream")]
    return zlib.decompress(stream).decode("latin-1")


def test_every_figure_is_a_pdf_with_the_svgs_text_and_marks(dv: Path) -> None:
    for svg in (dv / "plots").glob("*.svg"):
        pdf = svg.with_suffix(".pdf").read_bytes()
        assert pdf.startswith(b"%PDF-1.4")
        xref = int(re.search(rb"startxref\n(\d+)", pdf).group(1))
        assert pdf[xref:xref + 4] == b"xref"  # the cross-reference table is where the trailer says
        ops = _pdf_ops(pdf)
        texts = re.findall(r"<text[^>]*>([^<]+)</text>", svg.read_text())
        assert texts and all(_pdf_string(_text_bytes(unescape(t))) in ops for t in texts)
        assert " re W n" in ops  # panels clipped
        assert re.search(r" l\n", ops)  # lines drawn


def test_pdf_refuses_what_it_cannot_draw() -> None:
    with pytest.raises(SvgPdfError, match="ellipse"):
        svg_to_pdf('<svg xmlns="http://www.w3.org/2000/svg" width="10pt" height="10pt"><ellipse/></svg>')
    assert text_width("Hello", 10) == pytest.approx((722 + 556 + 222 + 222 + 556) / 100)


def test_figures_keep_round_ticks_and_start_at_zero(dv: Path) -> None:
    assert ticks(0, 15, integer=True) == [0, 2, 4, 6, 8, 10, 12, 14]
    assert action_window([3.0, 14.6], 300.0) == (20.0, 300.0)  # cut, and said
    assert action_window([250.0], 300.0) == (300.0, None)
    welfare = (dv / "plots" / "welfare.svg").read_text()
    assert re.search(r"first (20|25) of 300 s shown \(no change after\)", welfare)
    labels = re.findall(r'text-anchor="end">([^<]+)</text>', welfare)
    assert labels[0] == "0" and all(re.fullmatch(r"\d+", v) for v in labels)  # from 0, round


def test_tables_are_csv_and_latex(dv: Path) -> None:
    csv_text = (dv / "tables" / "summary.csv").read_text()
    assert csv_text.splitlines()[0].startswith("condition,contract,seeds_completed,welfare_mean")
    assert "negotiate,negotiate,2,78" in csv_text
    tex = (dv / "tables" / "summary.tex").read_text()
    assert "\\toprule" in tex and "negotiate & negotiate & 2 & 78" in tex
    assert latex_escape("a_b & 5% ±") == "a\\_b \\& 5\\% $\\pm$"
    assert "\\begin{tabular}{lr}" in latex_table([{"x": "a", "y": 1.5}], [("x", "x"), ("y", "y")], "c", "tab:x")


def test_one_judge_however_the_log_spells_it() -> None:
    assert judge_label({"judge": None, "agents": "scripted"}) == FORMAL_JUDGE
    assert judge_label({"judge": {"llm": None, "apply_llm": True}}) == FORMAL_JUDGE
    assert judge_label({"judge": {"llm": None, "apply_llm": False}}) == FORMAL_JUDGE
    assert judge_label({"judge": None, "agents": "llm", "llm": {"model": "m"}}) == "LLM judge m"
    assert judge_label({"judge": {"llm": "m", "apply_llm": True}}) == "LLM judge m"
    assert judge_label({"judge": {"llm": "m", "apply_llm": False}}) != "LLM judge m"


def test_a_judge_warning_only_when_judges_differ(dv: Path, tmp_path: Path) -> None:
    same = tmp_path / "same"
    same.mkdir()
    lines = (dv / "events.jsonl").read_text().splitlines()
    start = json.loads(lines[0])
    start["data"]["judge"] = {"llm": None, "apply_llm": True}
    start["wall"] += 1  # another run
    (same / "events.jsonl").write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    assert not [w for w in compare([dv, same]).warnings if "judge" in w]
    other = tmp_path / "other"
    other.mkdir()
    start["data"]["judge"] = {"llm": "judge-model", "apply_llm": True}
    start["wall"] += 1
    (other / "events.jsonl").write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    assert any("differ in judge" in w for w in compare([dv, other]).warnings)
    # and a copy of a run is the same run: counted once, said so
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "events.jsonl").write_text((dv / "events.jsonl").read_text())
    c = compare([dv, copy])
    assert len(c.runs) == 1 and any("(a copy): counted once" in w for w in c.warnings)


def test_organization_runs_are_refused_with_a_reason(tmp_path: Path) -> None:
    org = tmp_path / "org"
    org.mkdir()
    (org / "events.jsonl").write_text(json.dumps({"seq": 1, "wall": 0, "kind": "run_start",
                                                  "data": {"kind": "org", "task": "x"}}) + "\n")
    with pytest.raises(UserError, match="organization run.*success rate, time to completion, messages"):
        compare([org])


def test_out_never_goes_into_a_sweep_or_a_full_directory(tmp_path: Path, capsys) -> None:
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "index.json").write_text("{}")
    assert main(["run", "double_vein", "--seeds", "1", "--out", str(sweep)]) != 0
    assert "a sweep directory" in capsys.readouterr().err
    assert main(["run", "double_vein", "--seeds", "1", "--out", str(sweep / "mine")]) != 0
    assert "inside the sweep" in capsys.readouterr().err
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    assert main(["run", "double_vein", "--seeds", "1", "--out", str(full)]) != 0
    assert "not empty" in capsys.readouterr().err
    assert sorted(p.name for p in full.iterdir()) == ["notes.txt"]


def test_piped_tables_are_one_line_a_row(dv: Path, tmp_path: Path, capsys) -> None:
    assert main(["compare", str(dv), "--out", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("double_vein")]
    assert len(rows) == 5 and all(  # two conditions; paired: welfare, inventory welfare, Gini
        "┃" not in r and "│" not in r for r in rows)
    assert re.search(r"double_vein\s+negotiate\s+scripted\s+2\s+0\s+78\.00 \[78\.00, 78\.00\]", out)


def test_unpriced_cost_is_not_zero_dollars() -> None:
    assert cost_text({"cost_usd": 0.0, "unpriced_models": ["local"]}) == "n/a (no price)"
    assert cost_text({"cost_usd": 0.0123, "unpriced_models": []}) == "$0.0123"
    assert "n/a (no price for local)" in cost_text({"cost_usd": 0.5, "unpriced_models": ["local"]})


def test_many_players_get_distinct_colours() -> None:
    names = [f"p{i}" for i in range(64)]
    assert len(set(palette("players", names).values())) == 64


def test_panels_of_different_measures_keep_their_own_axes() -> None:
    fig = Figure(1, 2, 3.0, 2.0, share_y=False)
    fig.axes[0, 0].bar([0], [70.0])
    fig.axes[0, 1].bar([0], [0.1])
    fig.axes[0, 1].set_ylim(0.0, 0.2)
    svg = fig.svg()
    assert ">0.2</text>" in svg and ">60</text>" in svg
