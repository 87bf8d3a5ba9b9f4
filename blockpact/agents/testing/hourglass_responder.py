"""Replies that let the local OpenAI stub play every LLM role of hourglass agents (tests, benchmarks).

The stub reads the prompt a role got and answers as a careful model would: the task planner splits
the jobs evenly over the team, the action planner informs every delegate and cuts its own collect
job into "mine K ITEM" items of at most `chunk` blocks, the action agent writes the matching
mineBlock program, the critic and the monitor judge from the numbers in their prompts. Every reply
is plain text through the real `openai` client and the real parsers.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from blockpact.agents.org.jobs import Job, split

_TEAM_LINE = re.compile(r"^- ([A-Za-z0-9_]+): ", re.MULTILINE)
_JOB_LINE = re.compile(r"^- ((?:collect|place) .+)$", re.MULTILINE)
_INFORM_LINE = re.compile(r"^- inform ([A-Za-z0-9_]+) to (.+)$", re.MULTILINE)
_OWN = re.compile(r"^Your own job: (.+)$", re.MULTILINE)
_TASK = re.compile(r"^Task: (.+)$", re.MULTILINE)
_DONE = re.compile(r"^Done so far: (\d+) of (\d+)$", re.MULTILINE)
_LEFT = re.compile(r"^Todo items left: (\d+)$", re.MULTILINE)
_MINE = re.compile(r"mine (\d+) ([a-z_]+)")


def _section(text: str, title: str) -> str:
    return text.split(title, 1)[1].split("\n\n", 1)[0] if title in text else ""


def hourglass_reply(request: dict[str, Any], chunk: int = 5) -> str:
    messages = request.get("messages", [])
    system = str(messages[0].get("content", "")) if messages else ""
    user = str([m for m in messages if m.get("role") == "user"][-1].get("content", "")) if messages else ""
    if system.startswith("You are the task planner"):
        team = _TEAM_LINE.findall(_section(user, "Team ("))
        assignments = []
        for text in _JOB_LINE.findall(_section(user, "Jobs to hand out now:")):
            job = Job.parse(text, "stub")
            if job is None or not team:
                continue
            for member, part in zip(team, split(job, [1] * len(team), [job.id] * len(team))):
                if part is not None:
                    assignments.append({"agent": member, "task": part.text()})
        return json.dumps({"objective": "the team's task", "stages": ["hand out the work", "collect the reports"],
                           "task": "share the work", "assignments": assignments})
    if system.startswith("You are the action planner"):
        todo: list[dict[str, str]] = [{"inform": m, "task": t} for m, t in _INFORM_LINE.findall(user)]
        own = _OWN.search(user)
        job = Job.parse(own.group(1), "stub") if own and own.group(1) != "none" else None
        if job is not None and job.verb == "collect":
            for i in range(math.ceil(job.count / chunk)):
                todo.append({"do": f"mine {min(chunk, job.count - i * chunk)} {job.item}"})
        elif job is not None:
            todo.append({"do": job.text()})
        return json.dumps({"todo": todo})
    if system.startswith("You are the progress monitor"):
        done, count = (int(n) for n in _DONE.search(user).groups()) if _DONE.search(user) else (0, 1)
        left = int(_LEFT.search(user).group(1)) if _LEFT.search(user) else 0
        failed = "Result of the last action: failed" in user
        status = "success" if done >= count else "fail" if failed or left == 0 else "unknown"
        return json.dumps({"status": status, "reason": f"{done} of {count} done"})
    if system.startswith("You assess the progress"):
        return json.dumps({"reasoning": "the program ran", "success": True, "critique": ""})
    tasks = _TASK.findall(user)
    mine = _MINE.search(tasks[-1]) if tasks else None
    count, block = (int(mine.group(1)), mine.group(2)) if mine else (1, "oak_log")
    return ("Explain: I need more blocks.\nPlan:\n1) Mine them.\nCode:\n```javascript\n"
            f"async function mineSome(bot) {{\n  await mineBlock(bot, '{block}', {count});\n}}\n```")
