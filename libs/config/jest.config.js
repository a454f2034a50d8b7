module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'config',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
