/**
 * The sandbox runner: a Deno program read from disk that runs company tools' Python in Pyodide.
 * Deno's permissions (none but reading Pyodide) are the boundary: Python can reach JavaScript
 * (`import js`) and that gives it nothing.
 *
 * Protocol (JSON lines): {"type":"ready"} once booted, then exactly one reply per request line
 * {"id", "op", ...}, echoing "id". Stdin EOF ends it. Python's fd 1/2 go to stderr, so stdout
 * carries only replies.
 *
 * Usage: deno run <flags> runner.ts <pyodide dir> <stdout cap bytes> <result cap bytes> [<snapshot
 * file> | --make-snapshot] A snapshot file boots Pyodide from that memory snapshot; --make-snapshot
 * boots it, writes the snapshot to stdout and exits without running tool code.
 */
export {};

interface DenoApi {
  args: string[];
  readFile(path: string): Promise<Uint8Array>;
  stdin: { readable: ReadableStream<BufferSource> };
  stdout: { writeSync(b: Uint8Array): number };
  stderr: { writeSync(b: Uint8Array): number };
  exit(code: number): never;
}
interface PyProxyFn {
  (...args: unknown[]): unknown;
}
interface Pyodide {
  runPython(code: string, opts?: { globals?: unknown }): unknown;
  globals: { get(name: string): unknown };
  toPy(v: unknown): unknown;
  setStdout(o: { batched: (s: string) => void }): void;
  setStderr(o: { batched: (s: string) => void }): void;
}

declare const Deno: DenoApi;

// Taken before any tool runs, so a tool that replaces globals cannot change how replies are written
// (within one company's process; a process never serves another company).
const denoStdout = Deno.stdout;
const denoStderr = Deno.stderr;
const writeOut = denoStdout.writeSync.bind(denoStdout);
const writeErr = denoStderr.writeSync.bind(denoStderr);
const encoder = new TextEncoder();
const encode = encoder.encode.bind(encoder);
const exit = Deno.exit.bind(Deno);

function writeAll(write: (b: Uint8Array) => number, text: string): void {
  let bytes = encode(text);
  while (bytes.length > 0) bytes = bytes.subarray(write(bytes));
}
const logErr = (s: string) => writeAll(writeErr, s.endsWith("\n") ? s : `${s}\n`);
// JavaScript reached from Python logging to the console must not corrupt the protocol on stdout.
console.log = console.info = console.debug = console.error;

/**
 * A Worker is a thread that outlives the call: the web Worker global is removed and
 * node:worker_threads' Worker gets a frozen base class that throws. Runs before any tool code.
 */
function disableWorkers(): void {
  const g = globalThis as {
    Worker?: unknown;
    process?: { getBuiltinModule?(name: string): { Worker?: object } | undefined };
  };
  delete g.Worker;
  const nodeWorker = g.process?.getBuiltinModule?.("node:worker_threads")?.Worker;
  if (!nodeWorker) return;
  const refuse = function refuse() {
    throw new TypeError("Workers are disabled in the sandbox");
  };
  // NodeWorker's constructor calls super() before it starts the thread.
  Object.setPrototypeOf(nodeWorker, refuse);
  Object.freeze(refuse);
  Object.freeze(nodeWorker);
}

const [pyodideDir, stdoutCapArg, resultCapArg, snapshotArg] = Deno.args;
if (!pyodideDir) {
  logErr("usage: runner.ts <pyodide dir> <stdout cap> <result cap> [<snapshot file> | --make-snapshot]");
  exit(2);
}

const { loadPyodide } = (await import(`file://${pyodideDir}/pyodide.mjs`)) as {
  loadPyodide(o: Record<string, unknown>): Promise<Pyodide>;
};
const BOOT_IMPORTS = "import ast, builtins, io, json, sys";
const makeSnapshot = snapshotArg === "--make-snapshot";
const pyodide = await loadPyodide({
  indexURL: `${pyodideDir}/`,
  stdout: logErr,
  stderr: logErr,
  ...(makeSnapshot ? { _makeSnapshot: true } : {}),
  ...(snapshotArg && !makeSnapshot ? { _loadSnapshot: await Deno.readFile(snapshotArg) } : {}),
});
if (makeSnapshot) {
  pyodide.runPython(BOOT_IMPORTS);
  const bytes = (pyodide as unknown as { makeMemorySnapshot(): Uint8Array }).makeMemorySnapshot();
  let rest = bytes;
  while (rest.length > 0) rest = rest.subarray(writeOut(rest));
  exit(0);
}
disableWorkers();
pyodide.setStdout({ batched: logErr });
pyodide.setStderr({ batched: logErr });

