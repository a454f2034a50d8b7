// Shared jest preset: TypeScript through SWC (with decorator metadata for NestJS), and
// workspace libraries mapped to their sources so tests need no prior build.
const path = require('node:path');

const libsDir = path.join(__dirname, 'libs');

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@wds/([a-z0-9-]+)$': `${libsDir}/$1/src/index.ts`,
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // NestJS 12 ships ESM only and jest on Node 20 cannot require() ESM, so SWC compiles it to CommonJS.
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/)'],
  globalSetup: `${libsDir}/testing/src/global-setup.ts`,
  globalTeardown: `${libsDir}/testing/src/global-teardown.ts`,
};
