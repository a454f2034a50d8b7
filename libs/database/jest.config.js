module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'database',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // NestJS 12 ships ESM only; jest on Node 20 cannot require() ESM, so SWC compiles it to CommonJS.
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/)'],
};
