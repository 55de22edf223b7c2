// The parser child, one per file, outside the Next.js bundle. argv[2] kind, argv[3] output cap;
// bytes on stdin; one JSON reply on fd 3: { ok: true, doc } | { ok: false, reason }. Library logs
// go to stdout/stderr.
import fs from "node:fs";
import { ParseFailure, REASON } from "./failure.mjs";

const PARSERS = {
  pdf: async (b) => (await import("./pdf.mjs")).parsePdf(b),
  docx: async (b) => (await import("./docx.mjs")).parseDocx(b),
  xlsx: async (b) => (await import("./xlsx.mjs")).parseXlsx(b),
  doc: async (b) => (await import("./doc.mjs")).parseDoc(b),
  xls: async (b) => (await import("./xls.mjs")).parseXls(b),
  txt: async (b) => (await import("./text.mjs")).parseTxt(b),
  md: async (b) => (await import("./text.mjs")).parseMd(b),
};

const [, , kind, maxOutputArg] = process.argv;
const maxOutputBytes = Number(maxOutputArg);

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks);
}

function reply(message) {
  const json = typeof message === "string" ? message : JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(null, { fd: 3 });
    out.on("error", reject);
    out.end(json, resolve);
  });
}

async function main() {
  const parse = PARSERS[kind];
  if (!parse) return reply({ ok: false, reason: `unsupported kind ${kind}` });
  const bytes = await readStdin();
  try {
    const doc = await parse(bytes);
    const json = JSON.stringify({ ok: true, doc });
    if (Buffer.byteLength(json) > maxOutputBytes) {
      return reply({
        ok: false,
        reason: `the document's text is larger than ${Math.floor(maxOutputBytes / 1024 / 1024)} MB`,
      });
    }
    return reply(json);
  } catch (err) {
    if (err instanceof ParseFailure) return reply({ ok: false, reason: err.reason });
    process.stderr.write(`parser error: ${err?.stack ?? err}\n`);
    return reply({ ok: false, reason: REASON.corrupt });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`parser child failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
