"""A gift of every item of a kind the giver never held moves nothing: it is not scored settled, but not
applicable with the reason; a gift the giver could make is settled; one of a count it lacked is broken."""

from __future__ import annotations

from blockpact.judge.clauses import Give
from blockpact.judge.contract import Contract
from blockpact.judge.judgment import judge_formal
from blockpact.judge.observables import EpisodeObservables


def _obs(ann_holds: dict[str, int]) -> EpisodeObservables:
    values = {"Ann": {"diamond": 10.0}, "Ben": {"diamond": 30.0}}
    return EpisodeObservables(world="gift_yard", players=["Ann", "Ben"], values=values,
                              inventories={"Ann": ann_holds, "Ben": {}}, chests={}, chat=[], collected={}, mined={},
                              tasks={})


def _judge(clause: Give, ann_holds: dict[str, int]):
    return judge_formal(Contract(text="1. a gift", clauses=[clause]), _obs(ann_holds))


def test_a_gift_of_all_of_an_item_never_held_is_not_applicable_and_moves_nothing() -> None:
    judgment = _judge(Give("Ann", "Ben", "diamond", None), {})
    [score] = judgment.clauses
    assert score["status"] == "not applicable"
    assert score["not_applicable"] == "Ann held no diamond to give, so the gift moved nothing"
    assert judgment.transfers == {"Ann": 0.0, "Ben": 0.0}


def test_a_gift_the_giver_could_make_is_settled() -> None:
    judgment = _judge(Give("Ann", "Ben", "diamond", None), {"diamond": 2})
    assert judgment.clauses[0]["status"] == "settled"
    assert judgment.transfers == {"Ann": -20.0, "Ben": 60.0}


def test_a_gift_of_a_count_never_held_is_broken_by_the_giver() -> None:
    judgment = _judge(Give("Ann", "Ben", "diamond", 2), {})
    assert judgment.clauses[0]["status"] == "broken"
    assert judgment.clauses[0]["broken_by"] == ["Ann"]


def test_a_penalty_names_the_breach_it_punishes() -> None:
    from blockpact.judge.clauses import Penalty
    contract = Contract(text="1. a gift 2. a penalty", clauses=[Give("Ann", "Ben", "diamond", 2), Penalty((), 1, 5.0, ())])
    judgment = judge_formal(contract, _obs({}))
    assert judgment.transfers == {"Ann": -5.0, "Ben": 5.0}
    assert ("Ann pays Ben 5 emeralds (penalty for breaking clause 1: "
            "Ann held 0 diamond, fewer than the 2 clause 1 gives)") in judgment.reasoning
