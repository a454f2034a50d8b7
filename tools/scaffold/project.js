#!/usr/bin/env node
// Creates the boilerplate of a workspace project (lib or app) so every project has the same
// shape: package.json, project.json (Nx targets + tags), tsconfig.json (type-check incl. tests),
// tsconfig.build.json (composite build), jest.config.js and a README stub.
// Usage: node tools/scaffold/project.js <libs|apps> <name> <type-tag> <scope-tag> [dep,dep]
const fs = require('node:fs');
const path = require('node:path');

const [kind, name, typeTag, scopeTag, depsArg = ''] = process.argv.slice(2);
if (!kind || !name || !typeTag || !scopeTag) {
  process.stderr.write('usage: project.js <libs|apps> <name> <type> <scope> [deps]\n');
  process.exit(2);
}
const deps = depsArg ? depsArg.split(',') : [];
const root = path.join(__dirname, '..', '..', kind, name);
fs.mkdirSync(path.join(root, 'src'), { recursive: true });
const write = (file, content) => {
  const p = path.join(root, file);
  if (!fs.existsSync(p)) fs.writeFileSync(p, content);
};
const isApp = kind === 'apps';
const pkgName = isApp ? `@wds/app-${name}` : `@wds/${name}`;
const entry = isApp ? 'main' : 'index';
write(
  'package.json',
  JSON.stringify(
    { name: pkgName, version: '0.0.0', private: true, main: `dist/${entry}.js`, types: `dist/${entry}.d.ts` },
    null,
    2,
  ) + '\n',
);
const targets = {
  build: { executor: 'nx:run-commands', options: { command: `tsc -b ${kind}/${name}/tsconfig.build.json` } },
  lint: { executor: 'nx:run-commands', options: { command: `eslint ${kind}/${name}` } },
  test: {
    executor: 'nx:run-commands',
    options: { command: `jest -c ${kind}/${name}/jest.config.js --passWithNoTests` },
  },
};
write(
  'project.json',
  JSON.stringify(
    {
      name,
      $schema: '../../node_modules/nx/schemas/project-schema.json',
      sourceRoot: `${kind}/${name}/src`,
      projectType: isApp ? 'application' : 'library',
      tags: [`type:${typeTag}`, `scope:${scopeTag}`],
      implicitDependencies: [],
      targets,
    },
    null,
    2,
  ) + '\n',
);
write(
  'tsconfig.build.json',
  JSON.stringify(
    {
      extends: '../../tsconfig.base.json',
      compilerOptions: { rootDir: 'src', outDir: 'dist', tsBuildInfoFile: 'dist/tsconfig.build.tsbuildinfo' },
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.spec.ts'],
      references: deps.map((d) => ({ path: `../../libs/${d}/tsconfig.build.json` })),
    },
    null,
    2,
  ) + '\n',
);
write(
  'tsconfig.json',
  JSON.stringify(
    {
      extends: '../../tsconfig.dev.json',
      include: ['src/**/*.ts', 'test/**/*.ts'],
    },
    null,
    2,
  ) + '\n',
);
write(
  'jest.config.js',
  `module.exports = {\n  preset: '../../jest.preset.js',\n  displayName: '${name}',\n  rootDir: __dirname,\n  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],\n};\n`,
);
write('README.md', `# ${pkgName}\n\nTODO: purpose, subjects, env, how to run and test.\n`);
write(`src/${entry}.ts`, `export {};\n`);
