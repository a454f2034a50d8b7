module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'credits',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
