import http from "node:http";
import { expect } from "vitest";

/** Multipart upload through fetch (FormData/Blob), as a browser or SDK would send it. */
export async function upload(
  base: string,
  key: string,
  collectionId: string,
  file: { name: string; bytes: Uint8Array | string; type?: string },
  folderPath?: string,
): Promise<{ status: number; json: any }> {
  const form = new FormData();
  if (folderPath !== undefined) form.append("folder_path", folderPath);
  form.append(
    "file",
    new Blob([typeof file.bytes === "string" ? file.bytes : Buffer.from(file.bytes)], {
      type: file.type ?? "application/octet-stream",
    }),
    file.name,
  );
  const res = await fetch(`${base}/v1/knowledge/${collectionId}/documents`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** Polls a document until it leaves `pending` (or the deadline passes); its last body. */
export async function waitForDocument(
  base: string,
  key: string,
  collectionId: string,
  documentId: string,
  timeoutMs = 60_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${base}/v1/knowledge/${collectionId}/documents/${documentId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    const doc = await res.json();
    if (doc.status !== "pending" || Date.now() > deadline) return doc;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The resident set of a process, in bytes (Linux). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? "0");
  return kb * 1024;
}

/**
 * Sends a multipart body of `fileBytes` zero bytes with node:http (optionally without a
 * Content-Length, so only the streaming count can stop it), writing with backpressure and
 * stopping when the server answers; the status the server answered.
 */
export function streamLargeUpload(
  base: string,
  key: string,
  collectionId: string,
  fileBytes: number,
  opts: { declareLength: boolean },
): Promise<number> {
  const boundary = "----knowledge-test-boundary";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(`${base}/v1/knowledge/${collectionId}/documents`);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": `multipart/form-data; boundary=${boundary}`,
          ...(opts.declareLength
            ? { "content-length": String(head.length + fileBytes + tail.length) }
            : { "transfer-encoding": "chunked" }),
        },
      },
      (res) => {
        answered = true;
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      },
    );
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      if (answered) return;
      if (sent === 0) req.write(head);
      while (sent < fileBytes && !answered) {
        const n = Math.min(piece.length, fileBytes - sent);
        sent += n;
        if (!req.write(piece.subarray(0, n))) return void req.once("drain", pump);
      }
      if (!answered) req.end(tail);
    };
    pump();
  });
}

/** A PE executable's first bytes (MZ header pointing at a PE signature). */
export function fakeExe(): Buffer {
  const buf = Buffer.alloc(1024);
  buf.write("MZ", 0, "latin1");
  buf.writeUInt32LE(0x80, 0x3c);
  buf.write("PE\0\0", 0x80, "latin1");
  buf.writeUInt16LE(0x14c, 0x84);
  return buf;
}
