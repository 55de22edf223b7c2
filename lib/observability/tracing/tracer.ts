import { trace, type Tracer } from "@opentelemetry/api";
import { env } from "@/lib/env";

/**
 * Traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT set; the process started the SDK with
 * start.mjs). Off, every span helper is one branch on this constant and creates nothing.
 */
export const TRACING = env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;

/** Prompts and answers go into upstream spans only when asked for: they are the tenants' data. */
export const CAPTURE_CONTENT = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;

let tracer: Tracer | undefined;

/** The app's tracer, taken once the process's provider is registered. */
export const gatewayTracer = (): Tracer => (tracer ??= trace.getTracer("cockpit-gateway"));
