import { promises as fs } from 'node:fs';

/** Process ids on this host and what the pool needs to know about them (Linux /proc). */
export interface ProcessTable {
  /** Direct children of `pid`. */
  children(pid: number): Promise<number[]>;
  /** Proportional set size of `pid` and all its descendants, in bytes (shared pages split fairly). */
  treePssBytes(pid: number): Promise<number>;
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    // The process exited between listing and reading; it simply no longer counts.
    return undefined;
  }
}

/** /proc based implementation; PSS rather than RSS because Chromium's processes share most pages. */
export class LinuxProcessTable implements ProcessTable {
  async children(pid: number): Promise<number[]> {
    const tasks = (await fs.readdir(`/proc/${pid}/task`).catch(() => [])) as string[];
    const out: number[] = [];
    for (const tid of tasks) {
      const text = await readText(`/proc/${pid}/task/${tid}/children`);
      if (text) out.push(...text.trim().split(/\s+/).filter(Boolean).map(Number));
    }
    return out;
  }

  async treePssBytes(pid: number): Promise<number> {
    let total = 0;
    const queue = [pid];
    while (queue.length > 0) {
      const p = queue.shift()!;
      const rollup = await readText(`/proc/${p}/smaps_rollup`);
      const kb = rollup ? /^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] : undefined;
      if (kb) total += Number(kb) * 1024;
      queue.push(...(await this.children(p)));
    }
    return total;
  }
}
