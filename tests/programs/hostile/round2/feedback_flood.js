// expect: limit maxFeedbackLines
// Primitive feedback from bogus chest requests, many per tick: the host must cap what it keeps.
async function main(bot) {
  for (let t = 0; t < 300; t++) {
    const calls = [];
    for (let i = 0; i < 60; i++) calls.push(getItemFromChest(bot, bot.entity.position, { ['bogus_' + t + '_' + i]: 1 }).catch(() => {}));
    await Promise.all(calls);
  }
}
