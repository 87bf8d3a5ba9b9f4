"""Judging an episode under a contract: the formal judge, the LLM judge, rewards after transfers.

    obs = observables_from_events(spec, events)
    formal = judge_formal(contract, obs)                 # exact, for controlled-form clauses
    llm = await LLMJudge(client).judge(contract, obs)    # reads free text too
    rewards_after(obs, formal); compare_judgments(formal, llm)
"""

from blockpact.judge.formal import contract_critiques, judge_formal
from blockpact.judge.llm_judge import LLMJudge
from blockpact.judge.verdict import Disagreement, Judgment, compare_judgments, rewards_after

__all__ = [
    "Disagreement",
    "Judgment",
    "LLMJudge",
    "compare_judgments",
    "contract_critiques",
    "judge_formal",
    "rewards_after",
]
