// Retries forever a primitive that fails softly and takes no simulated time (no diamond_ore nearby).
async function main(bot) {
  for (let i = 0; ; i++) await mineBlock(bot, 'diamond_ore', 1);
}
