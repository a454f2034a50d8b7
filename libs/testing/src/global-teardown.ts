import fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const infra = globalThis.__wdsTestInfra;
  if (!infra) return;
  globalThis.__wdsTestInfra = undefined;
  await Promise.all(infra.servers.map((s) => s.stop()));
  fs.rmSync(infra.dir, { recursive: true, force: true });
}
