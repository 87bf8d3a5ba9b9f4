"""The repository speaks of the project alone: no tracked file narrates how it was made (numbered work sessions,
helpers, reviewers, people who found a bug) or points at files outside the repository (a developer's scratch
files, profiles and results under /work, /tmp or a home directory). A figure names the command that reproduces
it; a test says what behaviour it keeps, not who saw it fail.

Words that are also the project's own are allowed where they mean that: a pytest or MQTT session, a helper
function, the leader of an organization, `~/.cache/blockpact` (where blockpact keeps its caches).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = {"requirements.lock", "package-lock.json", "constraints-llm.txt", "tests/test_repository_text.py"}
NARRATION = [
    (re.compile(r"\bsessions? \d", re.I), "a numbered work session"),
    (re.compile(r"\b(?:next|previous|last|earlier|other) sessions?\b", re.I),
     "a work session"),
    (re.compile(r"\bhelpers? '\w+'|\b(?:a|the) helper(?:'s)? (?:wrote|change|found|measured|tried|ran|said)\b|\b(?:a|the|by a) helper[;)]",
                re.I), "a helper who worked on it"),
    (re.compile(r"\bengineers?\b", re.I), "other engineers"),
    (re.compile(r"\b(?:a|the) new user\b|\bnew users?'s?\b", re.I), "a person who found something"),
    (re.compile(r"\bthe lead(?:'s)?\b(?!er)", re.I), "the lead"),
    (re.compile(r"\bs\d{1,2}-[a-z]{3,}\b|\bs\d{1,2} fixes\b"), "a work period's branch"),
]
OUTSIDE = re.compile(r"(?<![\w.~$)-])/(?:work|tmp|home|root|Users)/[\w.-]")  # a file there, not the bare directory


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\0")
    out = []
    for name in names:
        path = ROOT / name
        if not name or name in SKIPPED or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:4096]:
            continue  # binary (a picture)
        out.append(path)
    return out


def _findings(check: list[tuple[re.Pattern, str]]) -> list[str]:
    found = []
    for path in tracked_text_files():
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for pattern, what in check:
                if m := pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {what}: {m.group(0)!r} in {line.strip()[:120]!r}")
    return found


def test_no_narration_of_how_the_project_was_made() -> None:
    found = _findings(NARRATION)
    assert not found, "say what the code does and why, not who did what when:\n" + "\n".join(found)


def test_no_paths_outside_the_repository() -> None:
    found = _findings([(OUTSIDE, "a path outside the repository")])
    assert not found, "name the command that reproduces a figure, or a path in the repository:\n" + "\n".join(found)


def test_the_checks_find_what_they_look_for() -> None:
    """Each check can fail, and the project's own words pass."""
    said = ["Measured in session 12 (a helper; see /work/notes/s14/report.md).", "another engineer's job",
            "a new user's check", "re-measured by the lead", "branch s7-sweep", "the helper's change", "in the next session"]
    fine = ["one server per pytest session", "an MQTT session", "a helper declared after the entry", "the leader's plan",
            "~/.cache/blockpact/wheels", "$XDG_CACHE_HOME/blockpact/llm", "tmp_path / 'x'", "/proc/self/task",
            'assert "/tmp/" not in report']
    assert all(any(p.search(s) for p, _ in NARRATION) or OUTSIDE.search(s) for s in said)
    assert not any(p.search(s) for s in fine for p, _ in NARRATION) and not any(OUTSIDE.search(s) for s in fine)
