'use strict';
// Compiles and runs one program in a fresh Compartment (worker side, after
// lockdown). Every source is evaluated separately with its own sourceURL so
// stack lines are the user's own; a fresh Compartment per run means nothing a
// program does to its globals survives into the next run.

const acorn = require('acorn');
const { describeError, describeSyntaxError } = require('./errors');
const { encode, ValueLimitError } = require('./codec');

class SourceSyntaxError extends Error {
  constructor(cause, file) {
    super(cause.message);
    this.cause = cause;
    this.file = file;
  }
}

function parse(source, file) {
  try {
    return acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'script' });
  } catch (err) {
    throw new SourceSyntaxError(err, file);
  }
}

// Names of the top-level function declarations; throws SourceSyntaxError.
function topLevelFunctions(source, file) {
  return parse(source, file).body.filter((node) => node.type === 'FunctionDeclaration').map((node) => node.id.name);
}

// A skill as it is loaded into a program: its top-level function declarations only. Anything else at its top
// level (a statement, a variable) would run in every program given the skill; it is blanked out, keeping the
// line breaks so that the skill's frames keep their line numbers. Throws SourceSyntaxError.
function skillFunctions(source, file) {
  const functions = parse(source, file).body.filter((node) => node.type === 'FunctionDeclaration');
  let kept = '';
  let at = 0;
  for (const node of functions) {
    kept += source.slice(at, node.start).replace(/[^\n]/g, ' ') + source.slice(node.start, node.end);
    at = node.end;
  }
  kept += source.slice(at).replace(/[^\n]/g, ' ');
  return { source: kept, names: functions.map((node) => node.id.name) };
}

function preludeWrapper(prelude) {
  // Same line as the prelude's first line, so prelude frames keep their numbers.
  return `(function (host) { ${prelude}\n})`;
}

function checkPrelude(prelude) {
  topLevelFunctions(preludeWrapper(prelude), 'prelude');
}

// The return value crosses to the host (and Python) as JSON: measured and depth-limited like
// any message. A value too large or too deep fails the program, naming the limit.
function toJson(value, config) {
  if (value === undefined) return null;
  const encoded = encode(value, () => undefined, {
    what: 'the return value', accessors: 'throw', maxBytes: config.maxMessageBytes, maxDepth: config.maxReturnDepth, deep: 'throw',
  });
  return JSON.stringify(encoded) ?? null;
}

// A value too large or too deep to send ends the program as a broken limit, not as its own bug.
function limitOf(err) {
  try {
    return err instanceof ValueLimitError ? { kind: 'limit', limit: err.limit } : {};
  } catch {
    return {}; // a hostile thrown value (a Proxy whose traps throw)
  }
}

// request: { source, skills: [source], entry? }
// env: { globals(): endowments, install(globalThis), host, prelude, log(line), returned(), getStackString }
async function execute(request, env, config) {
  try {
    const programFunctions = topLevelFunctions(request.source, 'program');
    // Like Voyager: the last top-level function is the entry unless one is named.
    const entry = request.entry ?? programFunctions.at(-1);
    if (entry === undefined) {
      throw new TypeError('the program must declare its entry function, e.g. async function main(bot) { ... }');
    }
    const skills = request.skills.map((text, i) => {
      const { source, names } = skillFunctions(text, `skill:#${i + 1}`);
      return { source, names, file: `skill:${names[0] ?? `#${i + 1}`}` };
    });

    const compartment = new Compartment({ globals: env.globals(), __options__: true });
    const scope = compartment.globalThis;
    env.install(scope);
    if (env.prelude) {
      const factory = compartment.evaluate(`${preludeWrapper(env.prelude)}\n//# sourceURL=prelude`);
      const extras = factory(env.host);
      if (extras != null) Object.assign(scope, extras);
    }
    // A skill may not replace what the program is given (a primitive, bot, log, mcData, the prelude's globals,
    // an intrinsic): a stored skill named mineBlock would otherwise change mineBlock in every later program.
    const given = new Set(Reflect.ownKeys(scope));
    for (const skill of skills) {
      const exported = compartment.evaluate(
        `${skill.source}\n;({ ${skill.names.join(', ')} })\n//# sourceURL=${skill.file}`);
      for (const name of skill.names) {
        if (given.has(name)) env.log(`[skill ${name} not loaded: it would replace the program's own ${name}]`);
        else Object.defineProperty(scope, name, { value: exported[name], writable: true, enumerable: true, configurable: true });
      }
    }
    const main = compartment.evaluate(`${request.source}\n;${entry}\n//# sourceURL=program`);
    if (typeof main !== 'function') throw new TypeError(`${entry} is not a function`);
    const value = await main(scope.bot);
    // Returned: from here no call of the program reaches the host (a getter or a Proxy trap on the
    // returned value, a promise it left pending), and its value is read without running its code.
    env.returned();
    return { success: true, error: null, stack: null, errorLine: null, returnJson: toJson(value, config) };
  } catch (err) {
    const described = err instanceof SourceSyntaxError
      ? describeSyntaxError(err.cause, err.file)
      : describeError(err, env.getStackString);
    return { success: false, ...described, returnJson: null, ...limitOf(err) };
  }
}

module.exports = { execute, checkPrelude };
