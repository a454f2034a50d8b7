module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'browser-pool',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
