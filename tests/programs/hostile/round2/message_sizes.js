// expect: limit maxArgumentBytes, the result whole
// Messages around 64 KB (a pipe's buffer) between the sandbox, Node and Python: arguments of 60 and 70 KB
// (refused, caught), an answer of 5000 positions (about 120 KB where the world has that many blocks), 2 MB of log
// lines, 8 full chat lines, an error message of 1 MB (cut). All must arrive whole (or be refused naming the limit),
// and neither the other player nor the next program may notice.
async function main(bot) {
  for (const size of [60000, 70000]) {
    const names = {};
    for (let i = 0, bytes = 2; bytes < size; i++) { names['item_' + i] = 1; bytes += String(i).length + 10; }
    try { await getItemFromChest(bot, bot.entity.position, names); } catch (err) { log(err.message.slice(0, 120)); }
  }
  const every = Array.from({ length: 1000 }, (_, i) => i);
  const found = bot.findBlocks({ matching: every, maxDistance: 64, count: 5000 });
  log(`answer: ${found.length} positions, ${JSON.stringify(found).length} bytes`);
  for (let i = 0; i < 1000; i++) log(String(i).padEnd(2000, 'y'));
  for (let i = 0; i < 8; i++) bot.chat(String(i).padEnd(250, 'z'));
  await bot.waitForTicks(2);
  throw new Error('e'.repeat(1e6));
}
