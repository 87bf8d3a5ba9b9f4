'use strict';
const { plainText } = require('./plain-text');
// Turns whatever a program threw into { error, stack, errorLine }, keeping only
// frames in the sources we evaluated (each is evaluated with its own sourceURL,
// so V8's line numbers already are the user's line numbers).

const FRAME = /^\s*at (?:(.+?) \()?(program|prelude|skill:[\w$]+):(\d+):(\d+)\)?\s*$/;
// SES refuses some sources (e.g. "import(") before running them: "... rejected at program:3."
const REJECTED_AT = /rejected at (program|prelude|skill:[\w$]+):(\d+)/;

const MAX_HEADER = 2_000; // characters of an error message kept: a program may throw a 100 MB message

function header(err) {
  let text;
  try {
    const message = err instanceof Error ? err.message : err;
    const short = typeof message === 'string' && message.length > MAX_HEADER ? `${message.slice(0, MAX_HEADER)}…` : message;
    text = err instanceof Error ? `${err.name}: ${short}` : `Uncaught ${typeof err === 'string' ? JSON.stringify(short) : String(err)}`;
  } catch {
    return 'Uncaught exception (value could not be printed)';
  }
  return plainText(text.length > 2 * MAX_HEADER ? `${text.slice(0, 2 * MAX_HEADER)}…` : text);
}

function frameText({ fn, file, line, column }) {
  return fn ? `    at ${fn} (${file}:${line}:${column})` : `    at ${file}:${line}:${column}`;
}

function describe(head, frames) {
  const inProgram = frames.find((f) => f.file === 'program');
  return {
    error: head,
    stack: [head, ...frames.map(frameText)].join('\n'),
    errorLine: inProgram ? inProgram.line : null,
  };
}

// `getStackString` is SES's privileged accessor (error.stack is empty under lockdown).
function describeError(err, getStackString) {
  const head = header(err);
  const frames = [];
  let text = '';
  try {
    if (err instanceof Error) text = getStackString(err);
  } catch {
    // an exotic thrown value: report the message alone
  }
  for (const line of text.split('\n')) {
    const m = FRAME.exec(line);
    if (m) frames.push({ fn: m[1], file: m[2], line: Number(m[3]), column: Number(m[4]) });
  }
  const rejected = frames.length === 0 && REJECTED_AT.exec(head);
  if (rejected) frames.push({ file: rejected[1], line: Number(rejected[2]), column: 1 });
  return describe(head, frames);
}

// acorn's SyntaxError carries loc = { line, column (0-based) } and ends its
// message with "(line:column)"; restate it 1-based like V8's frames.
function describeSyntaxError(err, file) {
  if (!err.loc) return describe(`SyntaxError: ${err.message}`, []);
  const { line } = err.loc;
  const column = err.loc.column + 1;
  const message = err.message.replace(/ \(\d+:\d+\)$/, '');
  return describe(`SyntaxError: ${message} (line ${line}, column ${column})`, [{ file, line, column }]);
}

module.exports = { describeError, describeSyntaxError };
