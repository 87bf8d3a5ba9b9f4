// Cooperative: does what the contract assigns to it. With a turn-taking clause, the first player
// uses the shared tool, returns it to its chest and signals; the other waits for that signal.
async function playByContract(bot) {
  const turn = __TURN__; // null, or { role: 'first' | 'then', item, chest: [x, y, z], other }
  if (turn !== null && turn.role === 'then') {
    await waitSignal(bot, `${turn.other} returns the ${turn.item}`, __WAIT_SECONDS__);
  }
  await takeFirstAvailable(bot, __TOOLS__);
  await mineTargets(bot, __TARGETS__);
  if (turn !== null && turn.role === 'first') {
    await depositItemIntoChest(bot, new Vec3(turn.chest[0], turn.chest[1], turn.chest[2]), { [turn.item]: 1 });
    await sendSignal(bot, `the ${turn.item} is back in the chest`);
  }
  if (__RENEWING__) {
    await mineWhileTheyGrowBack(bot, __TARGETS__, __IDLE_SECONDS__, __SEARCH_RADIUS__);
  }
}
