import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { alive, stillAliveAfter } from '../test/pids';
import { freePort, listensOn } from './processes';

describe('listensOn', () => {
  it("tells whose socket listens on a port: this process's, a child's, nobody's", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const childPort = await freePort();
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${childPort}, '127.0.0.1', () => console.log('up'))`,
    ]);
    try {
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      expect(listensOn(process.pid, port)).toBe(true);
      expect(listensOn(child.pid!, childPort)).toBe(true);
      // Another process holds that port: connecting to it would not prove the child is the server.
      expect(listensOn(child.pid!, port)).toBe(false);
      expect(listensOn(process.pid, childPort)).toBe(false);
    } finally {
      child.kill();
      server.close();
    }
  });
});

describe('withParentDeathSignal', () => {
  it('ends NATS and PostgreSQL when the process that started them is killed without stopping them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-pdeath-'));
    const dist = path.join(__dirname, '..', 'dist', 'index.js');
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const li = require(${JSON.stringify(dist)});` +
          `Promise.all([li.startNats({ dataDir: ${JSON.stringify(path.join(dir, 'nats'))} }),` +
          ` li.startPostgres({ dataDir: ${JSON.stringify(path.join(dir, 'pg'))} })])` +
          `.then(([n, p]) => { console.log('PIDS ' + n.pid + ' ' + p.pid); setInterval(() => {}, 1000); },` +
          ` (e) => { console.error(e); process.exit(1); })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let pids: number[] = [];
    try {
      pids = await new Promise<number[]>((resolve, reject) => {
        let out = '';
        parent.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /PIDS (\d+) (\d+)/.exec(out);
          if (m) resolve([Number(m[1]), Number(m[2])]);
        });
        parent.once('exit', (code) => reject(new Error(`parent exited with ${code} before both were up`)));
      });
      expect(pids.every(alive)).toBe(true);
      parent.kill('SIGKILL');
      expect(await stillAliveAfter(pids, 20_000)).toEqual([]);
    } finally {
      parent.kill('SIGKILL');
      for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
