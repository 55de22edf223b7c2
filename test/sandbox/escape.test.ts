import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTool, type ToolExecution } from "@/lib/sandbox";
import { sleep, testPool } from "./pool";

/**
 * Escape probes: each runs code that tries to leave the sandbox and must end in an error or a
 * harmless value, never the secret. Python can reach JavaScript (`import js`) on purpose: the
 * boundary is Deno's permissions and the outer layers.
 */
const SECRET = `probe-secret-${randomBytes(8).toString("hex")}`;
const SECRET_VAR = "SANDBOX_PROBE_SECRET";
const DATA_FILE = path.join(process.cwd(), ".data", `sandbox-probe-${randomBytes(4).toString("hex")}.txt`);
const WRITE_TARGET = path.join(os.tmpdir(), `sandbox-probe-write-${randomBytes(4).toString("hex")}`);

// Spares boot while a probe runs: each probe takes a fresh company, so a fresh process.
const pool = testPool({ size: 4, prewarm: 2 });
let server: http.Server;
let serverUrl: string;
const received: string[] = [];

beforeAll(async () => {
  process.env[SECRET_VAR] = SECRET;
  fs.mkdirSync(path.dirname(DATA_FILE), { recursive: true });
  fs.writeFileSync(DATA_FILE, SECRET);
  server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.end(`export default "${SECRET}";`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  delete process.env[SECRET_VAR];
  fs.rmSync(DATA_FILE, { force: true });
  fs.rmSync(WRITE_TARGET, { force: true });
  await new Promise((r) => server.close(r));
  await pool.close();
});

let company = 0;
/** Runs `def probe(): …` for a fresh company, so one probe's leftovers cannot help the next. */
async function probe(body: string, companyId = `co_probe_${++company}`): Promise<ToolExecution> {
  const code = `def probe():\n${body.replace(/^/gm, "    ")}\n`;
  const exec = await runTool({ companyId, name: "probe", code, args: {}, timeoutMs: 5000 }, pool);
  expect(JSON.stringify(exec)).not.toContain(SECRET);
  expect(JSON.stringify(exec)).not.toMatch(/root:x?:0:0/);
  return exec;
}

const denied = expect.stringMatching(
  /NotCapable|PermissionDenied|Requires .* access|not defined|not supported|not a function|has no attribute|No such file|AttributeError|ModuleNotFoundError|ImportError|OSError|Errno/i,
);

describe("escape probes: the server's environment", () => {
  it("import js: Deno.env is denied", async () => {
    const exec = await probe(`import js\nreturn js.Deno.env.get("${SECRET_VAR}")`);
    expect(exec).toMatchObject({ ok: false, error: denied });
  });

  it("pyodide.code.run_js cannot read the environment", async () => {
    const exec = await probe(`from pyodide.code import run_js\nreturn run_js("JSON.stringify(Deno.env.toObject())")`);
    expect(exec).toMatchObject({ ok: false, error: denied });
  });

  it("to_js(...).constructor.constructor('return process')() gives a process without env access", async () => {
    const exec = await probe(
      `from pyodide.ffi import to_js\nproc = to_js({}).constructor.constructor("return globalThis.process")()\nreturn str(proc.env.${SECRET_VAR})`,
    );
    expect(exec).toMatchObject({ ok: false, error: denied });
  });

  it("process.getBuiltinModule('child_process') cannot run a command", async () => {
    const exec = await probe(
      `import js\ncp = js.process.getBuiltinModule("node:child_process")\nreturn str(cp.execSync("cat /etc/passwd; env"))`,
    );
    expect(exec).toMatchObject({ ok: false, error: denied });
  });

  it("os.environ holds no server variable", async () => {
    const exec = await probe("import os\nreturn dict(os.environ)");
    expect(exec.ok).toBe(true);
    if (exec.ok) {
      const keys = Object.keys(exec.result as object);
      expect(keys).not.toContain(SECRET_VAR);
      expect(keys).not.toContain("DATABASE_URL");
      expect(keys).not.toContain("AUTH_SECRET");
    }
  });
});

describe("escape probes: the network", () => {
  it("fetch to a loopback server never reaches it", async () => {
    const exec = await probe(`import js\np = js.fetch("${serverUrl}/fetch")\nreturn "sent"`);
    expect(exec.ok === false || exec.result === "sent").toBe(true);
    await sleep(500);
    expect(received).toEqual([]);
  });

  it("pyfetch / open_url (synchronous XMLHttpRequest) fail", async () => {
    const exec = await probe(`from pyodide.http import open_url\nreturn open_url("${serverUrl}/xhr").read()`);
    expect(exec).toMatchObject({ ok: false, error: denied });
    const xhr = await probe(
      `import js\nreq = js.XMLHttpRequest.new()\nreq.open("GET", "${serverUrl}/xhr2", False)\nreq.send()\nreturn req.responseText`,
    );
    expect(xhr).toMatchObject({ ok: false, error: denied });
    const pyfetch = await probe(
      `from pyodide.http import pyfetch\ncoro = pyfetch("${serverUrl}/pyfetch")\nreturn "scheduled"`,
    );
    expect(pyfetch.ok === false || pyfetch.result === "scheduled").toBe(true);
    await sleep(500);
    expect(received).toEqual([]);
  });

  it("a socket cannot connect", async () => {
    const port = new URL(serverUrl).port;
    const exec = await probe(
      `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=2)\ns.sendall(b"GET /socket HTTP/1.0\\r\\n\\r\\n")\nreturn s.recv(100).decode()`,
    );
    expect(exec).toMatchObject({ ok: false, error: denied });
    const deno = await probe(
      `import js\nreturn str(js.Deno.connect(to_js := None) if False else js.Deno.listen(js.JSON.parse('{"port": 0}')))`,
    );
    expect(deno).toMatchObject({ ok: false, error: denied });
    expect(received).toEqual([]);
  });

  it("import() of a URL is refused", async () => {
    const companyId = "co_probe_import_url";
    await probe(
      `import js\njs.eval("globalThis.__probe = 'pending'; import('${serverUrl}/mod.js').then(m => { globalThis.__probe = 'got ' + m.default }, e => { globalThis.__probe = 'refused: ' + e })")\nreturn "scheduled"`,
      companyId,
    );
    await sleep(500);
    const exec = await probe(`import js\nreturn str(js.globalThis.__probe)`, companyId);
    expect(exec).toMatchObject({ ok: true, result: expect.stringMatching(/^refused/) });
    expect(received).toEqual([]);
  });
});

describe("escape probes: node: built-ins and Deno subprocesses from the js module", () => {
  it("import('node:child_process') cannot run a command", async () => {
    const companyId = "co_probe_node_cp";
    await probe(
      `import js\njs.eval("globalThis.__probe = 'pending'; import('node:child_process').then(m => { try { globalThis.__probe = 'ran ' + m.execSync('cat /etc/passwd') } catch (e) { globalThis.__probe = 'refused: ' + e } }, e => { globalThis.__probe = 'refused: ' + e })")\nreturn "scheduled"`,
      companyId,
    );
    await sleep(500);
    const exec = await probe(`import js\nreturn str(js.globalThis.__probe)`, companyId);
    expect(exec).toMatchObject({ ok: true, result: expect.stringMatching(/^refused/) });
  });

  it("node:vm (denoland/deno#30351) gives a process without permissions", async () => {
    const exec = await probe(
      `import js\nvm = js.process.getBuiltinModule("node:vm")\np = vm.runInNewContext("this.constructor.constructor('return process')()")\nreturn str(p.env.${SECRET_VAR}) + str(p.getBuiltinModule("node:fs").readFileSync("/etc/passwd"))`,
    );
    expect(exec).toMatchObject({ ok: false, error: denied });
  });

  it("Deno.run and Deno.Command cannot start a process", async () => {
    const run = await probe(`import js\nreturn str(js.Deno.run(js.JSON.parse('{"cmd": ["/usr/bin/id"]}')))`);
    expect(run).toMatchObject({ ok: false, error: denied });
    const command = await probe(
      `import js\nout = js.Deno.Command.new("/usr/bin/id").outputSync()\nreturn str(js.TextDecoder.new().decode(out.stdout))`,
    );
    expect(command).toMatchObject({ ok: false, error: denied });
  });
});

describe("escape probes: the file system", () => {
  it("cannot read /etc/passwd from Python or JavaScript", async () => {
    const py = await probe(`return open("/etc/passwd").read()`);
    expect(py).toMatchObject({ ok: false, error: denied });
    const js = await probe(`import js\nreturn js.Deno.readTextFileSync("/etc/passwd")`);
    expect(js).toMatchObject({ ok: false, error: denied });
  });

  it("cannot read the project's .data directory", async () => {
    const listing = await probe(
      `import js\nreturn [e.name for e in js.Deno.readDirSync("${path.dirname(DATA_FILE)}")]`,
    );
    expect(listing).toMatchObject({ ok: false, error: denied });
    const file = await probe(`import js\nreturn js.Deno.readTextFileSync("${DATA_FILE}")`);
    expect(file).toMatchObject({ ok: false, error: denied });
    const py = await probe(`return open("${DATA_FILE}").read()`);
    expect(py).toMatchObject({ ok: false, error: denied });
  });

  it("cannot write a file on the host", async () => {
    const js = await probe(`import js\njs.Deno.writeTextFileSync("${WRITE_TARGET}", "pwned")\nreturn "written"`);
    expect(js).toMatchObject({ ok: false, error: denied });
    // Python's open() writes to Pyodide's in-memory file system, never to the host's.
    await probe(`open("${WRITE_TARGET}", "w").write("pwned")\nreturn "written"`);
    expect(fs.existsSync(WRITE_TARGET)).toBe(false);
  });
});

describe("escape probes: Workers (OS threads that outlive the call)", () => {
  const disabled = expect.stringMatching(/Worker is not defined|Workers are disabled in the sandbox/);

  it("the web Worker global is gone", async () => {
    const exec = await probe(
      `from pyodide.code import run_js\nreturn run_js("String(new Worker('data:text/javascript,for(;;){}', { type: 'module' }))")`,
    );
    expect(exec).toMatchObject({ ok: false, error: disabled });
  });

  it("node:worker_threads' Worker (getBuiltinModule, createRequire) refuses to start", async () => {
    const viaBuiltin = await probe(
      `from pyodide.code import run_js\nreturn run_js("String(new (process.getBuiltinModule('node:worker_threads').Worker)('for(;;){}', { eval: true }))")`,
    );
    expect(viaBuiltin).toMatchObject({ ok: false, error: disabled });
    const viaRequire = await probe(
      `from pyodide.code import run_js\nreturn run_js("const req = process.getBuiltinModule('module').createRequire('file:///x.js'); String(new (req('worker_threads').Worker)('for(;;){}', { eval: true }))")`,
    );
    expect(viaRequire).toMatchObject({ ok: false, error: disabled });
  });

  it("a dynamic import (of node:worker_threads or a data: module) gives a Worker that refuses to start, and its base class cannot be put back", async () => {
    const companyId = "co_probe_worker_import";
    const start = await probe(
      [
        "from pyodide.code import run_js",
        `run_js("""`,
        `const tries = [import('node:worker_threads'), import('data:text/javascript,export { Worker } from "node:worker_threads"')];`,
        `globalThis.__workers = Promise.allSettled(tries.map((p) => p.then((m) => {`,
        `  try { Object.setPrototypeOf(m.Worker, process.getBuiltinModule('events').EventEmitter); } catch {}`,
        `  return String(new m.Worker('for(;;){}', { eval: true }));`,
        `}))).then((r) => { globalThis.__outcome = JSON.stringify(r.map((x) => x.status === 'rejected' ? String(x.reason) : 'started')); });`,
        `""")`,
        `return "pending"`,
      ].join("\n"),
      companyId,
    );
    expect(start).toMatchObject({ ok: true, result: "pending" });
    await sleep(300);
    const outcome = await probe(
      `from pyodide.code import run_js\nreturn run_js("String(globalThis.__outcome)")`,
      companyId,
    );
    expect(outcome.ok).toBe(true);
    const results = JSON.parse(String((outcome as { result: unknown }).result)) as string[];
    expect(results).toHaveLength(2);
    for (const r of results) expect(r).toMatch(/Workers are disabled in the sandbox/);
  });
});

describe("escape probes: what a call leaves behind", () => {
  it("a JavaScript timer left burning CPU after the call gets the process recycled", async () => {
    const companyId = "co_probe_timer";
    const before = pool.recycled["cpu while idle"] ?? 0;
    const exec = await probe(
      `import js\njs.eval("setInterval(() => { const t = Date.now(); while (Date.now() - t < 40) {} }, 1)")\nreturn "left a timer"`,
      companyId,
    );
    expect(exec).toMatchObject({ ok: true, result: "left a timer" });
    const [pid] = pool.pidsOf(companyId);
    expect(pid).toBeDefined();
    const deadline = Date.now() + 8000;
    while (fs.existsSync(`/proc/${pid}`) && Date.now() < deadline) await sleep(100);
    expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
    expect(pool.recycled["cpu while idle"] ?? 0).toBeGreaterThan(before);
    expect(await probe(`return 1 + 1`, companyId)).toMatchObject({ ok: true, result: 2 });
  });

  it("a reply forged on the runner's stdout (without the call's nonce) stops the process", async () => {
    const companyId = "co_probe_forge";
    await probe("return 1", companyId);
    const [pid] = pool.pidsOf(companyId);
    const exec = await probe(
      `import js\nline = '{"id": "guess", "ok": true, "result": "\\\"forged\\\"", "stdout": ""}\\n'\njs.Deno.stdout.writeSync(js.TextEncoder.new().encode(line))\nreturn "real"`,
      companyId,
    );
    expect(exec).toMatchObject({ ok: false, error: "The sandbox process broke the protocol and was stopped" });
    expect(pool.pidsOf(companyId)).not.toContain(pid);
    expect(await probe("return 2", companyId)).toMatchObject({ ok: true, result: 2 });
  });

  it("company B never sees state left by company A's tool", async () => {
    const single = testPool({ size: 1 });
    try {
      const leave = [
        "import builtins, json, sys, types, js",
        "builtins.leak = 'A-builtin'",
        "sys.modules['leaky'] = types.ModuleType('leaky')",
        "json.dumps = lambda *a, **k: '\"forged by A\"'",
        "js.globalThis.leak = 'A-js'",
        "open('/tmp/leak', 'w').write('A-file')",
        "return 'left'",
      ].join("\n");
      const a = await runTool(
        { companyId: "co_state_a", name: "probe", code: `def probe():\n${leave.replace(/^/gm, "    ")}\n`, args: {} },
        single,
      );
      expect(a).toMatchObject({ ok: true, result: "left" });
      const look = [
        "import builtins, os, sys, js",
        "return {",
        "  'builtin': getattr(builtins, 'leak', None),",
        "  'module': 'leaky' in sys.modules,",
        "  'js': str(getattr(js.globalThis, 'leak', None)),",
        "  'file': os.path.exists('/tmp/leak'),",
        "}",
      ].join("\n");
      const b = await runTool(
        { companyId: "co_state_b", name: "probe", code: `def probe():\n${look.replace(/^/gm, "    ")}\n`, args: {} },
        single,
      );
      expect(b).toMatchObject({ ok: true, result: { builtin: null, module: false, js: "None", file: false } });
    } finally {
      await single.close();
    }
  });

  it("within one company, builtins and imported modules are reset between calls", async () => {
    const companyId = "co_state_same";
    await probe(
      "import builtins, sys, types\nbuiltins.leak = 1\nsys.modules['leaky'] = types.ModuleType('leaky')\nreturn 'left'",
      companyId,
    );
    const exec = await probe(
      "import builtins, sys\nreturn [hasattr(builtins, 'leak'), 'leaky' in sys.modules]",
      companyId,
    );
    expect(exec).toMatchObject({ ok: true, result: [false, false] });
  });
});
