"""Welfare from what happened beside welfare after the judge: a gift-only contract whose gain is made by the
settlement alone (tests/worlds/paper_gift.toml) is flagged on the terminal, in metrics.json, the report and
compare; a contract that changes what the players hold is not; the difference is exactly what the gifts create."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blockpact.cli import main
from blockpact.experiments.outputs.settlement_gains import add_gains

WORLD = Path(__file__).parent / "worlds" / "paper_gift.toml"


def _scenario(tmp: Path, contract: str) -> Path:
    path = tmp / "scenario.toml"
    path.write_text(f'[scenario]\nworld = "{WORLD.as_posix()}"\nseeds = 2\n'
                    '[[conditions]]\ncontract = "none"\n'
                    f'[[conditions]]\nname = "gift"\ncontract = "{contract}"\n', encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def gift_run(tmp_path_factory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("paper_gift")
    out = tmp / "run"
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(["run", str(_scenario(tmp, "1. Ann gives all pumpkins to Ben.")), "--out", str(out)]) == 0
    return out, buffer.getvalue()


def test_a_gift_only_gain_is_settlement_alone_in_metrics(gift_run) -> None:
    out, _ = gift_run
    metrics = json.loads((out / "metrics.json").read_text())
    none, gift = metrics["conditions"]["none"], metrics["conditions"]["gift"]
    assert none["welfare"]["mean"] == none["inventory_welfare"]["mean"] == 9.0
    assert gift["inventory_welfare"]["mean"] == 9.0  # Ann 5 pumpkins at 1, Ben 1 at 4: nothing moved
    assert gift["welfare"]["mean"] == 24.0  # Ann's 5 pumpkins settled at Ben's value 4: 5 x (4 - 1) on paper
    seed = gift["runs"][0]
    assert seed["welfare"] - seed["inventory_welfare"] == 15.0
    assert seed["episodes"][-1]["inventory_welfare"] == 9.0
    assert gift["gain_over_no_contract"] == {"baseline": "none", "settled": 15.0, "inventory": 0.0,
                                             "from_settlement": 15.0, "settlement_alone": True}
    assert none["gain_over_no_contract"] is None
    [warning] = [w for w in metrics["warnings"] if "settlement alone" in w]
    assert warning.startswith("condition gift: its welfare gain over none (+15)")


def test_the_terminal_and_the_report_show_both_welfares_and_the_flag(gift_run) -> None:
    out, printed = gift_run
    assert "inventory welfare (mean ± std)" in printed
    assert "warning: condition gift: its welfare gain over none (+15) comes from the judge's settlement alone" in printed
    gift_row = next(line for line in printed.splitlines() if line.startswith("gift "))
    assert "24.00" in gift_row and "9.00" in gift_row
    report = (out / "report.html").read_text()
    assert "<th>inventory welfare (mean ± std [95% CI])</th>" in report
    assert "settled +15.00, inventories +0.00 (settlement alone)" in report
    assert "comes from the judge&#39;s settlement alone" in report
    summary = (out / "tables" / "summary.csv").read_text().splitlines()
    assert "inventory_welfare_mean" in summary[0] and summary[2].startswith("gift,given,2,24.0")


def test_compare_pairs_both_welfares_and_warns(gift_run, tmp_path: Path, capsys) -> None:
    out, _ = gift_run
    assert main(["compare", str(out), "--out", str(tmp_path / "cmp")]) == 0
    printed = capsys.readouterr().out
    assert "paper_gift / gift / scripted: its welfare gain over none (+15.00) comes from the judge's settlement alone" in printed
    paired = {(r["measure"]): float(r["mean_difference"]) for r in
              json.loads((tmp_path / "cmp" / "compare.json").read_text())["paired"]}
    assert paired["welfare"] == 15.0 and paired["inventory_welfare"] == 0.0


def test_a_gain_in_what_players_hold_is_not_flagged() -> None:
    conditions = {
        "none": {"contract_mode": "none", "welfare": {"mean": 12.0}, "inventory_welfare": {"mean": 12.0}},
        "negotiate": {"contract_mode": "negotiate", "welfare": {"mean": 34.0}, "inventory_welfare": {"mean": 30.0}},
        "worse": {"contract_mode": "given", "welfare": {"mean": 10.0}, "inventory_welfare": {"mean": 10.0}},
    }
    assert add_gains(conditions) == []
    assert conditions["negotiate"]["gain_over_no_contract"] == {
        "baseline": "none", "settled": 22.0, "inventory": 18.0, "from_settlement": 4.0, "settlement_alone": False}
    assert conditions["worse"]["gain_over_no_contract"]["from_settlement"] == 0.0


def test_without_a_no_contract_condition_there_is_no_gain() -> None:
    conditions = {"gift": {"contract_mode": "given", "welfare": {"mean": 24.0}, "inventory_welfare": {"mean": 9.0}}}
    assert add_gains(conditions) == [] and conditions["gift"]["gain_over_no_contract"] is None
