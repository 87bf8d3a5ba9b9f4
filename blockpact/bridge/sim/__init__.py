"""The grid simulator's backend: agents' JavaScript programs on the simulated world.

Each program runs in the SES sandbox (one runner per player, all in the process's Node runtime);
its primitive calls come back to Python, where `AgentAPI` (the one implementation of the rules)
runs them on the simulated clock. Determinism rests on four rules:

- JSPyBridge delivers requests on its callback thread; they are handed to the asyncio loop and
  nothing else happens there.
- Every primitive (and bot.chat) first blocks on the clock for zero seconds, so it starts only when
  every program is blocked, in (time, player) order: nothing changes the world while any program
  computes, and synchronous bot queries (answered on the loop thread) always see a settled state.
- A player's calls run one at a time, in the order the program made them.
- A run Python stops (the episode's end, a budget) is cancelled in Node before its pending primitive
  is failed, so the program never sees that answer, and the programs the end stopped are recorded
  (`program_end`) in player order: not in the order Node happens to report them.

Organizations run each agent as its own controller (`SimWorld.run_agents`): a coroutine that plans
(possibly awaiting an LLM: the clock then stands still), runs programs on its body, sleeps or waits
for messages in simulated time, and runs the next program, all on the one clock.

Budgets: a simulated-time budget (an alarm on the clock cancels the run) and a compute budget on the
runner's "compute" clock: only the time the program itself computes counts (its sandbox worker's CPU
time), not the time it awaits a primitive or a query's answer (which includes waiting for its turn
while other programs compute, or for an agent's LLM), so whether a program is cut off does not depend
on the machine's load or the other programs. It bounds one instant: it starts again whenever simulated time
passes (body.py tells Node with its answer to a call), so it stops a loop, not a program that plays a long episode. A sandbox worker that does not start in time fails the
run as a `sandbox` failure (the unit fails with that cause), never as the program's. It stops
programs that never yield, e.g. `while (true) {}`. A program that awaits something that can never
happen (no primitive pending) is ended at once as stalled (the runner's stall check).

The Node side is watched: a runtime that dies, or says nothing for longer than the compute budget
plus a grace period while Python owes it no answer, ends the run as a `bridge` failure, and the
runtime is replaced for the next program. A run Python gives up on (cancelled, bridge broken) is
cancelled in Node too, so the body is free for the next program.

Layout: `world` (SimWorld, AgentSession), `body` (SimBody: a run's machinery), and one module per
capability mirroring `bridge/js/mineflayer/primitives/` file for file (`blocks`, `chests`, `combat`,
`crafting`, `movement`, `signals`, `bounds`, `common`, `index`), with `queries` and `observe` as in
`bridge/js/mineflayer/`.
"""

from blockpact.bridge.sim.body import SimBody
from blockpact.bridge.sim.bounds import BOT_CALLS
from blockpact.bridge.sim.common import ProgramFailed
from blockpact.bridge.sim.index import HOST_CALLS, PRIMITIVE_HANDLERS, implemented_primitives
from blockpact.bridge.sim.world import AgentSession, Controller, SimWorld

__all__ = ["BOT_CALLS", "HOST_CALLS", "PRIMITIVE_HANDLERS", "AgentSession", "Controller", "ProgramFailed", "SimBody",
           "SimWorld", "implemented_primitives"]
