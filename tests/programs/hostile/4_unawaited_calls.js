// 100,000 primitive calls started without awaiting any.
async function main(bot) {
  for (let i = 0; i < 100000; i++) bot.waitForTicks(1);
}
