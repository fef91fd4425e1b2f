// Lint rules: typescript-eslint's recommended set (no type information: fast on 2 cores), plus the
// house rules of STYLE.md that a linter can see. Import direction is checked by scripts/check-imports.mjs.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.bench/**', '.data/**', 'coverage/**', '**/__fixtures__/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Export a named list from index.ts, not export *.' },
      ],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // process.env is read only by composition roots (main.ts), the CLI and scripts.
    files: ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['apps/*/src/main.ts', 'apps/cli/src/**', '**/*.test.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration in main.ts and pass it in.' }],
    },
  },
);
