/**
 * Import boundaries (STYLE.md "Layout"), checked by `npm run lint:deps` over the production code
 * (tests, benches and e2e excluded: a test may reach across folders). .dependency-cruiser.all.mjs
 * checks every file, tests included, with the same rules except the folder cycles.
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Two modules that need each other: one of them holds what belongs to a third.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-circular-folders",
      severity: "error",
      comment: "Two folders that need each other: one of them holds what belongs to a third.",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "db-not-to-lib",
      severity: "error",
      comment: "db/ is the bottom layer: it imports nothing from lib/, app/ or components/.",
      from: { path: "^db/" },
      to: { path: "^(lib|app|components)/" },
    },
    {
      name: "lib-not-to-app",
      severity: "error",
      comment: "lib/ serves app/ and components/, never the other way round.",
      from: { path: "^lib/" },
      to: { path: "^(app|components)/" },
    },
    {
      name: "providers-not-to-db",
      severity: "error",
      comment: "Provider adapters are a pure transform plus one fetch: their callers read the database.",
      from: { path: "^lib/providers/" },
      to: { path: "^db/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.next|\\.widget|\\.jobs-thread|\\.data)/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
