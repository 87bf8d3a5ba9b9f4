// expect: limit maxFeedbackLines
// Primitive feedback from bogus chest requests (2,000 names a call, 60 calls a tick), caught: the host must cap what it keeps.
async function main(bot) {
  const chest = bot.findBlock({ matching: 'chest', maxDistance: 32 });
  const where = chest ? chest.position : bot.entity.position;
  for (let t = 0; t < 300; t++) {
    const names = {};
    for (let i = 0; i < 2000; i++) names['bogus_' + t + '_' + i] = 1;
    const calls = [];
    for (let i = 0; i < 60; i++) calls.push(getItemFromChest(bot, where, names).catch(() => {}));
    await Promise.all(calls);
  }
}
