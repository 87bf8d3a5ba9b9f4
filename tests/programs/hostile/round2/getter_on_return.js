// expect: program none
// The returned value has a getter that acts when the host reads it, after the program has returned.
async function main(bot) {
  return { get items() { getItemFromChest(bot, bot.entity.position, { iron_ingot: 1 }); return 1; } };
}
