// A 30 MB typed array as an argument.
async function main(bot) {
  await moveTo(bot, new Uint8Array(30e6), 1);
}
