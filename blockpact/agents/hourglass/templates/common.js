// Scripted hourglass step (blockpact, deterministic, no LLM). One todo item of an agent's action
// queue; the __NAMES__ are filled in by the scripted action planner.

function held(bot, name) {
  return bot.inventory.items().filter((stack) => stack.name === name).reduce((n, stack) => n + stack.count, 0);
}
