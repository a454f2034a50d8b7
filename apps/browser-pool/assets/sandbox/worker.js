'use strict';
/*
 * Runs INSIDE the session's code sandbox (bubblewrap; see docs/adr/0008-browser-sessions.md). Started
 * as `node worker.js <language>`. It owns the only way out of the sandbox's empty network namespace:
 * 127.0.0.1:9222 here is bridged to the session's CDP relay, a unix socket the service bound into
 * the sandbox at /run/wds/cdp.sock. Requests arrive as JSON lines on fd 3 ({id, code, nonce}); the
 * code's output goes to fds 1 and 2, each followed by the call's end marker, and the answer
 * ({id, result?, error?, exitCode}) goes back on fd 3.
 */
const net = require('node:net');
const fs = require('node:fs');
const readline = require('node:readline');
const { spawn } = require('node:child_process');

const CDP_PORT = 9222;
const CDP_SOCKET = '/run/wds/cdp.sock';
const language = process.argv[2];

function bridge() {
  return new Promise((resolve, reject) => {
    const server = net.createServer((client) => {
      const upstream = net.connect(CDP_SOCKET);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end);
      upstream.on('error', end);
      client.on('close', end);
      upstream.on('close', end);
    });
    server.on('error', reject);
    server.listen(CDP_PORT, '127.0.0.1', () => resolve(server));
  });
}

let controlSocket;
function control() {
  controlSocket ??= new net.Socket({ fd: 3, readable: true, writable: true });
  return controlSocket;
}
function answer(msg) {
  control().write(JSON.stringify(msg) + '\n');
}
function marker(nonce) {
  return `\u0000WDS-END-${nonce}\u0000`;
}
function endOutput(nonce) {
  return Promise.all([
    new Promise((r) => process.stdout.write(marker(nonce), r)),
    new Promise((r) => process.stderr.write(marker(nonce), r)),
  ]);
}

function describe(value) {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'function') return `[Function ${value.name || 'anonymous'}]`;
  if (typeof value === 'bigint' || typeof value === 'symbol') return String(value);
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json;
  } catch {
    return String(value);
  }
}

/* ---------------- node: a REPL-like context with Playwright bound ---------------- */

/**
 * Code that compiles as a script runs as one (its completion value is the result; top-level
 * declarations persist like in a REPL). Code with top-level await or return runs in an async
 * function whose top-level declarations become globals and whose last expression is returned.
 */
