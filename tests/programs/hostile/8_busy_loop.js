// Computes forever without awaiting anything.
async function main(bot) {
  while (true) {}
}
