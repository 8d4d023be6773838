// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "artifacts/",
      "cache/",
      "typechain-types/",
      "coverage/",
      ".data/",
      ".test-data/",
      "test-artifacts/",
      "console/.next/",
      "console/out/",
      "relayer/sdk/dist/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["eslint.config.js"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      // Floating promises lose errors; `void promise` marks the deliberate ones.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["describe", "it", "test", "suite"] },
          ],
        },
      ],
    },
  },
  {
    // Plain JavaScript files (this config, scripts) are not type-checked.
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // mocha/chai assertions such as `expect(x).to.be.true` are expressions.
    files: ["test/contracts/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-expressions": "off" },
  },
);
