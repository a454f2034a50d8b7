module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'batch',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
