"""The bridge package's shape (issue 16): the simulated body's calls mirror the live primitives file for file.
(No import cycle and no module over 400 lines, here as everywhere in the package: test_import_graph.py.)"""

from __future__ import annotations

from pathlib import Path

import blockpact.bridge

BRIDGE = Path(blockpact.bridge.__file__).parent


def test_the_simulated_calls_mirror_the_live_primitives_file_for_file() -> None:
    live = {p.stem for p in (BRIDGE / "js" / "mineflayer" / "primitives").glob("*.js")}
    sim = {p.stem for p in (BRIDGE / "sim").glob("*.py")}
    assert live <= sim, f"live primitive modules without a simulated twin: {sorted(live - sim)}"
