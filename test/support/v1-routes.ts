import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export interface RouteOperation {
  method: Lowercase<(typeof METHODS)[number]>;
  /** The OpenAPI path: `app/v1/threads/[threadId]/route.ts` → `/v1/threads/{threadId}`. */
  path: string;
  file: string;
}

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(full);
    return e.name === "route.ts" ? [full] : [];
  });
}

/**
 * The methods a route file answers: the keys of its `routes({ GET: …, POST: … })` call (the other
 * methods it exports are its 405s), else its own `export const GET` / `export function GET`.
 */
function handledMethods(source: ts.SourceFile): string[] {
  const found = new Set<string>();
  let viaRoutes = false;
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "routes") {
      viaRoutes = true;
      const arg = node.arguments[0];
      if (arg && ts.isObjectLiteralExpression(arg))
        for (const p of arg.properties) if (p.name && ts.isIdentifier(p.name)) found.add(p.name.text);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (viaRoutes) return [...found];
  for (const stmt of source.statements) {
    const exported = ts.getModifiers(stmt as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isFunctionDeclaration(stmt) && stmt.name) found.add(stmt.name.text);
    if (ts.isVariableStatement(stmt))
      for (const d of stmt.declarationList.declarations) if (ts.isIdentifier(d.name)) found.add(d.name.text);
  }
  return [...found];
}

/**
 * Every (method, path) the /v1 route files answer, read from their source: the catch-all
 * `[...path]` (unknown URLs) and OPTIONS (preflight) are not operations.
 */
export function listRouteOperations(appDir: string): RouteOperation[] {
  const v1 = path.join(appDir, "v1");
  return routeFiles(v1).flatMap((file) => {
    const rel = path.relative(appDir, path.dirname(file)).split(path.sep);
    if (rel.some((segment) => segment.startsWith("[..."))) return [];
    const apiPath = "/" + rel.map((s) => s.replace(/^\[(.+)\]$/, "{$1}")).join("/");
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    return handledMethods(source)
      .filter((m): m is (typeof METHODS)[number] => (METHODS as readonly string[]).includes(m))
      .map((m) => ({ method: m.toLowerCase() as RouteOperation["method"], path: apiPath, file }));
  });
}
