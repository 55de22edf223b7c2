import http from "node:http";
import type { AddressInfo } from "node:net";

/** A span as the receiver decoded it, from either OTLP/HTTP encoding. */
export interface ReceivedSpan {
  service: string;
  /** The exporting process's `process.pid` resource attribute. */
  pid: number;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** The collector's base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests received. */
  contentTypes: string[];
  /** Resolves once `pick` finds what it wants in the spans received (polls), else fails after `ms`. */
  waitFor<T>(pick: (spans: ReceivedSpan[]) => T | undefined, ms?: number): Promise<T>;
  close(): Promise<void>;
}

/** An OTLP/HTTP trace receiver on loopback: POST /v1/traces in http/json or http/protobuf. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      const type = req.headers["content-type"] ?? "";
      contentTypes.push(type);
      const body = Buffer.concat(chunks);
      spans.push(...(type.includes("json") ? fromJson(JSON.parse(body.toString("utf8"))) : fromProtobuf(body)));
      res.writeHead(200, { "content-type": type.includes("json") ? "application/json" : "application/x-protobuf" });
      res.end(type.includes("json") ? "{}" : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    async waitFor(pick, ms = 15_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = pick(spans);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`spans not received in ${ms} ms (${spans.length} received)`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---- http/json (the JS exporter writes ids as hex) ----

interface JsonValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonValue[] };
}
type JsonKv = { key: string; value: JsonValue };

const jsonValue = (v: JsonValue): unknown =>
  v.stringValue ??
  v.boolValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  (v.arrayValue ? (v.arrayValue.values ?? []).map(jsonValue) : undefined);

const jsonAttrs = (kvs: JsonKv[] | undefined) =>
  Object.fromEntries((kvs ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));

function fromJson(body: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttrs(rs.resource?.attributes);
    const service = String(resource["service.name"] ?? "");
    const pid = Number(resource["process.pid"]);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          service,
          pid,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attributes: jsonAttrs(s.attributes),
          statusCode: s.status?.code ?? 0,
        });
  }
  return out;
}

// ---- http/protobuf: a small reader of the protobuf wire format for the OTLP trace messages ----

type Field = { no: number; varint?: bigint; bytes?: Buffer; fixed64?: Buffer };

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = () => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, varint: varint() });
    else if (wire === 1) out.push({ no, fixed64: buf.subarray(i, (i += 8)) });
    else if (wire === 2) {
      const len = Number(varint());
      out.push({ no, bytes: buf.subarray(i, (i += len)) });
    } else if (wire === 5) i += 4;
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

const all = (fs: Field[], no: number) => fs.filter((f) => f.no === no);
const one = (fs: Field[], no: number) => fs.find((f) => f.no === no);

/** AnyValue: 1 string, 2 bool, 3 int, 4 double, 5 array. */
function anyValue(buf: Buffer): unknown {
  const f = fields(buf)[0];
  if (!f) return undefined;
  if (f.no === 1) return f.bytes!.toString("utf8");
  if (f.no === 2) return f.varint === 1n;
  if (f.no === 3) return Number(BigInt.asIntN(64, f.varint!));
  if (f.no === 4) return f.fixed64!.readDoubleLE(0);
  if (f.no === 5) return all(fields(f.bytes!), 1).map((v) => anyValue(v.bytes!));
  return undefined;
}

/** KeyValue: 1 key, 2 value. */
const protoAttrs = (kvs: Field[]) =>
  Object.fromEntries(
    kvs.map((kv) => {
      const f = fields(kv.bytes!);
      return [one(f, 1)!.bytes!.toString("utf8"), anyValue(one(f, 2)?.bytes ?? Buffer.alloc(0))];
    }),
  );

/** ExportTraceServiceRequest → ResourceSpans (1 resource, 2 scope_spans) → ScopeSpans (2 spans) → Span. */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of all(fields(body), 1)) {
    const rsf = fields(rs.bytes!);
    const resource = one(rsf, 1);
    const attrs = protoAttrs(resource ? all(fields(resource.bytes!), 1) : []);
    const service = String(attrs["service.name"] ?? "");
    const pid = Number(attrs["process.pid"]);
    for (const ss of all(rsf, 2))
      for (const sp of all(fields(ss.bytes!), 2)) {
        const f = fields(sp.bytes!);
        const status = one(f, 15);
        out.push({
          service,
          pid,
          traceId: one(f, 1)!.bytes!.toString("hex"),
          spanId: one(f, 2)!.bytes!.toString("hex"),
          parentSpanId: one(f, 4)?.bytes?.toString("hex") ?? "",
          name: one(f, 5)!.bytes!.toString("utf8"),
          kind: Number(one(f, 6)?.varint ?? 0n),
          startNs: one(f, 7)!.fixed64!.readBigUInt64LE(0),
          endNs: one(f, 8)!.fixed64!.readBigUInt64LE(0),
          attributes: protoAttrs(all(f, 9)),
          statusCode: status ? Number(one(fields(status.bytes!), 3)?.varint ?? 0n) : 0,
        });
      }
  }
  return out;
}
