"""Words written as a clause's grammar reads them: contractions and casual verbs spelt out, numbers written as
words as digits, and openings before the player ("First,", "Under no circumstances will ...", "Should ...")."""

from __future__ import annotations

import re

CONTRACTIONS = ((re.compile(r"\b(won)['’]t\b", re.I), "will not"), (re.compile(r"\b(can)['’]t\b", re.I), "can not"),
                 (re.compile(r"\bcannot\b", re.I), "can not"), (re.compile(r"n['’]t\b", re.I), " not"),
                 # casual verbs: "Ann's gonna mine", "Ben's going to pay", "Cy'll", "Ann's gotta", "Ben's allowed to"
                 (re.compile(r"(?:['’]s|\b(?:is|are))\s+(not\s+)?(?:gonna|going\s+to)\b", re.I), r" will \1"),
                 (re.compile(r"(?:['’]s|\b(?:has|have))\s+(?:gotta|got\s+to)\b|\bgotta\b", re.I), " must"),
                 (re.compile(r"['’]s\s+(not\s+)?(allowed|permitted)\s+to\b", re.I), r" is \1\2 to"),
                 (re.compile(r"['’]ll\b", re.I), " will"),
                 # "pays Ben an emerald", "one emerald apiece"
                 (re.compile(r"\ban?\s+(emerald)\b", re.I), r"1 \1"), (re.compile(r"\bapiece\b", re.I), "each"))
_SIGNAL_VERBS = {"says": "signals", "say": "signal", "said": "signalled", "announces": "signals", "announce": "signal",
                 "announced": "signalled"}
_QUOTED = r"[\"'‘“][^\"'’”]{1,40}[\"'’”]"
# Text the clause forms do not need, taken out before the words are read: a signal's words ("signals 'clean'": the
# judge counts that a signal came, not what it said), an aside in parentheses (but not a position "(2, 64, 6)"),
# "a period" and "in a period" for "per period", "before 220 seconds have passed".
ASIDES = ((re.compile(rf"\b(signals?|signall?ed|says?|said|announces?|announced)\s+{_QUOTED}", re.I),
           lambda m: _SIGNAL_VERBS.get(m.group(1).lower(), m.group(1))),
          (re.compile(rf"\b(signals?|signall?ed)\s+([A-Z][A-Za-z0-9_]*)\s+{_QUOTED}"), r"\1 \2"),
          (re.compile(r"\s*\((?!\s*-?\d+\s*,\s*-?\d+\s*,\s*-?\d+\s*\))[^()]*\)"), ""),
          (re.compile(r"\bin\s+a\s+(period|round)\b", re.I), r"per \1"),
          (re.compile(r"\ba\s+(period|round|minute)\b", re.I), r"per \1"),
          (re.compile(r"\b(seconds?|minutes?)\s+(?:have|has)\s+(?:passed|elapsed|gone\s+by)\b", re.I), r"\1"))
NUMBER = re.compile(r"\d+(?:\.\d+)?$")
_UNITS = dict(zip("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
                  "seventeen eighteen nineteen".split(), range(20)))
_TENS = dict(zip("twenty thirty forty fifty sixty seventy eighty ninety".split(), range(20, 100, 10)))
_NOT_ONE_AFTER = frozenset({"no", "extra", "additional", "each", "every", "any", "this", "that", "the"})


def numbers(tokens: list[str]) -> list[str]:
    """Numbers written as words as digits: "two diamonds" -> "2 diamonds", "twenty-five" -> "25", "fifty-fifty" -> "50 50".
    "one" only where it counts something ("one diamond"), not in "no one" or "each extra one"."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        word = tokens[i].lower()
        nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        if word in _TENS:
            value = _TENS[word] + (_UNITS[nxt] if 0 < _UNITS.get(nxt, 0) < 10 else 0)
            out.append(str(value))
            i += 2 if 0 < _UNITS.get(nxt, 0) < 10 else 1
            continue
        if word in _UNITS and (word != "one" or (nxt and nxt not in ("of", "other", "another", "else")
                                                  and (not out or out[-1].lower() not in _NOT_ONE_AFTER))):
            out.append(str(_UNITS[word]))
        else:
            out.append(tokens[i])
        i += 1
    return out


def uses_it_to(tokens: list[str]) -> list[str]:
    """"takes the iron_pickaxe, uses it to mine all diamond_ore": the step is the mining ("uses it to" dropped)."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if [t.lower() for t in tokens[i : i + 3]] in (["uses", "it", "to"], ["use", "it", "to"], ["uses", "them", "to"]):
            i += 3
            continue
        out.append(tokens[i])
        i += 1
    return out


_THEN = (("after", "that"), ("afterwards",), ("afterward",), ("next", ","), ("after", "which"), ("and", "after", "that"))


def then_words(tokens: list[str]) -> list[str]:
    """"..., after that she signals Hal" / "... chest. Afterwards, she ..." / "Next, ...": "then", where a step follows
    a comma (or a sentence's end)."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        found = next((w for w in _THEN if out and out[-1] == "," and tuple(t.lower() for t in tokens[i : i + len(w)]) == w), None)
        if found is None:
            out.append(tokens[i])
            i += 1
            continue
        out.append("then")
        i += len(found)
        if i < len(tokens) and tokens[i] == ",":
            i += 1
    return out


_NEVER_OPENINGS = (("under", "no", "circumstances"), ("in", "no", "case"), ("at", "no", "time"))
_INVERTED = frozenset({"will", "shall", "may", "can", "must", "should", "is", "are", "does", "do"})


def opening(tokens: list[str]) -> list[str]:
    """A clause opening with "First," before its player ("First Ann mines 2 diamond_ore, then ...") opens with the player;
    "Under no circumstances will Ann mine ..." (or "is Ann to mine") is "Ann will not mine ..."; "Should Ann mine more
    than 5 pumpkins, she pays ..." is "If Ann mines ..."; "Should the pickaxe not be in ..., " is "If the pickaxe ..."."""
    rest = [t for t in tokens[1:] if t != ","]
    if tokens and tokens[0].lower() == "first" and rest and rest[0][:1].isupper():
        return tokens[tokens.index(rest[0]):]
    low = [t.lower() for t in tokens]
    if tuple(low[:3]) in _NEVER_OPENINGS and len(tokens) > 5 and low[3] in _INVERTED and tokens[4][:1].isupper():
        after = 6 if low[3] in ("is", "are") and low[5] == "to" else 5
        return [tokens[4], "will", "not", *tokens[after:]]
    if low[:1] == ["should"] and len(tokens) > 2 and "," in tokens:  # also "Should the pickaxe not be in ..., ..."
        return ["if", *tokens[1:]]
    return tokens
