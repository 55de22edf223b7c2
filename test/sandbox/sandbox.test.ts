import { afterAll, describe, expect, it } from "vitest";
import { checkToolCode, runTool } from "@/lib/sandbox";
import { testPool } from "./pool";

const pool = testPool({ size: 3, prewarm: 1 });
afterAll(() => pool.close());

const run = (companyId: string, name: string, code: string, args: Record<string, unknown> = {}, timeoutMs?: number) =>
  runTool({ companyId, name, code, args, timeoutMs }, pool);

describe("the Python sandbox runs tools (CONTRACT 6)", () => {
  it("calls the function with keyword arguments and returns its value", async () => {
    const exec = await run("co_a", "add", "def add(a, b):\n    return a + b\n", { a: 2, b: 40 });
    expect(exec).toMatchObject({ ok: true, result: 42, stdout: "" });
    expect(exec.cpuMs).toBeGreaterThanOrEqual(0);
    expect(exec.wallMs).toBeGreaterThan(0);
  });

  it("returns JSON values of any shape and only the standard library", async () => {
    const code =
      "import json, math, re, datetime\ndef f(x):\n    return {'list': [1, 2.5, None, True], 'sqrt': math.sqrt(x), 'm': re.match('a+', 'aaa').group(0)}\n";
    const exec = await run("co_a", "f", code, { x: 16 });
    expect(exec).toMatchObject({ ok: true, result: { list: [1, 2.5, null, true], sqrt: 4, m: "aaa" } });
    const numpy = await run("co_a", "f", "def f():\n    import numpy\n    return 1\n");
    expect(numpy).toMatchObject({ ok: false, error: expect.stringContaining("ModuleNotFoundError") });
  });

  it("captures print output", async () => {
    const exec = await run(
      "co_a",
      "hello",
      "def hello(name):\n    print('hello', name)\n    print('second line')\n    return None\n",
      { name: "Ada" },
    );
    expect(exec).toMatchObject({ ok: true, result: null, stdout: "hello Ada\nsecond line\n" });
  });

  it("caps print output", async () => {
    const capped = testPool({ size: 1, stdoutMax: 100 });
    try {
      const exec = await runTool(
        { companyId: "co_a", name: "f", code: "def f():\n    print('x' * 10000)\n    return 1\n", args: {} },
        capped,
      );
      expect(exec.ok).toBe(true);
      expect(exec.stdout).toBe(`${"x".repeat(100)}\n[output truncated]`);
    } finally {
      await capped.close();
    }
  });

  it("turns an exception into ok:false with its message and keeps the output", async () => {
    const exec = await run("co_a", "boom", "def boom():\n    print('before')\n    raise ValueError('no good')\n");
    expect(exec).toMatchObject({ ok: false, error: "ValueError: no good", stdout: "before\n" });
  });

  it("refuses a return value that is not JSON serialisable", async () => {
    const exec = await run("co_a", "f", "def f():\n    return {1, 2, 3}\n");
    expect(exec.ok).toBe(false);
    if (!exec.ok) expect(exec.error).toMatch(/not JSON serialisable.*set/);
    const nan = await run("co_a", "f", "def f():\n    return float('nan')\n");
    expect(nan).toMatchObject({ ok: false, error: expect.stringContaining("not JSON serialisable") });
  });

  it("reports wrong arguments and a missing function as ok:false", async () => {
    expect(await run("co_a", "add", "def add(a, b):\n    return a + b\n", { a: 1, c: 2 })).toMatchObject({
      ok: false,
      error: expect.stringContaining("TypeError"),
    });
    expect(await run("co_a", "add", "def other():\n    return 1\n")).toMatchObject({
      ok: false,
      error: expect.stringContaining("does not define a function named 'add'"),
    });
  });

  it("kills an infinite loop at the timeout, and the next call works", async () => {
    const exec = await run("co_loop", "spin", "def spin():\n    while True:\n        pass\n", {}, 1500);
    expect(exec).toMatchObject({ ok: false, error: "The tool timed out after 1500 ms" });
    expect(exec.wallMs).toBeGreaterThanOrEqual(1490);
    expect(exec.cpuMs).toBeGreaterThan(0);
    expect(await run("co_loop", "add", "def add(a, b):\n    return a + b\n", { a: 1, b: 2 })).toMatchObject({
      ok: true,
      result: 3,
    });
  });

  it("turns a 3 GB allocation into MemoryError without growing the server", async () => {
    await run("co_mem", "add", "def add(a, b):\n    return a + b\n", { a: 1, b: 2 });
    const before = process.memoryUsage().rss;
    const exec = await run(
      "co_mem",
      "hog",
      "def hog():\n    chunks = [bytearray(100 * 1024 * 1024) for _ in range(30)]\n    return len(chunks)\n",
    );
    const after = process.memoryUsage().rss;
    expect(exec).toMatchObject({ ok: false, error: expect.stringContaining("MemoryError") });
    expect(after - before).toBeLessThan(50 * 1024 * 1024);
    // The process that grew to the cap is recycled (RSS over the limit); the company goes on.
    expect(await run("co_mem", "add", "def add(a, b):\n    return a + b\n", { a: 2, b: 2 })).toMatchObject({
      ok: true,
      result: 4,
    });
  });

  it("fails a call with a clear error when the pool stays busy past the queue wait", async () => {
    const small = testPool({ size: 1, queueTimeoutMs: 300 });
    try {
      const slow = runTool(
        {
          companyId: "co_a",
          name: "spin",
          code: "def spin():\n    while True:\n        pass\n",
          args: {},
          timeoutMs: 2000,
        },
        small,
      );
      const queued = await runTool({ companyId: "co_b", name: "f", code: "def f():\n    return 1\n", args: {} }, small);
      expect(queued).toMatchObject({ ok: false, error: expect.stringContaining("busy") });
      expect(await slow).toMatchObject({ ok: false });
    } finally {
      await small.close();
    }
  });

  it("ends a call on abort", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const exec = await runTool(
      {
        companyId: "co_loop",
        name: "spin",
        code: "def spin():\n    while True:\n        pass\n",
        args: {},
        signal: ac.signal,
      },
      pool,
    );
    expect(exec).toMatchObject({ ok: false, error: "The tool call was cancelled" });
  });
});

describe("checkToolCode", () => {
  it("accepts code that defines the function", async () => {
    expect(
      await checkToolCode(
        { companyId: "co_a", name: "add", code: "import math\n\ndef add(a, b):\n    return a + b\n" },
        pool,
      ),
    ).toEqual({ ok: true });
  });

  it("names a syntax error", async () => {
    const res = await checkToolCode(
      { companyId: "co_a", name: "add", code: "def add(a, b:\n    return a + b\n" },
      pool,
    );
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error).toMatch(/does not parse.*line 1/);
  });

  it("names a missing function, including one that is only nested or a variable", async () => {
    for (const code of [
      "def other():\n    return 1\n",
      "def outer():\n    def add():\n        pass\n",
      "add = lambda a, b: a + b\n",
    ]) {
      expect(await checkToolCode({ companyId: "co_a", name: "add", code }, pool)).toEqual({
        ok: false,
        error: "python_code does not define a top-level function named 'add'",
      });
    }
  });

  it("does not run the module's top-level code", async () => {
    const code = "while True:\n    pass\n\ndef add(a, b):\n    return a + b\n";
    expect(await checkToolCode({ companyId: "co_a", name: "add", code }, pool)).toEqual({ ok: true });
  });
});
