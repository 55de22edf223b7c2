import { describe, expect, it } from "vitest";
import { SseBody, type SseSink } from "./sse-writer";

const nextTurn = () => new Promise((r) => setImmediate(r));
const afterWindow = () => new Promise((r) => setTimeout(r, 5));
const text = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString("utf8") : undefined);

/** A sink recording each write as one string, and the end's bytes. */
function recorder() {
  const writes: string[] = [];
  const ends: (string | undefined)[] = [];
  const sink: SseSink = { write: (t) => void writes.push(t), end: (t) => void ends.push(t) };
  return { sink, writes, ends };
}

describe("SseBody", () => {
  it("writes what was queued before the sink came at once, then the frames of each window as one write", async () => {
    const body = new SseBody(() => {});
    body.send({ a: 1 });
    body.send("x", "ping");
    const { sink, writes, ends } = recorder();
    body.attach(sink);
    expect(writes).toEqual(['data: {"a":1}\n\nevent: ping\ndata: x\n\n']);
    body.send("b");
    await nextTurn();
    body.send("c");
    expect(writes).toHaveLength(1);
    await afterWindow();
    expect(writes[1]).toBe("data: b\n\ndata: c\n\n");
    body.end();
    expect(ends).toEqual([undefined]);
  });

  it("keeps what is sent after holdToEnd for the end, so an answer's last frames leave with its bill's", async () => {
    const body = new SseBody(() => {});
    const { sink, writes, ends } = recorder();
    body.attach(sink);
    body.send("first");
    await nextTurn(); // the first bytes wait for no window
    expect(writes).toEqual(["data: first\n\n"]);
    body.holdToEnd();
    body.send("finish");
    await nextTurn();
    expect(writes).toEqual(["data: first\n\n"]);
    body.send("[DONE]");
    body.end();
    body.end();
    expect(ends).toEqual(["data: finish\n\ndata: [DONE]\n\n"]);
  });

  it("still sends the first bytes at attach when the answer was held before the response existed", () => {
    const body = new SseBody(() => {});
    body.send("all");
    body.holdToEnd();
    const { sink, writes } = recorder();
    body.attach(sink);
    expect(writes).toEqual(["data: all\n\n"]);
  });

  it("as a web stream: the same bytes in order, and a cancelled stream tells the producer and takes no more", async () => {
    let cancelled = 0;
    const body = new SseBody(() => cancelled++);
    body.send("one");
    const reader = body.stream().getReader();
    body.send("two");
    await nextTurn();
    body.end();
    const got: string[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(text(r.value)!);
    expect(got.join("")).toBe("data: one\n\ndata: two\n\n");

    const left = new SseBody(() => cancelled++);
    const leftReader = left.stream().getReader();
    await leftReader.cancel();
    left.send("late");
    left.end();
    expect(cancelled).toBe(1);
  });
});
