"""Task files where organization matters: a collect task of several uneven, dependent items
(`stockpile`: logs, cobblestone that needs a wooden pickaxe, iron that needs a stone one), read with
precise errors, done by a tree without using up what the team already counts; the shelter needs
materials from several workers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blockpact.agents.org.roles import organization
from blockpact.agents.org.tasks import TaskError, load_task
from blockpact.experiments.play.org.episode import run_episode


def test_a_multi_item_collect_task_has_one_job_per_item() -> None:
    task = load_task("stockpile")
    assert task.items == (("oak_log", 24), ("cobblestone", 12), ("raw_iron", 3)) and task.total == 39
    [stage] = task.stages()
    assert [(j.item, j.count) for j in stage] == [("oak_log", 24), ("cobblestone", 12), ("raw_iron", 3)]
    held = {"A": {"oak_log": 30, "raw_iron": 1}, "B": {"cobblestone": 5, "raw_iron": 1}}
    assert task.held_total(held) == 24 + 5 + 2  # each item counts up to its amount


@pytest.mark.parametrize("body, error", [
    ('items = { oak_log = 0 }', "positive count"),
    ('item = "oak_log"\nitems = { oak_log = 3 }', "no item/amount next to it"),
    ('items = "oak_log"', "expected a table of integers"),
])
def test_bad_items_tables_name_the_key(tmp_path: Path, body: str, error: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(f'[task]\nname = "x"\nworld = "forest"\nkind = "collect"\ndescription = "d"\n{body}\n')
    with pytest.raises(TaskError, match=error) as info:
        load_task(str(path))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("items"))
    assert f"{path}:{line}: task.items: " in str(info.value)


def test_amount_is_refused_for_a_multi_item_task() -> None:
    with pytest.raises(TaskError, match="one-item collect tasks only"):
        load_task("stockpile", 10)


def test_a_tree_stocks_the_camp_and_never_uses_up_what_counts() -> None:
    events: list[tuple[str, dict]] = []

    class Recorder:
        def emit(self, kind, data, coords=None):
            events.append((kind, data))

    task = load_task("stockpile")
    result = asyncio.run(run_episode(task, organization("toa", 3), "async", 0, writer=Recorder()))
    assert result.success and result.progress == [39, 39]
    assert sum(result.items_per_agent.values()) >= 39 and result.items_per_agent["Leader"] == 0
    counted = {"oak_log", "cobblestone", "raw_iron"}
    held: dict[tuple[str, str], int] = {}
    delivered: dict[tuple[str, str], int] = {}
    for kind, data in events:
        if kind == "world" and data["kind"] == "inventory" and data["data"]["item"] in counted:
            key = (data["agent"], data["data"]["item"])
            held[key] = data["data"]["count"]
            assert held[key] >= delivered.get(key, 0), f"{key} used up what it had delivered"
        if kind == "message" and data["kind"] == "report" and data["body"].get("status") == "success":
            job = data["body"]["job"]
            key = (data["sender"], job["item"])
            delivered[key] = delivered.get(key, 0) + job["count"]
    # Workers that delivered logs and cobblestone made their pickaxes from material gathered anew.
    assert delivered[("W1", "oak_log")] == 8 and delivered[("W1", "cobblestone")] == 4
