// 1.5 GB of ArrayBuffers in one loop that never yields (outside the heap cap).
async function main(bot) {
  const keep = [];
  for (let i = 0; i < 15; i++) keep.push(new Uint8Array(1e8).fill(1));
  return keep.length;
}
