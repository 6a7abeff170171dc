// ESLint for the front end (tests/test_js_lint.py runs it in the quick loop): the
// recommended rules, the browser's globals and htmx's; each file is a classic script
// (no modules: templates/base.html loads them with <script defer>, CSP allows no other).
const js = require("@eslint/js");
const globals = require("globals");

module.exports = [
  js.configs.recommended,
  {
    files: ["static/**/*.js", "tests/fourthgame/**/*.js"],
    ignores: ["static/vendor/**"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "script",
      globals: { ...globals.browser, htmx: "readonly" },
    },
    rules: {
      "no-undef": "error",
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
  },
  { ignores: ["static/vendor/**", "node_modules/**", ".venv/**", "tests/vendor/**"] },
];
