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
      // Generated from the OpenAPI document (relayer/src/http/openapi/console-api-types.ts).
      "console/app/lib/api-types.ts",
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
    // CommonJS configuration files (.dependency-cruiser.cjs) run under Node's require.
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", module: "writable" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // mocha/chai assertions such as `expect(x).to.be.true` are expressions.
    files: ["test/contracts/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-expressions": "off" },
  },
  {
    // Relayer and reliability tests assert on HTTP response bodies, which are untyped JSON
    // (`ApiResponse.body` is `any`): reading fields of them is the point of those tests. The
    // source under relayer/, deploy/, bench/ and console/ keeps every no-unsafe-* rule.
    files: ["test/relayer/**/*.ts", "test/reliability/**/*.ts", "test/support/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
);
