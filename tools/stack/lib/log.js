'use strict';
// The stack scripts' own messages. Services log pino JSON; these lines are prefixed with the
// same column layout so a reader can tell who said what.
const PREFIX_WIDTH = 13;

function prefix(name) {
  return `${name.padEnd(PREFIX_WIDTH)}| `;
}

function info(msg) {
  process.stdout.write(`${prefix('stack')}${msg}\n`);
}

function warn(msg) {
  process.stderr.write(`${prefix('stack')}WARNING: ${msg}\n`);
}

function error(msg) {
  process.stderr.write(`${prefix('stack')}ERROR: ${msg}\n`);
}

module.exports = { prefix, info, warn, error };
