import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      // Copies of dist/ kept for A/B benchmarks (bench/README.md).
      '.dist-*/**',
      'node_modules/**',
      '.data/**',
      'coverage/**',
      'bin/**',
      'clients/typescript/dist/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='Date'][property.name='now']",
          message: 'Use the injected Clock instead of Date.now().',
        },
      ],
    },
  },
  {
    // Plain CommonJS scripts: build, schema emitter, jest global setup.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The typed client's examples are Node ES modules, run as they are.
    files: ['clients/typescript/examples/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // The merchant dashboard runs in the browser (no injected Clock there).
    files: ['dashboard/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-syntax': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
