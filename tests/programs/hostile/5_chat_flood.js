// 300 chat messages of a million characters each.
async function main(bot) {
  const line = 'z'.repeat(1e6);
  for (let i = 0; i < 300; i++) { bot.chat(line); await bot.waitForTicks(1); }
}
