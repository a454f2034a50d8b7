import { spawn } from 'node:child_process';
import net from 'node:net';
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
