import fs from 'node:fs';
import path from 'node:path';

const V1_MEMORY = '/sys/fs/cgroup/memory';
const V1_PIDS = '/sys/fs/cgroup/pids';
const PARENT = 'wds-sandboxes';

/**
 * A memory (+ pids) cgroup for one session's code: the limit covers every process of the sandbox
 * together (an address-space rlimit cannot: V8 reserves ~10 GB of address space per WebAssembly
 * instance). cgroup v1 hierarchies are used when this process may create groups there; otherwise
 * `available()` is false and the caller falls back to an address-space limit.
 */
export class SandboxCgroup {
  private constructor(private readonly dirs: string[]) {}

  static available(): boolean {
    try {
      fs.mkdirSync(path.join(V1_MEMORY, PARENT), { recursive: true });
      fs.accessSync(path.join(V1_MEMORY, PARENT), fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  /** Creates the groups with their limits; `uid` may then move its own processes into them. */
  static create(name: string, memoryBytes: number, processes: number, uid: number): SandboxCgroup {
    const mem = path.join(V1_MEMORY, PARENT, name);
    fs.mkdirSync(mem, { recursive: true });
    fs.writeFileSync(path.join(mem, 'memory.limit_in_bytes'), String(memoryBytes));
    // Swap would let the group exceed its limit on disk.
    try {
      fs.writeFileSync(path.join(mem, 'memory.memsw.limit_in_bytes'), String(memoryBytes));
    } catch {
      // no swap accounting on this kernel: nothing to limit
    }
    const dirs = [mem];
    const pids = path.join(V1_PIDS, PARENT, name);
    try {
      fs.mkdirSync(pids, { recursive: true });
      fs.writeFileSync(path.join(pids, 'pids.max'), String(processes));
      dirs.push(pids);
    } catch {
      // no pids controller: RLIMIT_NPROC still bounds the sandbox's uid
    }
    for (const d of dirs) fs.chownSync(path.join(d, 'cgroup.procs'), uid, uid);
    return new SandboxCgroup(dirs);
  }

  /** Shell prefix run as the sandbox uid: joins the groups, then execs the rest (so every child is inside). */
  joinCommand(rest: string[]): string[] {
    const joins = this.dirs.map((d) => `echo $$ > ${d}/cgroup.procs`).join(' && ');
    return ['/bin/sh', '-c', `${joins} && exec "$@"`, 'sandbox', ...rest];
  }

  /** Kills what is left and removes the groups. */
  remove(): void {
    for (const d of this.dirs) {
      try {
        const pids = fs.readFileSync(path.join(d, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
        for (const pid of pids) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // gone
          }
        }
      } catch {
        // already gone
      }
    }
    // A group can only be removed once empty; killed processes take a moment to leave it.
    const tryRemove = (attempt: number) => {
      const left = this.dirs.filter((d) => {
        try {
          fs.rmdirSync(d);
          return false;
        } catch {
          return fs.existsSync(d);
        }
      });
      if (left.length && attempt < 20) setTimeout(() => tryRemove(attempt + 1), 250).unref();
    };
    tryRemove(0);
  }
}
