// ESLint for the pages' JavaScript (assets/web/js), run from the
// repository's root (make jslint): the recommended rules,
// browser globals, ES modules as the pages load them (<script type="module">).
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    files: ['assets/web/js/**/*.js'],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
];
