import { describe, expect, it } from "vitest";
import { useGateway } from "../support/gateway";
import { upload, waitForDocument } from "../support/knowledge";
import { makeDocx, makePdf, makeXlsx } from "../support/knowledge-files";

/**
 * Knowledge in runs and chat completions (CONTRACT 5.9, 6, 7): documents of each type answer
 * questions through a `local` model quoting the best passage, via profiles and `use_kb`; citations,
 * steps, files, isolation and deletion.
 */
const gw = useGateway();

async function indexed(key: string, files: { name: string; bytes: Uint8Array | string }[]) {
  const kc = (await gw.call(key, "POST", "/v1/knowledge", { name: "Facts", description: "" })).json as { id: string };
  const docs = [];
  for (const f of files) {
    const res = await upload(gw.server.url, key, kc.id, f);
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const done = await waitForDocument(gw.server.url, key, kc.id, res.json.id);
    expect(done.status, JSON.stringify(done)).toBe("ready");
    docs.push(done as { id: string; filename: string });
  }
  return { collectionId: kc.id, docs };
}

const FACT = "The spare valve key for turbine nine hangs in locker forty-two behind the pump room.";

describe("retrieval in runs and completions", () => {
  it("a local-model run answers from the profile's collection, with citations and a retrieval step; use_kb false turns it off", async () => {
    const { key } = await gw.tenant();
    const { collectionId, docs } = await indexed(key, [
      { name: "valves.txt", bytes: `Maintenance notes.\n\n${FACT}\n\nOther notes about lubricants and belts.` },
      { name: "cafeteria.md", bytes: "# Cafeteria\n\nLunch is served from noon to two in the main hall." },
    ]);
    const profile = (
      await gw.call(key, "POST", "/v1/profiles", { name: "plant", knowledge_base_ids: [collectionId], use_kb: true })
    ).json;
    expect(profile.id).toBeDefined();
    const threadId = await gw.thread(key, [
      { role: "user", content: "Where is the spare valve key for turbine nine?" },
    ]);
    const run = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, {
      model: "local-mini",
      profile_ids: [profile.id],
    });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    expect(run.json.content).toContain("locker forty-two");
    expect(run.json.citations[0]).toMatchObject({
      document_id: docs[0]!.id,
      collection_id: collectionId,
      filename: "valves.txt",
      score: expect.any(Number),
    });
    expect(run.json.citations[0].chunk).toContain("locker forty-two");
    const steps = (await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${run.json.id}/steps`)).json.data;
    const retrieval = steps.find((s: { type: string }) => s.type === "retrieval");
    expect(retrieval.detail.collections).toEqual([collectionId]);
    expect(retrieval.detail.candidates[0]).toMatchObject({
      document_id: docs[0]!.id,
      used: true,
      score: expect.any(Number),
    });
    expect(retrieval.detail.candidates[0]).toHaveProperty("lexical_score");
    expect(retrieval.detail.candidates[0]).toHaveProperty("dense_score");
    expect(retrieval.detail.candidates[0].relevance).toBeGreaterThan(0);
    expect(retrieval.detail.candidates[0].relevance).toBeLessThanOrEqual(1);

    const off = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, {
      model: "local-mini",
      profile_ids: [profile.id],
      use_kb: false,
    });
    expect(off.json.citations).toEqual([]);
    expect(off.json.content).not.toContain("locker forty-two");
  });

  it("PDF, DOCX and XLSX documents answer through a default profile in chat completions; a deleted document is no longer retrieved", async () => {
    const { key } = await gw.tenant();
    const { collectionId, docs } = await indexed(key, [
      {
        name: "manual.pdf",
        bytes: await makePdf([
          ["Introduction to the plant."],
          ["The emergency generator starts after exactly eleven seconds."],
        ]),
      },
      { name: "report.docx", bytes: await makeDocx() },
      { name: "inventory.xlsx", bytes: await makeXlsx() },
    ]);
    await gw.call(key, "POST", "/v1/profiles", {
      name: "default",
      knowledge_base_ids: [collectionId],
      use_kb: true,
      is_default: true,
    });
    const ask = (q: string) =>
      gw.call(key, "POST", "/v1/chat/completions", { model: "local-mini", messages: [{ role: "user", content: q }] });
    const answer = await ask("After how many seconds does the emergency generator start?");
    expect(answer.status).toBe(200);
    expect(answer.json.choices[0].message.content).toContain("eleven seconds");
    expect(answer.json.citations?.[0]?.filename).toBe("manual.pdf");
    // Each document answers the question only it can answer (the DOCX's table, the XLSX's table).
    const docx = await ask("How many pallets fit in bay B7?");
    expect(docx.json.choices[0].message.content).toContain("340 pallets");
    expect(docx.json.citations?.[0]?.filename).toBe("report.docx");
    const xlsx = await ask("What is the stock of the Gadget with SKU B-200?");
    expect(xlsx.json.choices[0].message.content).toContain("75");
    expect(xlsx.json.citations?.[0]?.filename).toBe("inventory.xlsx");

    expect((await gw.call(key, "DELETE", `/v1/knowledge/${collectionId}/documents/${docs[0]!.id}`)).status).toBe(200);
    const after = await ask("After how many seconds does the emergency generator start?");
    expect(after.json.choices[0].message.content).not.toContain("eleven seconds");
  });

  it("mentioned_file_ids add a ready document's text; another company's document is 404", async () => {
    const a = await gw.tenant();
    const b = await gw.tenant();
    const { docs } = await indexed(a.key, [{ name: "memo.txt", bytes: `Memo.\n\n${FACT}` }]);
    const threadId = await gw.thread(a.key, [
      { role: "user", content: "Where is the spare valve key for turbine nine?" },
    ]);
    const run = await gw.call(a.key, "POST", `/v1/threads/${threadId}/runs`, {
      model: "local-mini",
      mentioned_file_ids: [docs[0]!.id],
    });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    expect(run.json.content).toContain("locker forty-two");
    const threadB = await gw.thread(b.key, [{ role: "user", content: "Where is the key?" }]);
    const foreign = await gw.call(b.key, "POST", `/v1/threads/${threadB}/runs`, {
      model: "local-mini",
      mentioned_file_ids: [docs[0]!.id],
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.param).toBe("mentioned_file_ids");
  });
});
