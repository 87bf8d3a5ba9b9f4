"""The skill library: programs that worked, kept on disk and offered to later programs.

One JSON file per skill (`<name>.json`: name, description, code, version). A skill's name is the
JavaScript function its code declares, so a program can call it once it is loaded into the program's
scope (the sandbox runner's `skills` option). Adding a skill under an existing name replaces it
(the newest working code wins, as in Voyager) and bumps its `version`; retrieval ranks skills by
BM25 over the words of the name, the description and the identifiers in the code, offline.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from blockpact.errors import UserError
from blockpact.settings import settings
from blockpact.skills.reference import primitives

NAME = re.compile(r"^[A-Za-z_$][\w$]{0,63}$")
# What every program is given besides the primitives (the sandbox runner's globals and the simulator's prelude): a
# skill of one of these names would replace it in every program the skill is loaded into (the sandbox refuses it too).
ENDOWMENTS = frozenset({"bot", "log", "console", "Vec3", "mcData", "exploreUntil", "globalThis", "eval", "Function",
                        "Compartment", "harden"})
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# Words every program has; they say nothing about what a skill does.
STOP_WORDS = frozenset({"async", "function", "await", "bot", "const", "let", "var", "return", "if", "else", "for", "of", "new", "the", "a", "an", "to",
                        "and", "or", "in", "into", "on", "at", "with", "from", "some", "is", "it"})


class SkillError(UserError):
    """A skill that cannot be stored or read (bad name, code without its function, broken file)."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    code: str


def words(text: str) -> list[str]:
    """Lower-case words, with identifiers split at camelCase and underscores (mineIronOre -> mine iron ore)."""
    out = []
    for ident in IDENTIFIER.findall(text):
        out.extend(w.lower() for w in WORD.findall(ident))
    return [w for w in out if w not in STOP_WORDS]


class SkillLibrary:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def add(self, name: str, description: str, code: str) -> Skill:
        if not isinstance(name, str) or not NAME.match(name):
            raise SkillError(f"invalid skill name {name!r}: use a JavaScript function name (letters, digits, _ or $, at most 64 characters)")
        if name in ENDOWMENTS or name in primitives():
            raise SkillError(f"invalid skill name {name!r}: it is a primitive or a global every program is given, "
                             "which a skill may not replace")
        if not re.search(rf"^\s*async\s+function\s+{re.escape(name)}\s*\(", code, re.MULTILINE):
            raise SkillError(f"the code of skill {name!r} must declare `async function {name}(bot, ...)` at top level")
        previous = self._read(self._path(name)) if self._path(name).exists() else None
        version = 1 if previous is None else int(previous.get("version", 1)) + 1
        record = {"name": name, "description": description.strip(), "code": code.strip() + "\n", "version": version}
        tmp = self._path(name).with_suffix(".json.tmp")
        tmp.write_text(json.dumps(record, indent=2) + "\n")
        tmp.replace(self._path(name))
        return Skill(name, record["description"], record["code"])

    def get(self, name: str) -> Skill | None:
        path = self._path(name) if isinstance(name, str) and NAME.match(name) else None
        if path is None or not path.exists():
            return None
        return self._skill(path)

    def all(self) -> list[Skill]:
        return [self._skill(p) for p in sorted(self.directory.glob("*.json"))]

    def retrieve(self, query: str, k: int = 5) -> list[Skill]:
        """The `k` skills most relevant to `query` (BM25), best first; only skills sharing a word with it."""
        skills = self.all()
        terms = set(words(query))
        if not skills or not terms or k <= 0:
            return []
        docs = [Counter(words(f"{s.name} {s.description} {s.code}")) for s in skills]
        k1, b = settings().skills.bm25_k1, settings().skills.bm25_b
        avg_len = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
        df = {t: sum(1 for d in docs if t in d) for t in terms}
        scored = []
        for skill, doc in zip(skills, docs):
            length = sum(doc.values())
            score = 0.0
            for t in terms:
                if doc[t]:
                    idf = math.log(1 + (len(docs) - df[t] + 0.5) / (df[t] + 0.5))
                    score += idf * doc[t] * (k1 + 1) / (doc[t] + k1 * (1 - b + b * length / avg_len))
            if score > 0:
                scored.append((-score, skill.name, skill))
        return [s for _, _, s in sorted(scored)[:k]]

    def _path(self, name: str) -> Path:
        return self.directory / f"{name}.json"

    def _read(self, path: Path) -> dict:
        try:
            record = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise SkillError(f"{path}: not a readable skill file ({exc})") from exc
        missing = [key for key in ("name", "description", "code") if not isinstance(record.get(key), str)]
        if missing:
            raise SkillError(f"{path}: skill file lacks {', '.join(missing)}")
        return record

    def _skill(self, path: Path) -> Skill:
        record = self._read(path)
        return Skill(record["name"], record["description"], record["code"])
