// expect: limit maxFeedbackLines
// Primitive feedback from bogus chest requests (1,500 names a call, under maxArgumentBytes, 60 calls a tick), caught: the host must cap what it keeps.
async function main(bot) {
  const chest = bot.findBlock({ matching: 'chest', maxDistance: 32 });
  const where = chest ? chest.position : bot.entity.position;
  for (let t = 0; t < 300; t++) {
    const names = {};
    for (let i = 0; i < 1500; i++) names['bogus_' + t + '_' + i] = 1;
    const calls = [];
    for (let i = 0; i < 60; i++) calls.push(getItemFromChest(bot, where, names).catch(() => {}));
    await Promise.all(calls);
  }
}
