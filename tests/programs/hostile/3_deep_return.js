// A return value nested 3,000 deep (Python's JSON reader gives up near 1,000).
async function main(bot) {
  let v = [];
  for (let i = 0; i < 3000; i++) v = [v];
  return v;
}
