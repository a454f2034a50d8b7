import fs from 'node:fs';
import { ChromiumLauncher, chromiumEnv, defaultChromiumPath } from './browser-launcher';
import { LinuxProcessTable } from './process-memory';

describe('Chromium environment', () => {
  it('keeps locale, paths and fonts, and drops everything else', () => {
    const env = chromiumEnv({
      PATH: '/usr/bin',
      HOME: '/tmp',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      XDG_CACHE_HOME: '/tmp/.cache',
      DATABASE_URL: 'postgres://wds:secret@db/wds',
      WDS_ADMIN_TOKEN: 'admin-token',
      WDS_LLM_API_KEY: 'sk-x',
      NODE_OPTIONS: '--require x',
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/tmp',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      XDG_CACHE_HOME: '/tmp/.cache',
    });
  });

  it("a launched browser's processes do not see the service's secrets", async () => {
    const saved = { ...process.env };
    process.env.DATABASE_URL = 'postgres://wds:launcher-secret@db/wds';
    process.env.WDS_ADMIN_TOKEN = 'launcher-admin-token';
    const launcher = new ChromiumLauncher(
      defaultChromiumPath(),
      new LinuxProcessTable(),
      () => 'http://127.0.0.1:9',
    );
    const { browser, pid } = await launcher.launch();
    try {
      expect(pid).toBeDefined();
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(environ.some((e) => e.startsWith('PATH='))).toBe(true);
      expect(environ.join('\n')).not.toMatch(
        /launcher-secret|launcher-admin-token|DATABASE_URL|WDS_ADMIN_TOKEN/,
      );
    } finally {
      await browser.close();
      process.env = saved;
    }
  }, 60_000);
});
