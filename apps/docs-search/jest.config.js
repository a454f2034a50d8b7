module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'docs-search',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  testEnvironment: '<rootDir>/test/host-typed-arrays.environment.js',
};
