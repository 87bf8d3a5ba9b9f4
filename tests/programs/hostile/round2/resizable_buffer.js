// expect: limit memoryMb|busyGrowthMb
// A resizable ArrayBuffer created small, then grown past the ArrayBuffer cap.
async function main(bot) {
  const kept = [];
  for (let i = 0; i < 40; i++) {
    const b = new ArrayBuffer(8, { maxByteLength: 64 * 2 ** 20 });
    b.resize(64 * 2 ** 20);
    new Uint8Array(b).fill(1);
    kept.push(b);
    await bot.waitForTicks(1);
  }
  return kept.length;
}
