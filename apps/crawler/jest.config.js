module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'crawler',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
