// The whole suite: every project's unit and integration tests in one jest run, sharing one NATS
// and one PostgreSQL started by the global setup (or the servers named by TEST_NATS_URL /
// TEST_DATABASE_URL).
const fs = require('node:fs');
const path = require('node:path');

const projects = [];
for (const kind of ['libs', 'apps']) {
  for (const name of fs.readdirSync(path.join(__dirname, kind))) {
    const cfg = path.join(__dirname, kind, name, 'jest.config.js');
    if (fs.existsSync(cfg)) projects.push(`<rootDir>/${kind}/${name}`);
  }
}

module.exports = {
  projects,
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
};
