import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useGateway } from "../support/gateway";
import { rssOf, upload, waitForDocument } from "../support/knowledge";
import {
  deflatedZeros,
  makeEncryptedPdf,
  makeFontMatrixExploitPdf,
  makePdf,
  makeZip,
} from "../support/knowledge-files";

/**
 * The parser's formats end to end: DOC, XLS, TXT and Markdown each uploaded, indexed and answering
 * a question only they can, through a profile's knowledge bases and `use_kb`; hostile files end
 * `failed` while the server keeps serving.
 */
const gw = useGateway();
const FIXTURES = path.join(__dirname, "../fixtures/knowledge");

async function collection(key: string, name: string): Promise<string> {
  const res = await gw.call(key, "POST", "/v1/knowledge", { name, description: "" });
  expect(res.status).toBe(201);
  return res.json.id as string;
}

async function indexed(key: string, collectionId: string, name: string, bytes: Uint8Array | string) {
  const res = await upload(gw.server.url, key, collectionId, { name, bytes });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return waitForDocument(gw.server.url, key, collectionId, res.json.id);
}

async function ask(key: string, question: string, body: Record<string, unknown>) {
  const threadId = await gw.thread(key, [{ role: "user", content: question }]);
  const run = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, { model: "local-mini", ...body });
  expect(run.status, JSON.stringify(run.json)).toBe(200);
  return run.json as { content: string; citations: { filename: string }[] };
}

describe("every allowed type answers through a local model", () => {
  it("DOC and XLS fixtures, TXT and Markdown: ready, and each answers its own question — via a profile, and via use_kb on a profile that has it off", async () => {
    const { key } = await gw.tenant();
    const kc = await collection(key, "Mixed formats");
    const files: [string, Uint8Array | string][] = [
      ["report.doc", fs.readFileSync(path.join(FIXTURES, "sample.doc"))],
      ["units.xls", fs.readFileSync(path.join(FIXTURES, "sample.xls"))],
      ["boiler.txt", "Boiler room log.\n\nThe boiler pressure relief valve is tested every ninth Thursday by Ingrid."],
      ["garden.md", "# Garden\n\n## Watering\n\nThe greenhouse orchids are watered with rainwater from barrel seven."],
    ];
    for (const [name, bytes] of files) {
      const doc = await indexed(key, kc, name, bytes);
      expect(doc, name).toMatchObject({ status: "ready", error: null, filename: name });
      expect(doc.chunk_count, name).toBeGreaterThan(0);
    }
    const on = (await gw.call(key, "POST", "/v1/profiles", { name: "kb on", knowledge_base_ids: [kc], use_kb: true }))
      .json.id;
    const off = (
      await gw.call(key, "POST", "/v1/profiles", { name: "kb off", knowledge_base_ids: [kc], use_kb: false })
    ).json.id;

    const doc = await ask(key, "How many crates did the Zephyr warehouse in Tromsø ship in March?", {
      profile_ids: [on],
    });
    expect(doc.content).toContain("4,217 crates");
    expect(doc.citations[0]!.filename).toBe("report.doc");
    const txt = await ask(key, "Who tests the boiler pressure relief valve?", { profile_ids: [on] });
    expect(txt.content).toContain("Ingrid");
    expect(txt.citations[0]!.filename).toBe("boiler.txt");

    // The profile has retrieval off; the run's use_kb turns it on for this run only.
    const xls = await ask(key, "How many Sprocket units in the East region?", { profile_ids: [off], use_kb: true });
    expect(xls.content).toContain("9031");
    expect(xls.citations[0]!.filename).toBe("units.xls");
    const md = await ask(key, "What are the greenhouse orchids watered with?", { profile_ids: [off], use_kb: true });
    expect(md.content).toContain("barrel seven");
    expect(md.citations[0]!.filename).toBe("garden.md");
    const none = await ask(key, "What are the greenhouse orchids watered with?", { profile_ids: [off] });
    expect(none.citations).toEqual([]);
    expect(none.content).not.toContain("barrel seven");
  });
});

describe("hostile files through the API", () => {
  it("a zip bomb, a corrupt PDF and an encrypted PDF end failed with a reason; the CVE-2024-4367 PDF runs no script; the server serves on", async () => {
    const { key } = await gw.tenant();
    const kc = await collection(key, "Hostile");
    const rssBefore = await rssOf(gw.server.pid);
    const bomb = makeZip([
      { name: "[Content_Types].xml", data: Buffer.from("<Types/>") },
      { name: "word/document.xml", deflated: await deflatedZeros(150), declared: 1024 },
    ]);
    const pdf = await makePdf([["Some text that will be cut off"]]);
    const failures: [string, Uint8Array, RegExp][] = [
      ["bomb.docx", bomb, /^parse: a file inside the archive expands beyond \d+ MB$/],
      ["cut.pdf", pdf.subarray(0, pdf.length >> 1), /^parse: .*(corrupt|truncated)/i],
      ["locked.pdf", makeEncryptedPdf(), /^parse: .*encrypted/i],
    ];
    for (const [name, bytes, reason] of failures) {
      const doc = await indexed(key, kc, name, bytes);
      expect(doc.status, name).toBe("failed");
      expect(doc.error, name).toMatch(reason);
      expect(doc.chunk_count, name).toBe(0);
    }

    // The payload would write this file if the parser evaluated the font matrix (lib/knowledge/parse
    // tests prove the same string does so when run as code).
    const marker = path.join(os.tmpdir(), `cve-2024-4367-http-${process.pid}-${Date.now()}`);
    const payload = `import("node:fs").then((fs) => fs.writeFileSync(${JSON.stringify(marker)}, "pwned"))`;
    const cve = await indexed(key, kc, "cve.pdf", makeFontMatrixExploitPdf(payload));
    expect(cve.status).toBe("ready");
    await new Promise((r) => setTimeout(r, 200));
    expect(fs.existsSync(marker)).toBe(false);

    // Unaffected: healthy, its memory where it was, and the next document indexes normally.
    expect((await fetch(`${gw.server.url}/api/health`)).status).toBe(200);
    expect(await rssOf(gw.server.pid)).toBeLessThan(rssBefore + 100 * 1024 * 1024);
    const fine = await indexed(key, kc, "fine.txt", "After the storm the ferry to Hellesylt runs at dawn.");
    expect(fine.status).toBe("ready");
  });
});
