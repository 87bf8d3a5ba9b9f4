// expect: memoryMb named, or SharedArrayBuffer absent
// Growable SharedArrayBuffers grown past the ArrayBuffer cap (if the realm offers them at all).
async function main(bot) {
  if (typeof SharedArrayBuffer === 'undefined') throw new Error('SharedArrayBuffer is absent from programs');
  const kept = [];
  for (let i = 0; i < 40; i++) {
    const b = new SharedArrayBuffer(8, { maxByteLength: 64 * 2 ** 20 });
    b.grow(64 * 2 ** 20);
    new Uint8Array(b).fill(1);
    kept.push(b);
    await bot.waitForTicks(1);
  }
  return kept.length;
}
