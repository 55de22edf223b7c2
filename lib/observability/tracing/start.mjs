// @ts-check
/**
 * Starts OpenTelemetry tracing in a process that serves requests or runs jobs, when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (lib/env.ts validates the variables for the app). Unset, no
 * SDK module is loaded, no context manager is registered and nothing is traced. Imported by the
 * server script (outside the Next.js bundle) and the worker; the app's spans reach the same
 * provider through @opentelemetry/api's process-wide registration.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { shutdownHooks } from "../../process-channels.mjs";

// Read before the app and lib/env.ts load (the server script runs outside the bundle).
// eslint-disable-next-line no-restricted-properties
const env = process.env;

/** Whether traces are exported; the same test as lib/observability/tracing/tracer.ts's `TRACING`. */
const tracingConfigured = () => Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT);

/**
 * Registers the tracer provider (W3C trace context, AsyncLocalStorage context), exporting in
 * batches over OTLP/HTTP in OTEL_EXPORTER_OTLP_PROTOCOL (`http/protobuf`, default, or `http/json`),
 * and a shutdown hook (lib/shutdown.ts's registry) that flushes what is pending. Returns the server
 * span wrapper, or null, having loaded nothing, when tracing is off.
 * @returns {Promise<{ traceRequests: typeof import("./server-span.mjs").traceRequests } | null>}
 */
export async function startTracing() {
  if (!tracingConfigured()) return null;
  const json = env.OTEL_EXPORTER_OTLP_PROTOCOL === "http/json";
  const [
    { NodeSDK },
    { W3CTraceContextPropagator },
    { ProxyTracerProvider, trace },
    { defaultResource, resourceFromAttributes },
    { OTLPTraceExporter },
  ] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/core"),
    import("@opentelemetry/api"),
    import("@opentelemetry/resources"),
    json ? import("@opentelemetry/exporter-trace-otlp-http") : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  const version = serviceVersion();
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || "cockpit-gateway",
    resource: defaultResource().merge(resourceFromAttributes(version ? { "service.version": version } : {})),
    // The exporter reads the endpoint (appending /v1/traces), OTEL_EXPORTER_OTLP_HEADERS and the timeout.
    traceExporter: new OTLPTraceExporter(),
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  // Next.js traces its own request handling under the active span once a provider is registered:
  // a second server span and framework internals under ours. Its tracer gets no-op spans, which
  // keep the active span's context, so the app's spans stay children of the request's.
  const provider = trace.getTracerProvider();
  const silent = new ProxyTracerProvider();
  trace.disable();
  trace.setGlobalTracerProvider({
    getTracer: (name, version, options) =>
      name === "next.js" ? silent.getTracer(name, version, options) : provider.getTracer(name, version, options),
  });
  shutdownHooks.getOrInit(() => []).push(() => sdk.shutdown());
  const { traceRequests } = await import("./server-span.mjs");
  return { traceRequests };
}

/** The gateway's version (package.json in the directory it runs from), for `service.version`. */
function serviceVersion() {
  try {
    return String(JSON.parse(readFileSync(path.join(process.cwd(), "package.json"), "utf8")).version ?? "");
  } catch {
    return "";
  }
}
