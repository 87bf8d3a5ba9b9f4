// One 600 MB typed array filled in one native call (no JS runs until it is done), then kept.
async function main(bot) {
  const big = new Uint8Array(6e8);
  big.fill(7);
  for (;;) big[0] += 1;
}
