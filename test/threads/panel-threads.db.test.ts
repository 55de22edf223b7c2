import { describe, expect, it } from "vitest";
import { listPanelThreads, PanelThreadListQuery } from "@/lib/threads";
import { makeCompany, makeRun, makeThread } from "../support/factories";
import { withRollback } from "../support/with-rollback";

const query = (params: Record<string, string | number>) => PanelThreadListQuery.parse({ limit: 20, ...params });

describe("the panel's thread list", () => {
  it("previews each thread with its first user message, cut to a line", () =>
    withRollback(async (tx) => {
      const company = await makeCompany(tx);
      const parcel = await makeThread(tx, {
        companyId: company.id,
        messages: [
          { role: "system", content: "You are a courier's assistant." },
          { role: "user", content: "Where is   my\nparcel?" },
        ],
      });
      const parts = await makeThread(tx, {
        companyId: company.id,
        messages: [
          {
            role: "user",
            content: [
              { type: "image_url", image_url: { url: "https://example.test/a.png" } },
              { type: "text", text: "What is in this picture?" },
            ],
          },
        ],
      });
      const long = await makeThread(tx, {
        companyId: company.id,
        messages: [{ role: "user", content: "x".repeat(500) }],
      });
      const empty = await makeThread(tx, { companyId: company.id });

      const page = await listPanelThreads(tx, { companyId: company.id, query: query({}) });
      const byId = new Map(page.data.map((t) => [t.id, t]));
      expect(byId.get(parcel.id)).toMatchObject({ preview: "Where is my parcel?", match: null, object: "thread" });
      expect(byId.get(parts.id)!.preview).toBe("What is in this picture?");
      expect(byId.get(long.id)!.preview!.length).toBeLessThanOrEqual(161);
      expect(byId.get(long.id)!.preview!.endsWith("…")).toBe(true);
      expect(byId.get(empty.id)!.preview).toBeNull();
    }));

  it("searches the messages' text in any case, company-scoped, with LIKE wildcards taken literally, and pages", () =>
    withRollback(async (tx) => {
      const company = await makeCompany(tx);
      const other = await makeCompany(tx);
      const hit = await makeThread(tx, {
        companyId: company.id,
        messages: [{ role: "user", content: "Hello there" }],
      });
      await makeRun(tx, { companyId: company.id, threadId: hit.id, answer: "Your PARCEL left the depot at 9." });
      await makeThread(tx, { companyId: company.id, messages: [{ role: "user", content: "Refund please" }] });
      const percent = await makeThread(tx, {
        companyId: company.id,
        messages: [{ role: "user", content: [{ type: "text", text: "A 100% discount_code" }] }],
      });
      const foreign = await makeThread(tx, { companyId: other.id, messages: [{ role: "user", content: "my parcel" }] });

      const found = await listPanelThreads(tx, { companyId: company.id, query: query({ q: "parcel" }) });
      expect(found.data.map((t) => t.id)).toEqual([hit.id]);
      // The preview is the first user message; the match shows why the thread was found.
      expect(found.data[0]).toMatchObject({ preview: "Hello there", match: "Your PARCEL left the depot at 9." });
      expect(
        (await listPanelThreads(tx, { companyId: other.id, query: query({ q: "parcel" }) })).data.map((t) => t.id),
      ).toEqual([foreign.id]);

      // % and _ are text, not wildcards: "100%" matches only the thread that says it, "_" only an underscore.
      expect(
        (await listPanelThreads(tx, { companyId: company.id, query: query({ q: "100%" }) })).data.map((t) => t.id),
      ).toEqual([percent.id]);
      expect(
        (await listPanelThreads(tx, { companyId: company.id, query: query({ q: "%" }) })).data.map((t) => t.id),
      ).toEqual([percent.id]);
      expect((await listPanelThreads(tx, { companyId: company.id, query: query({ q: "t_e" }) })).data).toEqual([]);
      expect(
        (await listPanelThreads(tx, { companyId: company.id, query: query({ q: "discount_code" }) })).data,
      ).toHaveLength(1);
      // A blank search lists everything.
      expect((await listPanelThreads(tx, { companyId: company.id, query: query({ q: "  " }) })).data).toHaveLength(3);

      // Paging keeps the filter: two matching threads, one per page (rows of one transaction share
      // created_at, so their order is the ids').
      const second = await makeThread(tx, {
        companyId: company.id,
        messages: [{ role: "user", content: "parcel again" }],
      });
      const first = await listPanelThreads(tx, { companyId: company.id, query: query({ q: "parcel", limit: 1 }) });
      expect(first.hasMore).toBe(true);
      const next = await listPanelThreads(tx, {
        companyId: company.id,
        query: query({ q: "parcel", limit: 1, after: first.data[0]!.id }),
      });
      expect(next.hasMore).toBe(false);
      expect([...first.data, ...next.data].map((t) => t.id).sort()).toEqual([hit.id, second.id].sort());
    }));

  it("refuses a search longer than 200 characters or with a NUL", () => {
    expect(() => query({ q: "a".repeat(201) })).toThrow();
    expect(() => query({ q: "a\u0000b" })).toThrow();
    expect(query({ q: "a".repeat(200) }).q).toHaveLength(200);
  });
});
