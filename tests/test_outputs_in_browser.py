"""The report, the comparison and the replay as a reader sees them: opened in headless Chromium at 1280 px, their
figures decoded and inked, their intervals drawn, nothing wider than the window, the replay stepping through the
episode's frames (and its world changing as the log says)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.worlds.world_files import BUILTIN_DIR
from harness.browser import IMAGES_JS, INK_JS, OVERFLOW_JS, browser  # noqa: F401 (the fixture)

SVG_INTERVALS = re.compile(r'<path d="M[\d.]+ [\d.]+V[\d.]+M')  # an error bar: a vertical line, then its caps


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Double-Vein (the `make run` world) on 2 seeds and again on 3 (overlapping seeds of deterministic agents),
    and a short Cleanup (random drops: seeds differ, so intervals have width; chat; regrowing blocks)."""
    base = tmp_path_factory.mktemp("browser-runs")
    cleanup = base / "cleanup.toml"
    cleanup.write_text((BUILTIN_DIR / "cleanup.toml").read_text().replace("\nseconds = 600\n", "\nseconds = 120\n"))
    out = {"dv2": base / "dv2", "dv3": base / "dv3", "cleanup": base / "cleanup"}
    assert main(["run", "double_vein", "--seeds", "2", "--out", str(out["dv2"])]) == 0
    assert main(["run", "double_vein", "--seeds", "3", "--out", str(out["dv3"])]) == 0
    assert main(["run", str(cleanup), "--seeds", "3", "--out", str(out["cleanup"])]) == 0
    return out


def _looks_right(browser, page: Path, images: int) -> list[dict]:  # noqa: F811
    browser.open(page)
    assert browser.eval(OVERFLOW_JS) <= 0, "the page scrolls sideways at 1280 px"
    shown = browser.eval(IMAGES_JS)
    assert len(shown) >= images
    for img in shown:
        assert img["complete"] and img["w"] > 100 and img["h"] > 100, img
        assert img["shown"] <= 1280, img
    ink = browser.eval(INK_JS)
    for img in ink:
        assert 0.01 < img["ink"] < 0.9, img  # not blank, not a solid block
    assert not browser.console_errors
    return shown


def test_report_figures_are_drawn_with_intervals(runs, browser) -> None:  # noqa: F811
    run = runs["cleanup"]
    shown = _looks_right(browser, run / "report.html", 4)
    titles = [img["alt"] for img in shown]
    assert any("95% CI" in t for t in titles), titles
    measures = (run / "plots" / "measures.svg").read_text()
    assert SVG_INTERVALS.search(measures), "no error bar in the interval plot"
    welfare = (run / "plots" / "welfare.svg").read_text()
    assert 'fill-opacity="0.22"' in welfare and "band 95% CI" in welfare  # the CI band, labelled as one
    for svg in (run / "plots").glob("*.svg"):
        pdf = svg.with_suffix(".pdf").read_bytes()
        assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    # every replay is linked and opens
    links = browser.eval("[...document.querySelectorAll('a.replay')].map(a => a.getAttribute('href'))")
    assert links and all((run / href).is_file() for href in links)
    assert "/tmp/" not in (run / "report.html").read_text().split("<h2>Setup</h2>")[0]


def test_report_of_make_run_collapses_identical_seeds(runs, browser) -> None:  # noqa: F811
    _looks_right(browser, runs["dv3"] / "report.html", 4)
    same = browser.eval("[...document.querySelectorAll('.seed p.muted')].filter(p => "
                        "p.textContent.startsWith('The same outcome as seed 0')).length")
    assert same == 4  # seeds 1 and 2 of each condition: not their negotiation and programs again


def test_comparison_counts_distinct_seeds_and_draws_intervals(runs, browser, tmp_path) -> None:  # noqa: F811
    out = tmp_path / "cmp"
    assert main(["compare", str(runs["dv2"]), str(runs["dv3"]), str(runs["cleanup"]), "--out", str(out)]) == 0
    rows = {(r["world"], r["condition"]): r for r in __import__("csv").DictReader((out / "compare.csv").open())}
    assert rows[("double_vein", "none")]["welfare_n"] == "3"  # seeds 0-2, not the 5 runs of them
    assert rows[("cleanup", "none")]["welfare_n"] == "3"
    html = (out / "compare.html").read_text()
    assert "differ in judge" not in html
    assert "by deterministic agents: each seed counts once (n = 3 distinct seeds, not 5 runs of them)" in html
    _looks_right(browser, out / "compare.html", 2)
    figures = sorted((out / "figures").glob("*.svg"))
    assert len(figures) == 2 and all(f.with_suffix(".pdf").is_file() for f in figures)
    cleanup = next(f for f in figures if "cleanup" in f.name).read_text()
    assert SVG_INTERVALS.search(cleanup)
    assert str(runs["dv2"].parent) not in html  # run directories by their names, not machine paths
    assert (out / "compare.tex").read_text().startswith("\\begin{table}")


def test_replay_steps_through_the_episode(runs, browser) -> None:  # noqa: F811
    page = runs["cleanup"] / "replays" / "none-seed0-episode0.html"
    text = page.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)  # no network
    browser.open(page)
    assert browser.eval(OVERFLOW_JS) <= 0
    frames = browser.eval("replay.frames")
    assert frames > 10
    first = browser.eval("replay.state()")
    assert first["frame"] == 0 and first["events"] >= 0
    browser.eval("document.getElementById('next').click()")
    assert browser.eval("replay.state().frame") == 1
    states = browser.eval(f"[0, {frames // 3}, {2 * frames // 3}, {frames - 1}].map(f => (replay.show(f), replay.state()))")
    assert [s["frame"] for s in states] == [0, frames // 3, 2 * frames // 3, frames - 1]
    assert states[-1]["events"] > states[1]["events"] > 0
    assert states[0]["positions"] != states[-1]["positions"]  # the players moved
    assert states[0]["blocks"] != states[-1]["blocks"]  # blocks were dug (and regrew)
    browser.eval(f"replay.show({frames // 2})")  # scrubbing back rebuilds the world from the start
    assert browser.eval("replay.state().events") == states[1]["events"] or browser.eval("replay.state().frame") == frames // 2
    settlement = browser.eval("document.getElementById('settlement').textContent")
    assert "no contract to settle" in settlement and "reward" in settlement
    canvas_ink = browser.eval("""(() => { const c = document.getElementById('map'); const d = c.getContext('2d')
        .getImageData(0, 0, c.width, c.height).data; let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 200) n++;
        return n / (c.width * c.height); })()""")
    assert canvas_ink > 0.05
    browser.eval("document.getElementById('play').click()")
    browser.eval("new Promise(r => setTimeout(r, 400))")
    assert browser.eval("replay.state().frame") > 0
    assert not browser.console_errors


def test_replay_of_a_negotiated_contract_shows_clause_statuses(runs, browser) -> None:  # noqa: F811
    page = runs["dv2"] / "replays" / "negotiate-seed0-episode0.html"
    browser.open(page)
    browser.eval("replay.show(2)")
    during = browser.eval("document.getElementById('contract').textContent")
    assert "so far" in during and "Gizmo mines all iron_ore." in during
    # every clause is kept in the end: early on it is not done yet, never "broken so far"
    assert "not done yet" in during and "broken" not in during.replace("formal judge", ""), during
    browser.eval("replay.show(replay.frames - 1)")
    final = browser.eval("document.getElementById('contract').textContent")
    assert "kept" in final and "settled" in final
    settlement = browser.eval("document.getElementById('settlement').textContent")
    assert "formal judge: transfers Gizmo -14, Glitch +14" in settlement
