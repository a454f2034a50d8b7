import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The official Python SDK (`firecrawl-py`, from PyPI) in a venv the tests create once per machine
// and reuse: an e2e test writes a Python snippet, runs it against a stack and reads back the JSON
// the snippet printed. The venv lives outside the repository (WDS_PYTHON_SDK_DIR, default
// ~/.cache/wds) under a name that carries the pinned version, so a new pin builds a new venv.

/** The firecrawl-py release the e2e suites are written against (pinned: the SDK validates shapes). */
export const FIRECRAWL_PY_VERSION = '4.55.0';

const CACHE_ROOT = process.env.WDS_PYTHON_SDK_DIR || path.join(os.homedir(), '.cache', 'wds');
const VENV_DIR = path.join(CACHE_ROOT, `firecrawl-py-${FIRECRAWL_PY_VERSION}`);
const READY_MARK = path.join(VENV_DIR, '.wds-ready');
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const LOCK_STALE_MS = INSTALL_TIMEOUT_MS + 60_000;

/** Marks the last stdout line a snippet prints with `emit(value)`; everything before it is free output. */
const RESULT_MARK = '__WDS_RESULT__';

const PRELUDE = `
import json as _wds_json, os as _wds_os, sys as _wds_sys
from firecrawl import Firecrawl
API_URL = _wds_os.environ["WDS_API_URL"]
API_KEY = _wds_os.environ["WDS_API_KEY"]
def client(**kw):
    return Firecrawl(api_key=kw.pop("api_key", API_KEY), api_url=kw.pop("api_url", API_URL), **kw)
def plain(value):
    """SDK objects (pydantic models, lists, dicts of them) as JSON-ready data."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=False)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
def emit(value):
    _wds_sys.stdout.write("\\n${RESULT_MARK}" + _wds_json.dumps(plain(value), default=str) + "\\n")
    _wds_sys.stdout.flush()
`;

export interface PythonRun {
  /** The value the snippet passed to `emit(...)` (plain JSON), or undefined when it emitted none. */
  result: any;
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface PythonSdk {
  /** The venv's python executable. */
  python: string;
  /**
   * Runs `code` with the SDK importable and these names bound: `client(**kw)` (a `Firecrawl`
   * for the stack), `plain(value)`, `emit(value)`, `API_URL`, `API_KEY`. Rejects when the snippet
   * exits non-zero (an SDK exception included), with its stderr in the message.
   */
  run(
    code: string,
    opts: { apiUrl: string; apiKey: string; timeoutMs?: number; env?: Record<string, string> },
  ): Promise<PythonRun>;
  /** As `run`, but resolves with the exit status instead of rejecting (for tests of SDK errors). */
  runRaw(
    code: string,
    opts: { apiUrl: string; apiKey: string; timeoutMs?: number; env?: Record<string, string> },
  ): Promise<PythonRun>;
}

let ready: Promise<PythonSdk> | undefined;

/** The venv with the pinned SDK, created on first use (a few tens of seconds from PyPI). */
export function pythonSdk(): Promise<PythonSdk> {
  ready ??= ensureVenv().then(() => makeSdk(path.join(VENV_DIR, 'bin', 'python')));
  return ready;
}

function makeSdk(python: string): PythonSdk {
  const runRaw: PythonSdk['runRaw'] = async (code, opts) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-py-'));
    const file = path.join(dir, 'snippet.py');
    fs.writeFileSync(file, `${PRELUDE}\n${dedent(code)}\n`);
    try {
      const {
        stdout,
        stderr,
        code: exitCode,
      } = await exec(python, [file], {
        timeoutMs: opts.timeoutMs ?? 120_000,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: process.env.HOME ?? os.tmpdir(),
          PYTHONUNBUFFERED: '1',
          PYTHONDONTWRITEBYTECODE: '1',
          WDS_API_URL: opts.apiUrl,
          WDS_API_KEY: opts.apiKey,
          ...opts.env,
        },
      });
      const at = stdout.lastIndexOf(`\n${RESULT_MARK}`);
      let result: unknown;
      let free = stdout;
      if (at >= 0) {
        const line = stdout.slice(at + 1 + RESULT_MARK.length).split('\n')[0];
        result = JSON.parse(line);
        free = stdout.slice(0, at);
      }
      return { result, stdout: free, stderr, exitCode };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  return {
    python,
    runRaw,
    run: async (code, opts) => {
      const out = await runRaw(code, opts);
      if (out.exitCode !== 0) {
        throw new Error(
          `the Python snippet exited with ${out.exitCode}:\n${out.stderr.slice(-4000)}\n${out.stdout.slice(-2000)}`,
        );
      }
      return out;
    },
  };
}

async function ensureVenv(): Promise<void> {
  if (fs.existsSync(READY_MARK)) return;
  fs.mkdirSync(CACHE_ROOT, { recursive: true });
  const lock = `${VENV_DIR}.lock`;
  // Jest workers (and parallel runs) may ask at once: one builds, the others wait for its mark.
  for (;;) {
    if (fs.existsSync(READY_MARK)) return;
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - statMtime(lock);
      if (age > LOCK_STALE_MS) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (fs.existsSync(READY_MARK)) return;
    // Build beside the final place and rename, so a half-built venv is never used.
    const building = `${VENV_DIR}.building-${randomBytes(4).toString('hex')}`;
    fs.rmSync(VENV_DIR, { recursive: true, force: true });
    await execOk('python3', ['-m', 'venv', building]);
    const pip = path.join(building, 'bin', 'pip');
    await execOk(pip, [
      'install',
      '--disable-pip-version-check',
      '--no-input',
      '-q',
      `firecrawl-py==${FIRECRAWL_PY_VERSION}`,
    ]);
    // Only bin/python is used after the move; it finds the venv through pyvenv.cfg beside it.
    fs.renameSync(building, VENV_DIR);
    await execOk(path.join(VENV_DIR, 'bin', 'python'), ['-c', 'import firecrawl']);
    fs.writeFileSync(READY_MARK, `firecrawl-py==${FIRECRAWL_PY_VERSION}\n`);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

function statMtime(p: string): number {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return Date.now();
  }
}

interface ExecOut {
  stdout: string;
  stderr: string;
  code: number;
}

function exec(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ExecOut> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        timeout: opts.timeoutMs ?? INSTALL_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
        env: opts.env ?? process.env,
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({
          stdout: String(stdout),
          stderr: String(stderr) + (err && code === 1 && !stderr ? err.message : ''),
          code,
        });
      },
    );
  });
}

async function execOk(cmd: string, args: string[]): Promise<void> {
  const out = await exec(cmd, args);
  if (out.code !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${out.code}):\n${out.stderr.slice(-4000)}`);
}

/** Strips the common indentation of a template literal so snippets can be indented with the test. */
function dedent(code: string): string {
  const lines = code.replace(/^\n/, '').split('\n');
  const indents = lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut)).join('\n');
}
