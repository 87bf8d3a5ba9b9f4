// One 1 MB string referenced 300 times in one argument (300 MB once copied per reference).
async function main(bot) {
  const s = 'x'.repeat(1e6);
  await moveTo(bot, new Array(300).fill(s), 1);
}
