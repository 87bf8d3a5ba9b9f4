// Greedy: the best tool it can get, then what is worth most to itself first, the rest after.
async function playGreedy(bot) {
  await takeFirstAvailable(bot, __TOOLS__);
  await mineTargets(bot, __TARGETS__);
  if (__RENEWING__) {
    await mineWhileTheyGrowBack(bot, __TARGETS__, __IDLE_SECONDS__, __SEARCH_RADIUS__);
  }
}
