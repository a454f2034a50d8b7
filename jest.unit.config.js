// `npm run test:unit`: the unit tests only — every project's `src/**/*.spec.ts`, next to the code —
// with no NATS, PostgreSQL, Chromium or model server (no global setup starts them). Integration
// tests live in each project's `test/` and run with `npm test` (jest.config.js), which runs these too.
const fs = require('node:fs');
const path = require('node:path');

/** Unit-placed specs that drive a real process (Chromium): they run with the integration suite only. */
const NEEDS_INFRASTRUCTURE = ['apps/browser-pool/src/pool/browser-launcher.spec.ts'];

const projects = [];
for (const kind of ['libs', 'apps']) {
  for (const name of fs.readdirSync(path.join(__dirname, kind))) {
    const file = path.join(__dirname, kind, name, 'jest.config.js');
    if (!fs.existsSync(file)) continue;
    const { globalSetup: _setup, globalTeardown: _teardown, ...config } = require(file);
    projects.push({
      ...config,
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        '/dist/',
        ...NEEDS_INFRASTRUCTURE.map((p) => path.join(__dirname, p).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      ],
      // The preset's global setup starts NATS and PostgreSQL: none here.
      globalSetup: undefined,
      globalTeardown: undefined,
    });
  }
}

module.exports = { projects };
