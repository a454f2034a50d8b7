module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'observability',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