function asAsyncFunction(code) {
  const acorn = require('acorn');
  const ast = acorn.parse(code, {
    ecmaVersion: 'latest',
    sourceType: 'script',
    allowAwaitOutsideFunction: true,
    allowReturnOutsideFunction: true,
  });
  const edits = [];
  const body = ast.body;
  for (const node of body) {
    if (node.type === 'VariableDeclaration') {
      // `const a = 1, {b} = x` -> `void (a = 1, ({b} = x))`; `let c` -> `void (c = undefined)`
      const parts = node.declarations.map((d) => {
        const target = code.slice(d.id.start, d.id.end);
        const init = d.init ? code.slice(d.init.start, d.init.end) : 'undefined';
        return d.id.type === 'Identifier' ? `${target} = ${init}` : `(${target} = ${init})`;
      });
      const names = node.declarations.flatMap((d) => declaredNames(d.id));
      edits.push({
        start: node.start,
        end: node.end,
        text: `${names.map((n) => `globalThis.${n} = globalThis.${n};`).join('')}void (${parts.join(', ')});`,
      });
    } else if (node.type === 'FunctionDeclaration' && node.id) {
      edits.push({
        start: node.start,
        end: node.end,
        text: `globalThis.${node.id.name} = ${code.slice(node.start, node.end)};`,
      });
    } else if (node.type === 'ClassDeclaration' && node.id) {
      edits.push({
        start: node.start,
        end: node.end,
        text: `globalThis.${node.id.name} = ${code.slice(node.start, node.end)};`,
      });
    }
  }
  const last = body[body.length - 1];
  if (last && last.type === 'ExpressionStatement') {
    edits.push({
      start: last.start,
      end: last.end,
      text: `return (${code.slice(last.expression.start, last.expression.end)});`,
    });
  }
  let out = code;
  for (const e of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return `(async () => {\n${out}\n})()`;
}

function declaredNames(pattern) {
  switch (pattern.type) {
    case 'Identifier':
      return [pattern.name];
    case 'ObjectPattern':
      return pattern.properties.flatMap((p) =>
        declaredNames(p.type === 'RestElement' ? p.argument : p.value),
      );
    case 'ArrayPattern':
      return pattern.elements.filter(Boolean).flatMap(declaredNames);
    case 'RestElement':
      return declaredNames(pattern.argument);
    case 'AssignmentPattern':
      return declaredNames(pattern.left);
    default:
      return [];
  }
}

async function runNode() {
  const vm = require('node:vm');
  const { chromium } = require('playwright-core');
  let connected;
  let bound = false;
  function connect() {
    bound = false;
    return chromium.connectOverCDP(`http://127.0.0.1:${CDP_PORT}`);
  }
  /**
   * Binds `browser`, `context` and `page` at the first call (not at connect): a runtime started
   * ahead of its session (warm, or during an interact replay) binds the page the session shows by
   * then, as one started by that call would.
   */
  async function bind(browser) {
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page =
      context.pages().find((p) => p.url() !== 'about:blank') ??
      context.pages()[0] ??
      (await context.newPage());
    Object.assign(globalThis, { browser, context, page, require });
    bound = true;
  }
  async function run(code) {
    if (!connected || !connected.isConnected()) connected = await connect();
    if (!bound) await bind(connected);
    let script;
    try {
      script = new vm.Script(code, { filename: 'input.js' });
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      script = new vm.Script(asAsyncFunction(code), { filename: 'input.js' });
    }
    return describe(await script.runInThisContext());
  }
  // Connects at the first call, not before: a Playwright client connected to a session that runs
  // no node code (e.g. an interact prompt) was seen to stall the browser agent's steps.
  serve(run);
}

/* ---------------- bash: agent-browser pointed at the session's browser ---------------- */

/**
 * One bash process kept between calls (variables, functions, cwd persist). Each call's code is
 * sourced from a file with stdin from /dev/null; bash reports `$?` on its fd 3. agent-browser on
 * PATH is a wrapper that adds `--cdp 9222`.
 */
function runBash() {
  let shell;
  let pending;
  function start() {
    shell = spawn('/bin/bash', ['--noprofile', '--norc'], { stdio: ['pipe', 'inherit', 'inherit', 'pipe'] });
    const status = readline.createInterface({ input: shell.stdio[3] });
    status.on('line', (line) => {
      const p = pending;
      pending = undefined;
      if (p) p.resolve(Number(line));
    });
    shell.on('exit', (code, signal) => {
      shell = undefined;
      const p = pending;
      pending = undefined;
      if (p) p.resolve(code ?? (signal ? 128 : 1));
    });
  }
  let n = 0;
  serve(async (code) => {
    if (!shell) start();
    const file = `/tmp/.call-${++n}.sh`;
    fs.writeFileSync(file, code);
    const exit = await new Promise((resolve) => {
      pending = { resolve };
      shell.stdin.write(`. ${file} </dev/null\nprintf '%s\\n' "$?" >&3\n`);
    });
    fs.rmSync(file, { force: true });
    if (exit !== 0) throw Object.assign(new Error(`exit code ${exit}`), { exitCode: exit, quiet: true });
    return null;
  });
}

/* ---------------- python: Playwright for Python connected over CDP ---------------- */

function runPython() {
  // The Python worker speaks the same protocol on fd 3; this process only keeps the bridge open.
  const child = spawn('/usr/bin/python3', ['-u', '/opt/wds/worker.py'], {
    stdio: ['ignore', 'inherit', 'inherit', 3],
    env: { ...process.env, PYTHONPATH: '/opt/wds/python', PYTHONDONTWRITEBYTECODE: '1' },
  });
  child.on('exit', (code) => process.exit(code ?? 1));
}

function serve(run) {
  const lines = readline.createInterface({ input: control() });
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    const req = JSON.parse(line);
    queue = queue.then(async () => {
      try {
        const result = await run(req.code);
        await endOutput(req.nonce);
        answer({ id: req.id, result, exitCode: 0 });
      } catch (err) {
        if (!err || !err.quiet) process.stderr.write(`${(err && err.stack) || String(err)}\n`);
        await endOutput(req.nonce);
        answer({
          id: req.id,
          error: (err && err.message) || String(err),
          exitCode: (err && err.exitCode) || 1,
        });
      }
    });
  });
  control().on('end', () => process.exit(0));
}

bridge()
  .then(() => {
    if (language === 'node') return runNode();
    if (language === 'bash') return runBash();
    if (language === 'python') return runPython();
    throw new Error(`unknown language ${language}`);
  })
  .then(() => {
    if (language !== 'python') answer({ ready: true });
  })
  .catch((err) => {
    process.stderr.write(`sandbox worker failed: ${(err && err.stack) || err}\n`);
    process.exit(70);
  });
