// Infinite async recursion (used to flood stderr with "Exception in PromiseRejectCallback").
async function main(bot) {
  async function f(n) { await f(n + 1); }
  await f(0);
}
