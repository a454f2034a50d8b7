'use strict';
// Finds processes a run left behind: every descendant inherits a unique environment marker,
// which survives re-parenting to init (unlike the process tree) and process-group changes.
const fs = require('node:fs');

function processesWithMarker(name, value) {
  // The value is random per run, so a substring match cannot hit an unrelated process.
  const needle = Buffer.from(`${name}=${value}`);
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!pid || pid === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${pid}/environ`);
      if (environ.includes(needle)) {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!/^\d+ \(.*\) Z/.test(stat)) found.push({ pid, cmd: readCmd(pid) });
      }
    } catch {
      // gone meanwhile, or not readable (another user's process)
    }
  }
  return found;
}

function readCmd(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 160);
  } catch {
    return '?';
  }
}

/** SIGTERM what carries the marker, then SIGKILL whatever is still there after graceMs. */
async function killMarked(name, value, graceMs = 3000) {
  const first = processesWithMarker(name, value);
  if (first.length === 0) return [];
  for (const p of first) signal(p.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && processesWithMarker(name, value).length > 0) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const p of processesWithMarker(name, value)) signal(p.pid, 'SIGKILL');
  return first;
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

module.exports = { processesWithMarker, killMarked };
