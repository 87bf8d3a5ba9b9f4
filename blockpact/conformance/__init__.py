"""The conformance suites of the backend contracts (bridge/protocols.py), for whoever writes or runs a backend,
in the style of PettingZoo's `parallel_api_test`: plain functions, no pytest needed, that play a short episode
of the shipped `world.toml` and raise an AssertionError naming the promise a backend broke.

    from blockpact.conformance import check_body, check_world
    check_world(lambda spec, seed: MyWorld(spec, seed))
    check_body(lambda spec, seed: MyWorld(spec, seed))

`make_world(spec, seed)` makes a fresh `World` of that spec; docs/backends.md says more."""

from blockpact.conformance.body import check_body
from blockpact.conformance.world import CONFORMANCE_WORLD, MakeWorld, check_world

__all__ = ["CONFORMANCE_WORLD", "MakeWorld", "check_body", "check_world"]
