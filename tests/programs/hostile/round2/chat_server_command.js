// expect: none chat
// A bot without operator rights tries server commands, plainly and hidden after a newline.
async function main(bot) {
  bot.chat('/kill @a');
  bot.chat('hello\n/kill @a');
  bot.chat('/op Gizmo');
  await bot.waitForTicks(2);
  return 'sent';
}
