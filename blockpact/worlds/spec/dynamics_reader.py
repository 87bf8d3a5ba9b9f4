"""Read a world file's [[dynamics]] (the rules that change the world while it is played: regrow, spawn, grow) and
the conditions their `when` and `probability_from` keys hold. Each problem names its key path, as the rest of
the world's (loader.py)."""

from __future__ import annotations

import re
from typing import Any

from blockpact.worlds.spec.map_reader import MapReader
from blockpact.worlds.spec.schema import (COMPARISONS, Condition, GrowRule, ProbabilityFrom, RegrowRule, Region, Rule,
                                          SpawnRule)
from blockpact.worlds.spec.value_reader import got

CONDITION = re.compile(r"^\s*([a-z0-9_]+)\s+in\s+([A-Za-z0-9_-]+)\s*(<=|>=|==|!=|<|>)\s*(\d+)\s*$")
PROBABILITY_FROM_KEYS = {"block", "region", "full_at", "zero_at"}
RULE_KEYS = {
    "regrow": {"rule", "block", "region", "probability", "probability_from", "when"},
    "spawn": {"rule", "block", "region", "probability", "probability_from", "on", "cap", "per", "when"},
    "grow": {"rule", "block", "region", "every", "factor", "cap", "on", "when"},
}


class DynamicsReader(MapReader):
    """The [[dynamics]] part of reading a world file (the map and the typed values come from MapReader)."""

    def read_conditions(self, raw: Any, path: str, regions: dict[str, Region]) -> tuple[Condition, ...]:
        if raw is None:
            return ()
        texts = [raw] if isinstance(raw, str) else raw
        if not isinstance(texts, list):
            self.err(path, "expected a condition string or a list of them, like \"slime_block in river <= 7\"")
            return ()
        out = []
        for j, text in enumerate(texts):
            where = path if isinstance(raw, str) else f"{path}[{j}]"
            m = CONDITION.match(text) if isinstance(text, str) else None
            if not m:
                self.err(where, f"cannot read condition {text!r} (expected \"BLOCK in REGION OP COUNT\" with OP one of {' '.join(COMPARISONS)})")
                continue
            block = self.block_name(m.group(1), where)
            region = self.region_ref(m.group(2), where, regions)
            if block and region:
                out.append(Condition(block, region.name, m.group(3), int(m.group(4))))
        return tuple(out)

    def read_rules(self, raw: Any, regions: dict[str, Region]) -> list[Rule]:
        rules: list[Rule] = []
        if raw is None:
            return rules
        if not isinstance(raw, list):
            self.err("dynamics", "expected an array of tables [[dynamics]]")
            return rules
        for i, entry in enumerate(raw):
            path = f"dynamics[{i}]"
            if self.table(entry, path) is None:
                continue
            kind = entry.get("rule")
            if kind not in RULE_KEYS:
                self.err(f"{path}.rule", f"{got(kind)} (expected one of: {', '.join(RULE_KEYS)})")
                continue
            self.unknown_keys(entry, RULE_KEYS[kind], path)
            block = self.block_name(entry.get("block"), f"{path}.block")
            region = self.region_ref(entry.get("region"), f"{path}.region", regions)
            when = self.read_conditions(entry.get("when"), f"{path}.when", regions)
            if kind in ("regrow", "spawn"):
                prob = self.number(entry.get("probability"), f"{path}.probability", 0.0, 1.0, "a probability per second in [0, 1]")
                scale = self.read_probability_from(entry.get("probability_from"), f"{path}.probability_from", regions)
            if kind in ("spawn", "grow"):
                on_raw = entry.get("on", ["air"])
                on_list = on_raw if isinstance(on_raw, list) else [on_raw]
                on_paths = [f"{path}.on[{j}]" for j in range(len(on_list))] if isinstance(on_raw, list) else [f"{path}.on"]
                on = tuple(n for b, where in zip(on_list, on_paths) if (n := self.block_name(b, where)))
                cap = None if "cap" not in entry else self.integer(entry["cap"], f"{path}.cap", lo=0, what="a whole number of blocks >= 0")
            if block is None or region is None:
                continue
            if kind == "regrow" and prob is not None:
                rules.append(RegrowRule(block, region.name, prob, when, probability_from=scale))
            elif kind == "spawn" and prob is not None:
                per = entry.get("per", "region")
                if per not in ("region", "cell"):
                    self.err(f"{path}.per", f"{got(per)} (expected \"region\" or \"cell\")")
                    continue
                rules.append(SpawnRule(block, region.name, prob, on, cap, per, when, probability_from=scale))
            elif kind == "grow":
                every = self.number(entry.get("every"), f"{path}.every", lo=1e-9, what="a period in seconds > 0")
                factor = self.number(entry.get("factor"), f"{path}.factor", lo=0.0, what="a growth factor >= 0")
                if every is not None and factor is not None:
                    rules.append(GrowRule(block, region.name, every, factor, cap, on, when))
        return rules

    def read_probability_from(self, raw: Any, path: str, regions: dict[str, Region]) -> ProbabilityFrom | None:
        """`{ block, region, full_at, zero_at }`: the probability falls linearly as the block's fraction of the region goes from full_at to zero_at."""
        if raw is None:
            return None
        table = self.table(raw, path)
        if table is None:
            return None
        self.unknown_keys(table, PROBABILITY_FROM_KEYS, path)
        block = self.block_name(table.get("block"), f"{path}.block")
        region = self.region_ref(table.get("region"), f"{path}.region", regions)
        ends = [self.number(table.get(k), f"{path}.{k}", 0.0, 1.0, "a fraction of the region in [0, 1]") for k in ("full_at", "zero_at")]
        if ends[0] is not None and ends[0] == ends[1]:
            self.err(f"{path}.zero_at", f"equals full_at {ends[0]:g} (expected a different fraction, where the probability reaches 0)")
            return None
        if block is None or region is None or ends[0] is None or ends[1] is None:
            return None
        return ProbabilityFrom(block, region.name, ends[0], ends[1])
