'use strict';
// Finds the program in an LLM's code: parses it with a real JS parser (acorn)
// so that a reply is judged by what the sandbox will actually run, not by
// regular expressions. Runs on the main Node thread (no SES needed: nothing is
// executed here).
//
// Voyager's rule: among the top-level functions, the last async function whose
// first parameter is `bot` is the entry; every other top-level declaration is
// kept as a helper. The sandbox runs the last top-level function, so the entry
// is moved last, and top-level calls (`await main(bot);`, which models often
// add) are dropped: the runner calls the entry itself.
//
// acorn is passed in (the caller requires it by absolute path from the
// project's node_modules), so this file resolves no package itself.

function isBotEntry(node) {
  if (node.type !== 'FunctionDeclaration' || !node.async) return false;
  const first = node.params[0];
  return first !== undefined && first.type === 'Identifier' && first.name === 'bot';
}

// `f(...)` or `await f(...)` as a whole top-level statement, f a declared function.
function isTopLevelCall(node, declared) {
  if (node.type !== 'ExpressionStatement') return false;
  let expr = node.expression;
  if (expr.type === 'AwaitExpression') expr = expr.argument;
  return expr.type === 'CallExpression' && expr.callee.type === 'Identifier' && declared.has(expr.callee.name);
}

function syntaxFailure(err) {
  const loc = err.loc ?? {};
  // acorn appends " (line:column)" to its messages; the fields say it already.
  const message = String(err.message).replace(/ \(\d+:\d+\)$/, '');
  return { ok: false, kind: 'syntax', message, line: loc.line ?? null, column: loc.column ?? null };
}

function createExtractor(acorn) {
  // Returns a JSON string (one bridge round trip for the whole answer):
  //   { ok: true, code, entry, helpers: [names], dropped: [statement source], empty }
  //   { ok: false, kind: 'syntax' | 'no_entry', message, line, column }
  function extract(source) {
    const options = { ecmaVersion: 'latest', sourceType: 'script', locations: true };
    // Parsed twice at most: a top-level `await main(bot)` is only an error
    // because of the call we drop anyway, so it is tolerated on the second try.
    let ast;
    let strictError = null;
    try {
      ast = acorn.parse(source, options);
    } catch (err) {
      strictError = err;
      try {
        ast = acorn.parse(source, { ...options, allowAwaitOutsideFunction: true });
      } catch (err2) {
        return JSON.stringify(syntaxFailure(err2));
      }
    }
    const entries = ast.body.filter(isBotEntry);
    if (entries.length === 0) {
      return JSON.stringify({
        ok: false,
        kind: 'no_entry',
        message: 'no async function taking `bot` as its first parameter, e.g. async function mineIron(bot) { ... }',
        line: null,
        column: null,
      });
    }
    const entry = entries.at(-1);
    const functions = ast.body.filter((n) => n.type === 'FunctionDeclaration');
    const declared = new Set(functions.map((n) => n.id.name));
    const kept = [];
    const dropped = [];
    for (const node of ast.body) {
      const text = source.slice(node.start, node.end);
      if (node === entry) continue;
      if (isTopLevelCall(node, declared)) dropped.push(text);
      else kept.push(text);
    }
    kept.push(source.slice(entry.start, entry.end));
    const helpers = functions.filter((n) => n !== entry).map((n) => n.id.name);
    // Unchanged when the sandbox would already run the entry: error lines then match the reply.
    const code = dropped.length === 0 && functions.at(-1) === entry
      ? source
      : kept.join('\n\n') + '\n';
    if (strictError !== null) {
      // Some other top-level statement awaits: report it where the model wrote it.
      try {
        acorn.parse(code, options);
      } catch {
        return JSON.stringify(syntaxFailure(strictError));
      }
    }
    // empty: the entry's body has no statement (a small model echoing the prompt's skeleton)
    return JSON.stringify({ ok: true, code, entry: entry.id.name, helpers, dropped, empty: entry.body.body.length === 0 });
  }
  return { extract };
}

module.exports = { createExtractor };
