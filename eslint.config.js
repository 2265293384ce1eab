// ESLint flat config: TypeScript rules for the server, engine wrapper, scripts and dashboard.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['loadtest/*.k6.js', 'node_modules/', 'dist/', 'engine/target/', 'engine/build/', 'data/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        window: 'readonly',
        document: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Breach data is hostile text: nothing may render it as HTML.
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render data as text, never as HTML.' },
        { selector: "AssignmentExpression[left.property.name='innerHTML']", message: 'Render data as text, never as HTML.' },
      ],
    },
  },
  {
    // A server function does one use case; past 80 lines it does several (docs/architecture.md).
    files: ['server/src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
      // Work done every so often for the whole deployment is a periodic task (app.jobs.every: a
      // job scheduler, one run per period across instances), not a timer in every process.
      'no-restricted-globals': ['error', { name: 'setInterval', message: 'Periodic work is a task: app.jobs.every (infra/jobs.ts).' }],
    },
  },
  {
    // The two timers that watch their own process's state: the meter's counts in memory, the sockets it holds.
    files: ['server/src/search/search-meter.ts', 'server/src/realtime/realtime-routes.ts'],
    rules: { 'no-restricted-globals': 'off' },
  },
);
