import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { jsonNestsDeeper, MAX_JSON_DEPTH, parseJsonObject, readJson } from "./read-json";

const Schema = z.object({ a: z.number() });

function streamed(chunks: string[], fail = false): Request {
  const enc = new TextEncoder();
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) return c.enqueue(enc.encode(chunks[i++]!));
      if (fail) return c.error(new Error("aborted"));
      c.close();
    },
  });
  return new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe("readJson", () => {
  it("parses a body that arrives in pieces", async () => {
    expect(await readJson(streamed(['{"a":', "1}"]), Schema)).toEqual({ a: 1 });
  });

  it("malformed JSON is a 400 invalid_json", async () => {
    const err = await refusal(readJson(streamed(["{a"]), Schema));
    expect([err.status, err.wireCode]).toEqual([400, "invalid_json"]);
  });

  it("a body over the cap is a 413, whether announced or only streamed", async () => {
    const announced = new Request("http://x/", {
      method: "POST",
      body: "x".repeat(10),
      headers: { "content-length": "10" },
    });
    expect((await refusal(readJson(announced, Schema, { limitBytes: 5 }))).status).toBe(413);
    expect((await refusal(readJson(streamed(["123", "456"]), Schema, { limitBytes: 5 }))).status).toBe(413);
  });

  it("a body cut off by the client is a 400 incomplete_body, not a server error", async () => {
    const err = await refusal(readJson(streamed(['{"a":'], true), Schema));
    expect([err.status, err.wireCode]).toEqual([400, "incomplete_body"]);
  });
});

describe("nesting depth", () => {
  const nested = (depth: number, open = "[", close = "]") =>
    `{"a":${open.repeat(depth - 1)}${close.repeat(depth - 1)}}`;

  it("counts arrays and objects, not brackets inside strings or after escaped quotes", () => {
    expect(jsonNestsDeeper(nested(3), 3)).toBe(false);
    expect(jsonNestsDeeper(nested(4), 3)).toBe(true);
    expect(jsonNestsDeeper(`{"a":{"b":{"c":1}}}`, 3)).toBe(false);
    expect(jsonNestsDeeper(`{"a":{"b":{"c":{}}}}`, 3)).toBe(true);
    expect(jsonNestsDeeper(`{"a":"[[[[{{{{","b":"\\"[[[["}`, 1)).toBe(false);
  });

  it("a body nested past the limit is a 400 json_too_deep before it is parsed; at the limit it parses", () => {
    expect(parseJsonObject(nested(MAX_JSON_DEPTH))).toHaveProperty("a");
    for (const text of [nested(MAX_JSON_DEPTH + 1), nested(10_000), nested(10_000, `{"x":`, "}")]) {
      let err: unknown;
      try {
        parseJsonObject(text);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: "invalid_request", wireCode: "json_too_deep" });
    }
  });
});
