import fs from 'node:fs';
import path from 'node:path';

/** A host path made visible inside a sandbox. */
export interface Mount {
  from: string;
  to: string;
  writable?: boolean;
}

export interface SandboxSpec {
  /** Keep the host's network namespace (the session browser: it reaches the policy proxy on loopback). */
  shareNetwork: boolean;
  mounts: Mount[];
  /** Environment inside; nothing of the service's environment is passed. */
  env: Record<string, string>;
  cwd: string;
  command: string[];
}

/** Host directories of the read-only root every sandbox sees (programs and libraries only). */
const READ_ONLY_SYSTEM = ['/usr', '/etc/fonts', '/etc/ld.so.cache', '/etc/alternatives', '/etc/ssl/certs'];

/**
 * bubblewrap arguments: new user, PID, IPC, UTS, cgroup (and, unless shared, network) namespaces, a
 * minimal read-only root (/usr and a few /etc files: no service files, data directories or secrets),
 * fresh /proc, /dev and /tmp, a cleared environment, a new session (no terminal injection), killed
 * with its parent. Resource limits are set by the caller (prlimit) and the uid it runs bwrap as.
 */
export function bwrapArgs(spec: SandboxSpec): string[] {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(spec.shareNetwork ? [] : ['--unshare-net']),
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
  ];
  for (const dir of READ_ONLY_SYSTEM) if (fs.existsSync(dir)) args.push('--ro-bind', dir, dir);
  args.push(
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--symlink',
    'usr/sbin',
    '/sbin',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/dev/shm',
  );
  for (const m of spec.mounts) {
    args.push('--dir', path.posix.dirname(m.to));
    args.push(m.writable ? '--bind' : '--ro-bind', m.from, m.to);
  }
  args.push('--clearenv');
  for (const [k, v] of Object.entries(spec.env)) args.push('--setenv', k, v);
  args.push('--chdir', spec.cwd, '--', ...spec.command);
  return args;
}

export interface Limits {
  /** RLIMIT_AS per process (bytes); 0 = unlimited (a cgroup bounds memory instead). */
  addressSpaceBytes: number;
  /** RLIMIT_CPU per process (seconds). */
  cpuSeconds: number;
  /** RLIMIT_NPROC for the sandbox's own uid. */
  processes: number;
  /** RLIMIT_FSIZE (bytes). */
  fileBytes: number;
}

/** `prlimit` prefix applying the limits to bwrap and everything it starts. */
export function prlimitArgs(l: Limits): string[] {
  return [
    `--as=${l.addressSpaceBytes > 0 ? l.addressSpaceBytes : 'unlimited'}`,
    `--cpu=${l.cpuSeconds}`,
    `--nproc=${l.processes}`,
    `--fsize=${l.fileBytes}`,
    '--core=0',
    '--',
  ];
}
