import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const scopes = ['gateway', 'scraper', 'crawler', 'batch', 'browser-pool', 'billing', 'docs-search', 'webhooks'];

/** @param {boolean} forTests test files may also use the test-infrastructure lib (type:test). */
function depConstraints(forTests) {
  const extra = forTests ? ['type:test'] : [];
  return [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:util', ...extra] },
    { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:util', 'type:test'] },
    { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:util', ...extra] },
    { sourceTag: 'type:test', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:util', 'type:test'] },
    { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:util', ...extra] },
    { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', ...extra] },
    { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
    ...scopes.map((s) => ({ sourceTag: `scope:${s}`, onlyDependOnLibsWithTags: ['scope:shared', `scope:${s}`] })),
    { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared'] },
  ];
}

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.js', '**/*.mjs', '**/*.cjs', '.data/**', 'charts/**', '**/.sandbox-python/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
      'no-console': 'error',
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: depConstraints(false),
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], depConstraints: depConstraints(true) },
      ],
    },
  },
];
