import { describe, expect, it } from "vitest";
import type { Mode, Row, TargetId, Ttfb } from "./completions-shapes";
import { matrixVerdicts } from "./completions-verdicts";

function row(target: TargetId, mode: Mode, connections: number, repetition: number, over: Partial<Row> = {}): Row {
  return {
    target,
    mode,
    connections,
    repetition,
    rps: 1000,
    p50: 1,
    gatewayCpuMsPerReq: target === "direct" ? null : 0.5,
    gatewayWritesPerReq: target === "direct" ? null : 3,
    peakRssMb: target === "direct" ? null : 200,
    otherCores: 0,
    ...over,
  } as Row;
}

const ttfb = (target: TargetId, repetition: number, p50: number) => ({ target, repetition, p50 }) as Ttfb;
const byName = (vs: ReturnType<typeof matrixVerdicts>, start: string) => vs.find((v) => v.name.startsWith(start))!;

describe("matrixVerdicts", () => {
  it("pairs ours with the peer within each repetition and judges the median", () => {
    const rows: Row[] = [];
    const oursRps = [1300, 900, 1250];
    for (let rep = 1; rep <= 3; rep++)
      for (const mode of ["json", "stream"] as Mode[]) {
        rows.push(row("direct", mode, 1, rep, { p50: 0.1 }), row("direct", mode, 32, rep));
        // A slow second repetition slows both sides: its ratio is still 120 %.
        rows.push(row("peer", mode, 32, rep, { rps: rep === 2 ? 750 : 1000, gatewayWritesPerReq: 3 }));
        rows.push(row("peer", mode, 1, rep, { p50: 1.6 }));
        rows.push(row("ours", mode, 32, rep, { rps: oursRps[rep - 1], gatewayWritesPerReq: 2.5 + rep / 10 }));
        rows.push(row("ours", mode, 1, rep, { p50: 2.5 + rep / 10, peakRssMb: 260 }));
      }
    const vs = matrixVerdicts({ rows, ttfbs: [], lowC: 1, highC: 32, noisy: () => false });
    const json = byName(vs, "json: ours req/s vs peer");
    expect(json.value).toBe(125);
    expect(json.name).toContain("(120.0–130.0 over 3 repetitions)");
    expect(json.result).toBe("PASS");
    const p50 = byName(vs, "json: added p50");
    expect(p50.value).toBeCloseTo(2.6);
    expect(p50.peer).toBeCloseTo(1.5);
    expect(p50.target).toBe("<= peer + 1 ms");
    expect(p50.result).toBe("MISS");
    expect(byName(vs, "stream: gateway write").result).toBe("PASS");
    expect(byName(vs, "peak RSS").value).toBe(200);
  });

  it("judges what it can without a peer and leaves the peer's goals n/a", () => {
    const rows = [row("direct", "json", 1, 1, { p50: 0.1 }), row("ours", "json", 1, 1, { p50: 1.5 })];
    rows.push(row("ours", "json", 32, 1), row("ours", "stream", 32, 1, { peakRssMb: 251 }));
    const ttfbs = [ttfb("direct", 1, 0.1), ttfb("ours", 1, 1.2)];
    const vs = matrixVerdicts({ rows, ttfbs, lowC: 1, highC: 32, noisy: () => false });
    expect(byName(vs, "json: ours req/s vs peer").result).toBe("n/a");
    expect(byName(vs, "json: added p50").result).toBe("PASS");
    expect(byName(vs, "stream: added time to first byte").value).toBeCloseTo(1.1);
    expect(byName(vs, "json: gateway CPU").result).toBe("PASS");
    expect(byName(vs, "stream: gateway write").result).toBe("n/a");
    expect(byName(vs, "peak RSS").result).toBe("MISS");
  });
});
