module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'agent',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