// The Python half lives in a private namespace; tools run in a fresh dict each call.
const privateNs = pyodide.toPy({});
pyodide.runPython(
  String.raw`
${BOOT_IMPORTS}

_dumps = json.dumps
_loads = json.loads
_STDOUT_CAP = ${Number(stdoutCapArg) || 65536}
_RESULT_CAP = ${Number(resultCapArg) || 1048576}
_boot_modules = frozenset(sys.modules)
_boot_builtins = dict(builtins.__dict__)
_real_stdout, _real_stderr = sys.stdout, sys.stderr
_BaseException = BaseException
_type, _str, _len, _isinstance, _callable = type, str, len, isinstance, callable


class _Capture(io.TextIOBase):
    def __init__(self):
        self.parts = []
        self.size = 0
        self.truncated = False

    def writable(self):
        return True

    def write(self, s):
        s = _str(s)
        room = _STDOUT_CAP - self.size
        if room > 0:
            part = s[:room]
            self.parts.append(part)
            self.size += _len(part)
        if _len(s) > room:
            self.truncated = True
        return _len(s)

    def value(self):
        text = "".join(self.parts)
        return text + "\n[output truncated]" if self.truncated else text


def _reset():
    # What one call added cannot be seen by the next one of the same company: modules it imported
    # are dropped and builtins restored. Deeper changes to modules loaded at boot are not undone;
    # the host recycles the process after SANDBOX_MAX_CALLS calls (1 = a fresh process per call).
    sys.stdout, sys.stderr = _real_stdout, _real_stderr
    for key in [k for k in sys.modules if k not in _boot_modules]:
        del sys.modules[key]
    builtins.__dict__.clear()
    builtins.__dict__.update(_boot_builtins)


def _describe(e):
    name = _type(e).__name__
    text = _str(e)
    return f"{name}: {text}" if text else name


def _has_function(tree, name):
    return any(
        _isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
        for node in tree.body
    )


def _check(name, code):
    # Parse only: module top-level code does not run at check time.
    try:
        tree = ast.parse(code, filename="<python_code>")
    except SyntaxError as e:
        return {"ok": False, "error": f"python_code does not parse: {e.msg} (line {e.lineno})"}
    except _BaseException as e:
        return {"ok": False, "error": f"python_code does not parse: {_describe(e)}"}
    if not _has_function(tree, name):
        return {"ok": False, "error": f"python_code does not define a top-level function named {name!r}"}
    return {"ok": True}


def _run(name, code, args):
    out = _Capture()
    sys.stdout = sys.stderr = out
    try:
        if not _isinstance(args, dict):
            raise TypeError("arguments must be a JSON object")
        ns = {"__name__": "__tool__", "__builtins__": builtins}
        exec(compile(code, "<python_code>", "exec"), ns)
        fn = ns.get(name)
        if not _callable(fn):
            reply = {"ok": False, "error": f"python_code does not define a function named {name!r}"}
        else:
            value = fn(**args)
            if _type(value).__name__ == "coroutine":
                value.close()
                reply = {"ok": False, "error": "the tool function is async; define it with def"}
            else:
                try:
                    result = _dumps(value, allow_nan=False)
                except (TypeError, ValueError, RecursionError) as e:
                    reply = {"ok": False, "error": f"return value is not JSON serialisable: {_describe(e)}"}
                else:
                    if _len(result) > _RESULT_CAP:
                        reply = {"ok": False, "error": f"return value is larger than {_RESULT_CAP} bytes of JSON"}
                    else:
                        reply = {"ok": True, "result": result}
    except _BaseException as e:
        reply = {"ok": False, "error": _describe(e)}
    finally:
        _reset()
    reply["stdout"] = out.value()
    return reply


def _handle(line):
    try:
        req = _loads(line)
        op = req["op"]
        if op == "run":
            reply = _run(req["name"], req["code"], req["args"])
        elif op == "check":
            reply = _check(req["name"], req["code"])
        else:
            reply = {"ok": False, "error": "unknown op"}
        reply["id"] = req["id"]
    except _BaseException as e:
        reply = {"ok": False, "error": "bad request: " + _describe(e), "id": None}
    try:
        return _dumps(reply)
    except _BaseException as e:
        return _dumps({"ok": False, "error": "reply failed: " + _describe(e), "id": reply.get("id")})
`,
  { globals: privateNs },
);
const handle = (privateNs as { get(k: string): unknown }).get("_handle") as PyProxyFn;

// One call of each kind before "ready": the first call is then as fast as the others, and the
// compilation it triggers happens during boot, not while the host watches the idle process's CPU.
handle('{"id":"warmup","op":"run","name":"f","code":"def f(a):\\n    return [a]\\n","args":{"a":1}}');
handle('{"id":"warmup","op":"check","name":"f","code":"def f():\\n    pass\\n"}');

writeAll(writeOut, '{"type":"ready"}\n');

// One request at a time: the host never sends the next line before the reply to the previous one.
const decoder = new TextDecoderStream();
const reader = Deno.stdin.readable.pipeThrough(decoder).getReader();
let buffered = "";
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  buffered += value;
  let nl: number;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim() === "") continue;
    writeAll(writeOut, `${String(handle(line))}\n`);
  }
}
exit(0);
