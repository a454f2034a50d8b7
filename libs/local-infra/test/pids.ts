import fs from 'node:fs';

/** Whether `pid` runs; a zombie (killed, not yet reaped by init) counts as gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits up to `ms` for every pid to be gone; returns those still alive. */
export async function stillAliveAfter(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && pids.some(alive)) await new Promise((r) => setTimeout(r, 100));
  return pids.filter(alive);
}
