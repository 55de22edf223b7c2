import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeKey } from "../support/factories";
import { useGateway } from "../support/gateway";
import { fakeExe, rssOf, streamLargeUpload, upload, waitForDocument } from "../support/knowledge";
import { encodeGrayPng } from "../support/png";

/**
 * /v1/knowledge over real HTTP (SPEC "Knowledge", CONTRACT 4, 5.6, 5.10): collections, uploads
 * (streamed, typed from the bytes), durable indexing to `ready`/`failed`, retry, delete, tenancy.
 * The worker runs in the server process (as `npm start`); jobs are pg-boss on the same database.
 */
const gw = useGateway({ env: { MAX_UPLOAD_MB: "50", JOBS_IDLE_CHECK_S: "1", KNOWLEDGE_JOB_RETRY_DELAY_S: "1" } });

const FACT = "The Zephyr-9 valve is calibrated every 17 days by the night shift.";

async function newCollection(key: string, name = "Manuals") {
  const res = await gw.call(key, "POST", "/v1/knowledge", { name, description: "Plant manuals" });
  expect(res.status).toBe(201);
  return res.json as { id: string };
}

async function chunkRows(documentId: string): Promise<{ total: number; distinct: number } | null> {
  const [t] = await db.execute<{ ok: boolean }>(sql`SELECT to_regclass('public.knowledge_chunks') IS NOT NULL AS ok`);
  if (!t?.ok) return null;
  const [row] = await db.execute<{ total: number; distinct: number }>(
    sql`SELECT count(*)::int AS total, count(DISTINCT position)::int AS distinct FROM knowledge_chunks WHERE document_id = ${documentId}`,
  );
  return row!;
}

describe("/v1/knowledge collections", () => {
  it("POST 201 with the CONTRACT body; GET one; list; DELETE deactivates (gone from the list, readable by id)", async () => {
    const { key } = await gw.tenant();
    const created = await gw.call(key, "POST", "/v1/knowledge", { name: "Handbook", description: "HR" });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-request-id")).toBeTruthy();
    expect(created.json).toEqual({
      id: expect.stringMatching(/^kc_/),
      object: "knowledge.collection",
      name: "Handbook",
      description: "HR",
      is_active: true,
      created_at: expect.any(Number),
      document_count: 0,
    });
    const id = created.json.id;
    expect((await gw.call(key, "GET", `/v1/knowledge/${id}`)).json).toEqual(created.json);
    const second = await newCollection(key, "Second");
    const list = await gw.call(key, "GET", "/v1/knowledge");
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ object: "list", has_more: false });
    expect(list.json.data.map((c: { id: string }) => c.id)).toEqual([second.id, id]);

    const del = await gw.call(key, "DELETE", `/v1/knowledge/${id}`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ id, object: "knowledge.collection", deleted: true });
    expect((await gw.call(key, "GET", "/v1/knowledge")).json.data.map((c: { id: string }) => c.id)).toEqual([
      second.id,
    ]);
    const after = await gw.call(key, "GET", `/v1/knowledge/${id}`);
    expect(after.status).toBe(200);
    expect(after.json.is_active).toBe(false);
    expect((await gw.call(key, "DELETE", `/v1/knowledge/${id}`)).status).toBe(409);
    // A deactivated collection takes no uploads.
    expect((await upload(gw.server.url, key, id, { name: "a.txt", bytes: FACT })).status).toBe(404);
  });

  it("400 naming the field for a bad body; 403 without the chat scope", async () => {
    const { key, companyId } = await gw.tenant();
    const bad = await gw.call(key, "POST", "/v1/knowledge", { description: "no name" });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: "invalid_request_error", param: "name" });
    const { secret: viewKey } = await makeKey(db, { companyId, scopes: ["view"] });
    expect((await gw.call(viewKey, "GET", "/v1/knowledge")).status).toBe(403);
  });
});

