import { describe, expect, it } from "vitest";
import { LineSplitter } from "./protocol";

function split(maxLine: number, chunks: string[]) {
  const lines: string[] = [];
  let overflows = 0;
  const splitter = new LineSplitter(
    maxLine,
    (l) => lines.push(l),
    () => overflows++,
  );
  for (const c of chunks) splitter.push(c);
  return { lines, overflows };
}

describe("LineSplitter", () => {
  it("joins lines across chunks and splits several lines in one chunk", () => {
    expect(split(100, ["ab", "c\nde", "f\n\ng\nh", "i\n"])).toEqual({
      lines: ["abc", "def", "", "g", "hi"],
      overflows: 0,
    });
  });

  it("refuses a line over the limit, ended or not, and goes on after it", () => {
    expect(split(5, ["123", "456\nok\n"])).toEqual({ lines: [], overflows: 1 });
    expect(split(5, ["123", "456"])).toEqual({ lines: [], overflows: 1 });
    expect(split(5, ["12345\n", "x\n"])).toEqual({ lines: ["12345", "x"], overflows: 0 });
  });

  it("reassembles a megabyte line sent in 64 KiB chunks", () => {
    const line = "a".repeat(1_000_000);
    const chunks: string[] = [];
    for (let i = 0; i < line.length; i += 65_536) chunks.push(line.slice(i, i + 65_536));
    chunks.push("\n");
    const { lines } = split(2_000_000, chunks);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBe(1_000_000);
  });
});
