module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'local-infra',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
