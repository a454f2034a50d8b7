#!/usr/bin/env node
'use strict';
// Applies one app's schema migrations and exits; the Helm pre-install/pre-upgrade Job runs
// `node deploy/migrate.js <app>`. Same code path as WDS_MIGRATE_ON_START (@wds/database's
// runMigrations: advisory lock, one transaction), without starting the service. Each app keeps
// its SQL in apps/<app>/migrations and owns the schema named after it (`-` becomes `_`).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

function logLine(level, msg, extra) {
  const levels = { info: 30, error: 50 };
  const line = { level: levels[level], time: Date.now(), service: 'migrate', msg, ...extra };
  (level === 'error' ? process.stderr : process.stdout).write(`${JSON.stringify(line)}\n`);
}

async function main() {
  const app = process.argv[2] || process.env.APP;
  if (!app || !/^[a-z][a-z0-9-]*$/.test(app)) throw new Error('usage: node deploy/migrate.js <app>');
  const dir = path.join(ROOT, 'apps', app, 'migrations');
  if (!fs.existsSync(dir)) throw new Error(`${app} has no migrations directory (${dir})`);
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set');
  const schema = app.replace(/-/g, '_');
  const { Database, runMigrations } = require(path.join(ROOT, 'libs', 'database', 'dist'));
  const db = new Database({ url: process.env.DATABASE_URL, applicationName: `wds-migrate-${app}`, max: 1 });
  try {
    const applied = await runMigrations(db, { schema, dir });
    logLine('info', 'migrations up to date', { app, schema, applied });
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  logLine('error', 'migrations failed', { err: err.message });
  process.exit(1);
});
