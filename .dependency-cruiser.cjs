// The module map as rules: `npm run lint` fails on an import that relayer/module-map.json does
// not allow, on an import circle anywhere in relayer/src (type-only imports included), and on a
// value import in context.ts. docs/architecture.md shows the same map (`npm run docs:architecture`).
const map = require("./relayer/module-map.json");

const SRC = "^relayer/src/";
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const byName = new Map(map.modules.map((module) => [module.name, module]));
const target = (module) =>
  `${SRC}${escapeRegExp(module.path)}${module.path.endsWith("/") ? "" : "$"}`;
/** A module's own files: its path, less the modules nested inside it (chain/ less chain/rpc/). */
const own = (module) => {
  const nested = map.modules.filter(
    (other) => other !== module && other.path.startsWith(module.path),
  );
  return nested.length === 0
    ? { path: target(module) }
    : { path: target(module), pathNot: nested.map(target) };
};
const isBase = (module) => map.base.includes(module.name);

const allowed = [
  {
    comment: "packages and Node's own modules",
    from: {},
    to: {
      dependencyTypes: [
        "core",
        "npm",
        "npm-dev",
        "npm-optional",
        "npm-peer",
        "npm-no-pkg",
        "npm-unknown",
      ],
    },
  },
  // Subpath exports dependency-cruiser cannot resolve (multiformats/cid); tsc resolves them.
  { comment: "package subpaths", from: {}, to: { couldNotResolve: true, pathNot: "^\\." } },
  {
    comment: "contract bindings generated from the compiled artifacts",
    from: { path: SRC },
    to: { path: "^typechain-types/" },
  },
  {
    comment:
      "the deploy code and the local chain's constants: the composition root, config, infra and recovery use them",
    from: {
      path: [SRC + "start-relayer\\.ts$", SRC + "config\\.ts$", SRC + "infra/", SRC + "recovery/"],
    },
    to: { path: "^deploy/" },
  },
];
for (const module of map.modules) {
  const names = module.may.includes("*")
    ? map.modules.map((other) => other.name)
    : [module.name, ...module.may, ...(isBase(module) ? [] : map.base)];
  const unknown = names.filter((name) => !byName.has(name));
  if (unknown.length > 0)
    throw new Error(
      `relayer/module-map.json: ${module.name} names unknown modules ${unknown.join(", ")}`,
    );
  for (const name of new Set(names)) {
    allowed.push({
      comment: `${module.name} may import ${name}`,
      from: own(module),
      to: name === module.name ? own(module) : { path: target(byName.get(name)) },
    });
  }
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import circle, type-only imports included (docs/architecture.md).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "context-types-only",
      comment: "context.ts declares the AppContext type; it imports types only.",
      severity: "error",
      from: { path: SRC + "context\\.ts$" },
      to: { path: SRC, dependencyTypesNot: ["type-only"] },
    },
  ],
  allowed,
  allowedSeverity: "error",
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules|^typechain-types/|^deploy/" },
    exclude: { path: "^relayer/sdk/" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js", ".json"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
