import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      ".widget/**",
      ".jobs-thread/**",
      "node_modules/**",
      ".data/**",
      "bench/results/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Test helpers parse arbitrary JSON responses.
    files: ["test/**", "e2e/**", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // STYLE: lib/env.ts (and db/env.ts for the database's variables) read process.env in application code.
    files: ["app/**", "lib/**", "components/**", "db/**"],
    ignores: ["lib/env.ts", "db/env.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through lib/env.ts" },
      ],
    },
  },
  {
    // Statements built per call take db/sql.ts's tag, which makes a template's text chunks once.
    files: ["app/**", "lib/**"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "drizzle-orm", importNames: ["sql"], message: "Import sql from @/db/sql" }] },
      ],
    },
  },
);
