// Chat in a loop without any await: the chat cap ends it before the calls pile up.
async function main(bot) {
  for (let i = 0; i < 1e6; i++) bot.chat('spam ' + i);
}
