'use strict';
// Chat, log lines and error messages reach terminals, reports and other agents' chat logs: a newline would start a line
// that seems to come from someone else (or hide a server command after a greeting), an escape sequence
// could repaint a terminal. Line breaks become spaces, other control and bidi characters visible escapes.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
function plainText(text) {
  return text.replace(CONTROL, (c) => (c === '\n' || c === '\r' || c === '\t' || c === '\u2028' || c === '\u2029'
    ? ' ' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

module.exports = { plainText };
