"""`blockpact world optimum WORLD`: the best welfare the scripted contract search finds, and the contract that reaches
it, so a world's author sees how far a baseline or an LLM is from it; the world's declared reference_welfare is
checked against it."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from blockpact.worlds.world_files import load_world


def register(cmds: argparse._SubParsersAction) -> None:
    p = cmds.add_parser("optimum", help="the best welfare the scripted contract search finds, and its contract")
    p.add_argument("world", help="built-in name or path to a .toml file")
    p.add_argument("--seed", type=int, default=0, help="the simulated episodes' seed (default 0)")
    p.add_argument("--all", action="store_true", help="list every candidate with its welfare")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--mc-version", help="Minecraft version for block and item data")
    p.set_defaults(handler=cmd_optimum)


def _check_reference(declared: float | None, found: float) -> tuple[str | None, bool]:
    """(what to say about the declared reference_welfare, whether it is a warning)."""
    if declared is None:
        return None, False
    share = found / declared
    if found > declared + 1e-9:
        return (f"the declared reference_welfare {declared:g} is below the {found:g} the search reaches: it understates "
                "what the world allows (efficiency against it can pass 1)"), True
    return f"the search reaches {found:g} of the declared reference_welfare {declared:g} ({share:.0%})", False


def cmd_optimum(args: argparse.Namespace) -> int:
    from blockpact.agents.scripted.contract_search import TOLERANCE, search
    from blockpact.judge.contract import render_contract

    spec = load_world(args.world, args.mc_version)
    started = time.monotonic()
    found = asyncio.run(search(spec, args.seed))
    seconds = time.monotonic() - started
    best = found.best
    declared = spec.extra.get("reference", {}).get("welfare")  # type: ignore[union-attr]
    optimum = found.reference_welfare if not best.admissible else best.welfare
    said, warn = _check_reference(declared, best.welfare if best.admissible else found.none_welfare)
    gains = best.admissible and best.welfare > found.none_welfare + TOLERANCE
    contract = render_contract(best.candidate.clauses, world=spec.name) if gains else ""
    if args.json:
        print(json.dumps({
            "world": spec.name, "seed": args.seed, "agents": "scripted (deterministic baseline, no LLM)",
            "none": {"welfare": found.none_welfare, "rewards": found.outside},
            "optimum": {"welfare": best.welfare if best.admissible else found.none_welfare, "rewards": best.rewards,
                        "gini": best.gini, "name": best.candidate.name, "settlement": best.settlement,
                        "contract": contract} if gains else None,
            "optimum_missing": None if gains else ("no candidate raises welfare above no contract" if best.admissible
                                                   else "no candidate leaves every player at its outside option"),
            "best_candidate_welfare": optimum, "candidates": len(found.evaluations), "episodes": found.episodes,
            "seconds": round(seconds, 3), "reference_welfare": declared, "reference_check": said,
            "evaluations": [{"name": e.candidate.name, "welfare": e.welfare, "gini": e.gini, "admissible": e.admissible}
                            for e in found.evaluations] if args.all else None,
        }, indent=2))
    else:
        rewards = lambda r: ", ".join(f"{p} {v:g}" for p, v in sorted(r.items()))  # noqa: E731
        print(f"{spec.title} ({spec.name}): contract search on the simulator, seed {args.seed}, scripted players "
              "(deterministic baseline, no LLM)")
        print(f"  no contract:  welfare {found.none_welfare:g} ({rewards(found.outside)})")
        if best.admissible and best.welfare <= found.none_welfare + TOLERANCE:
            print(f"  optimum:      no candidate raises welfare above the no-contract {found.none_welfare:g} "
                  f"(the best, {best.candidate.name}, reaches {best.welfare:g})")
        elif best.admissible:
            fair = f"Gini {best.gini:.3f}" if best.gini is not None else "a negative reward"
            print(f"  optimum:      welfare {best.welfare:g} ({rewards(best.rewards)}), {fair}, settled by {best.settlement}")
            print(f"  reached by:   {best.candidate.name}")
        else:
            print(f"  optimum:      no contract leaves every player at its outside option (best candidate: {optimum:g})")
        print(f"  searched:     {len(found.evaluations)} candidates, {found.episodes} simulated episodes, {seconds:.1f} s")
        if args.all:
            for e in sorted(found.evaluations, key=lambda e: -e.welfare):
                print(f"    {e.welfare:8g}  {'ok ' if e.admissible else 'no '} {e.candidate.name}")
        if contract:
            print("\n" + contract)
        if said and not warn:
            print("\n" + said)
    if said and warn:
        print(f"warning: {spec.source or spec.name}: {said}", file=sys.stderr)
    return 0
