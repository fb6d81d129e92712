// The JS linter of `make lint`: correctness only (undefined names, unused bindings, loose
// equality, unreachable code, ...). Layout is left to the authors: no formatting rules.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", ".venv/", "var/", "build/", "tests/artifacts/"] },
  js.configs.recommended,
  {
    files: ["api/web/static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: globals.browser,
    },
  },
  {
    files: ["eslint.config.js", "bench/**/*.mjs"],
    languageOptions: { globals: globals.node },
  },
  {
    rules: {
      // `x == null` (null or undefined) is the one loose comparison worth keeping.
      eqeqeq: ["error", "smart"],
      "array-callback-return": "error",
      "no-self-compare": "error",
      "no-template-curly-in-string": "error",
      "no-unmodified-loop-condition": "error",
      "no-unreachable-loop": "error",
      "no-useless-assignment": "error",
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "all" }],
    },
  },
];
