module.exports = {
  preset: '../../jest.preset.js',
  displayName: 'service-kit',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
