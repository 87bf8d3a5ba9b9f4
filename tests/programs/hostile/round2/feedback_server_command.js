// expect: program none, and no server command sent
// Item names that are server commands, alone and after a newline: the primitive's feedback repeats them
// ("No item named ..."), and a bot that said that feedback line by line would run "/kill @a".
async function main(bot) {
  const chest = bot.findBlock({ matching: 'chest', maxDistance: 32 });
  const where = chest ? chest.position : bot.entity.position;
  const names = { 'x\n/kill @a': 1, '/kill @a': 1, 'y\r/op Gizmo': 1, 'z\u2028/kill @a': 1 };
  try { await getItemFromChest(bot, where, names); } catch (err) { log(err.message); }
  try { await moveTo(bot, 'a\n/kill @a', 1); } catch (err) { log(err.message); }
  await bot.waitForTicks(10);
  throw new Error('nothing happened\n/kill @a');
}
