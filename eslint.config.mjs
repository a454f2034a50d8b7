import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.js', '**/*.mjs', '**/*.cjs', '.data/**', 'charts/**'] },
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
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:util', 'type:test'] },
            { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:test', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:gateway'] },
            { sourceTag: 'scope:scraper', onlyDependOnLibsWithTags: ['scope:shared', 'scope:scraper'] },
            { sourceTag: 'scope:crawler', onlyDependOnLibsWithTags: ['scope:shared', 'scope:crawler'] },
            { sourceTag: 'scope:batch', onlyDependOnLibsWithTags: ['scope:shared', 'scope:batch'] },
            { sourceTag: 'scope:browser-pool', onlyDependOnLibsWithTags: ['scope:shared', 'scope:browser-pool'] },
            { sourceTag: 'scope:billing', onlyDependOnLibsWithTags: ['scope:shared', 'scope:billing'] },
            { sourceTag: 'scope:docs-search', onlyDependOnLibsWithTags: ['scope:shared', 'scope:docs-search'] },
            { sourceTag: 'scope:webhooks', onlyDependOnLibsWithTags: ['scope:shared', 'scope:webhooks'] },
            { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
