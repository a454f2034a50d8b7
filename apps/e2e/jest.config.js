module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
};