describe("/v1/knowledge/{id}/documents", () => {
  it("upload → 202 pending → ready; list newest first; GET one; folder_path kept; same bytes twice are two documents", async () => {
    const { key } = await gw.tenant();
    const kc = await newCollection(key);
    const first = await upload(
      gw.server.url,
      key,
      kc.id,
      { name: "valves.txt", bytes: `Maintenance notes\n\n${FACT}\n`, type: "text/plain" },
      "plant/north",
    );
    expect(first.status).toBe(202);
    expect(first.json).toEqual({
      id: expect.stringMatching(/^doc_/),
      object: "knowledge.document",
      collection_id: kc.id,
      filename: "valves.txt",
      mime_type: "text/plain",
      size_bytes: Buffer.byteLength(`Maintenance notes\n\n${FACT}\n`),
      folder_path: "plant/north",
      status: "pending",
      error: null,
      chunk_count: 0,
      created_at: expect.any(Number),
    });
    const md = await upload(gw.server.url, key, kc.id, { name: "notes.md", bytes: `# Valves\n\n${FACT}\n` });
    expect(md.status).toBe(202);
    expect(md.json.mime_type).toBe("text/markdown");
    const again = await upload(gw.server.url, key, kc.id, {
      name: "copy.txt",
      bytes: `Maintenance notes\n\n${FACT}\n`,
    });
    expect(again.status).toBe(202);
    expect(again.json.id).not.toBe(first.json.id);

    for (const d of [first, md, again]) {
      const done = await waitForDocument(gw.server.url, key, kc.id, d.json.id);
      expect(done).toMatchObject({ status: "ready", error: null });
      expect(done.chunk_count).toBeGreaterThan(0);
      const chunks = await chunkRows(d.json.id);
      if (chunks) expect(chunks).toEqual({ total: done.chunk_count, distinct: done.chunk_count });
    }
    const list = await gw.call(key, "GET", `/v1/knowledge/${kc.id}/documents`);
    expect(list.status).toBe(200);
    expect(Object.keys(list.json).sort()).toEqual(["data", "object"]);
    expect(list.json.data.map((d: { id: string }) => d.id)).toEqual([again.json.id, md.json.id, first.json.id]);
    expect((await gw.call(key, "GET", `/v1/knowledge/${kc.id}`)).json.document_count).toBe(3);
  });

  it("415 for a PNG renamed .pdf, an exe (also named .txt) and a binary .txt; the declared type never decides", async () => {
    const { key } = await gw.tenant();
    const kc = await newCollection(key);
    const png = encodeGrayPng(4, 4, new Uint8Array(16));
    const cases = [
      { name: "report.pdf", bytes: png, type: "application/pdf" },
      { name: "setup.exe", bytes: fakeExe() },
      { name: "readme.txt", bytes: fakeExe(), type: "text/plain" },
      { name: "data.txt", bytes: new Uint8Array([0x68, 0x69, 0x00, 0x01, 0x02, 0x00]) },
      { name: "noext", bytes: FACT },
    ];
    for (const file of cases) {
      const res = await upload(gw.server.url, key, kc.id, file);
      expect(res.status, file.name).toBe(415);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", code: "unsupported_media_type" });
    }
    // Text sent as application/pdf is still text (by its bytes and name), not refused nor called a PDF.
    const txt = await upload(gw.server.url, key, kc.id, { name: "fact.txt", bytes: FACT, type: "application/pdf" });
    expect(txt.status).toBe(202);
    expect(txt.json.mime_type).toBe("text/plain");
    expect((await gw.call(key, "GET", `/v1/knowledge/${kc.id}/documents`)).json.data).toHaveLength(1);
  });

  it("413 payload_too_large for a 60 MB upload, decided while streaming: the server's RSS grows < 30 MB", async () => {
    const { key } = await gw.tenant();
    const kc = await newCollection(key);
    const before = await rssOf(gw.server.pid);
    let peak = before;
    const sampler = setInterval(() => void rssOf(gw.server.pid).then((r) => (peak = Math.max(peak, r))), 20);
    try {
      expect(await streamLargeUpload(gw.server.url, key, kc.id, 60 * 1024 * 1024, { declareLength: true })).toBe(413);
      expect(await streamLargeUpload(gw.server.url, key, kc.id, 60 * 1024 * 1024, { declareLength: false })).toBe(413);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, await rssOf(gw.server.pid));
    expect(peak - before).toBeLessThan(30 * 1024 * 1024);
    expect((await gw.call(key, "GET", `/v1/knowledge/${kc.id}/documents`)).json.data).toEqual([]);
    // The server still answers.
    expect((await gw.call(key, "GET", `/v1/knowledge/${kc.id}`)).status).toBe(200);
  });

  it("a document that cannot be parsed ends failed with '<stage>: <reason>'; retry → 200 pending, re-enqueued; retry of a ready one → 409", async () => {
    const { key } = await gw.tenant();
    const kc = await newCollection(key);
    const broken = await upload(gw.server.url, key, kc.id, {
      name: "broken.pdf",
      bytes: "%PDF-1.7\nthis is not a real PDF body\n%%EOF\n",
    });
    expect(broken.status).toBe(202);
    expect(broken.json.mime_type).toBe("application/pdf");
    const failed = await waitForDocument(gw.server.url, key, kc.id, broken.json.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^parse: \S/);

    const retried = await gw.call(key, "POST", `/v1/knowledge/${kc.id}/documents/${broken.json.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ id: broken.json.id, status: "pending", error: null });
    const again = await waitForDocument(gw.server.url, key, kc.id, broken.json.id);
    expect(again.status).toBe("failed");
    expect(again.error).toMatch(/^parse: /);

    const good = await upload(gw.server.url, key, kc.id, { name: "ok.txt", bytes: FACT });
    await waitForDocument(gw.server.url, key, kc.id, good.json.id);
    const notFailed = await gw.call(key, "POST", `/v1/knowledge/${kc.id}/documents/${good.json.id}/retry`);
    expect(notFailed.status).toBe(409);
  });

  it("DELETE a document: 200 deleted, gone from GET and the list, its chunks gone", async () => {
    const { key } = await gw.tenant();
    const kc = await newCollection(key);
    const doc = await upload(gw.server.url, key, kc.id, { name: "gone.txt", bytes: FACT });
    await waitForDocument(gw.server.url, key, kc.id, doc.json.id);
    const del = await gw.call(key, "DELETE", `/v1/knowledge/${kc.id}/documents/${doc.json.id}`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ id: doc.json.id, object: "knowledge.document", deleted: true });
    expect((await gw.call(key, "GET", `/v1/knowledge/${kc.id}/documents/${doc.json.id}`)).status).toBe(404);
    expect((await gw.call(key, "GET", `/v1/knowledge/${kc.id}/documents`)).json.data).toEqual([]);
    expect((await gw.call(key, "DELETE", `/v1/knowledge/${kc.id}/documents/${doc.json.id}`)).status).toBe(404);
    const chunks = await chunkRows(doc.json.id);
    if (chunks) expect(chunks.total).toBe(0);
  });

  it("another company's collection or document: 404 on every endpoint", async () => {
    const owner = await gw.tenant();
    const kc = await newCollection(owner.key);
    const doc = await upload(gw.server.url, owner.key, kc.id, { name: "secret.txt", bytes: FACT });
    const { key } = await gw.tenant();
    const mine = await newCollection(key);
    const d = `/v1/knowledge/${kc.id}/documents/${doc.json.id}`;
    for (const [method, path] of [
      ["GET", `/v1/knowledge/${kc.id}`],
      ["DELETE", `/v1/knowledge/${kc.id}`],
      ["GET", `/v1/knowledge/${kc.id}/documents`],
      ["GET", d],
      ["DELETE", d],
      ["POST", `${d}/retry`],
      // Their document through my collection.
      ["GET", `/v1/knowledge/${mine.id}/documents/${doc.json.id}`],
      ["DELETE", `/v1/knowledge/${mine.id}/documents/${doc.json.id}`],
    ] as const) {
      const res = await gw.call(key, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.error.type).toBe("not_found_error");
    }
    expect((await upload(gw.server.url, key, kc.id, { name: "x.txt", bytes: FACT })).status).toBe(404);
    // Still there for its owner.
    expect((await gw.call(owner.key, "GET", d)).status).toBe(200);
  });

  it("profiles' knowledge_base_ids: the company's active collections only", async () => {
    const { key } = await gw.tenant();
    const kc = await newCollection(key);
    const ok = await gw.call(key, "POST", "/v1/profiles", { name: "KB", knowledge_base_ids: [kc.id] });
    expect(ok.status).toBe(201);
    await gw.call(key, "DELETE", `/v1/knowledge/${kc.id}`);
    const gone = await gw.call(key, "POST", "/v1/profiles", { name: "KB2", knowledge_base_ids: [kc.id] });
    expect(gone.status).toBe(400);
    expect(gone.json.error.param).toBe("knowledge_base_ids");
  });
});
