import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { getCollectionInCompany } from "@/lib/knowledge/collections/internal";
import { makeCollection, makeCompany, makeUser } from "../support/factories";
import { waitForDocument } from "../support/knowledge";
import { startNextServer, type RunningServer } from "../support/next-server";
import { signInToPanel } from "../support/panel-sign-in";
import { makeKey } from "../support/factories";

/**
 * The panel's knowledge endpoints (/api/panel/knowledge…) over real HTTP with an Auth.js session:
 * 401 without one, 403 cross-site, the session's company only (404 for another's ids), the
 * streamed multipart upload the page sends with XMLHttpRequest, retry, delete, and the test
 * retrieval box's endpoint.
 */
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    LOG_LEVEL: "error",
    JOBS_IDLE_CHECK_S: "1",
  });
});

afterAll(async () => {
  await server?.stop();
});

async function tenant() {
  const company = await makeCompany(db, { creditsOt: 10 });
  const { user, password } = await makeUser(db, { companyId: company.id });
  const cookie = await signInToPanel(server.url, user.email, password);
  return { company, cookie };
}

async function panel(
  cookie: string | null,
  path: string,
  init: { method?: string; body?: unknown; form?: FormData; crossSite?: boolean } = {},
) {
  const headers: Record<string, string> = init.form ? {} : { "content-type": "application/json" };
  if (cookie) headers.cookie = cookie;
  headers["sec-fetch-site"] = init.crossSite ? "cross-site" : "same-origin";
  const body = init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const res = await fetch(`${server.url}${path}`, { method: init.method ?? "GET", headers, body });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const fileForm = (name: string, text: string, folder?: string) => {
  const form = new FormData();
  if (folder) form.append("folder_path", folder);
  form.append("file", new Blob([text]), name);
  return form;
};

describe("/api/panel/knowledge", () => {
  it("without a session every endpoint is a 401; a cross-site change is a 403 and changes nothing", async () => {
    for (const [method, path] of [
      ["GET", "/api/panel/knowledge"],
      ["POST", "/api/panel/knowledge"],
      ["DELETE", "/api/panel/knowledge/kc_x"],
      ["GET", "/api/panel/knowledge/kc_x/documents"],
      ["POST", "/api/panel/knowledge/kc_x/documents"],
      ["DELETE", "/api/panel/knowledge/kc_x/documents/doc_x"],
      ["POST", "/api/panel/knowledge/kc_x/documents/doc_x/retry"],
      ["POST", "/api/panel/knowledge/kc_x/search"],
    ] as const) {
      const res = await panel(null, path, { method });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    const { company, cookie } = await tenant();
    const kc = await makeCollection(db, { companyId: company.id });
    expect((await panel(cookie, `/api/panel/knowledge/${kc.id}`, { method: "DELETE", crossSite: true })).status).toBe(
      403,
    );
    expect(
      (
        await panel(cookie, `/api/panel/knowledge/${kc.id}/documents`, {
          method: "POST",
          form: fileForm("a.txt", "hello"),
          crossSite: true,
        })
      ).status,
    ).toBe(403);
    expect((await getCollectionInCompany(db, { companyId: company.id, collectionId: kc.id })).isActive).toBe(true);
  });

  it("create, list, upload (202) with a folder, watch it turn ready, delete it, deactivate the collection", async () => {
    const { company, cookie } = await tenant();
    const created = await panel(cookie, "/api/panel/knowledge", {
      method: "POST",
      body: { name: "Policies", description: "" },
    });
    expect(created.status).toBe(201);
    const id = created.json.id;
    expect((await panel(cookie, "/api/panel/knowledge")).json.data.map((c: { id: string }) => c.id)).toEqual([id]);

    const up = await panel(cookie, `/api/panel/knowledge/${id}/documents`, {
      method: "POST",
      form: fileForm("leave.md", "# Leave\n\nTwenty days a year.", "hr/2025"),
    });
    expect(up.status).toBe(202);
    expect(up.json).toMatchObject({ status: "pending", folder_path: "hr/2025", filename: "leave.md" });
    // Poll through the API as a client would (the page polls the panel list the same way).
    const { secret } = await makeKey(db, { companyId: company.id });
    expect((await waitForDocument(server.url, secret, id, up.json.id)).status).toBe("ready");
    expect((await panel(cookie, `/api/panel/knowledge/${id}/documents`)).json.data).toMatchObject([
      { id: up.json.id, status: "ready" },
    ]);
    // The test retrieval box: the search endpoint's ranking.
    const found = await panel(cookie, `/api/panel/knowledge/${id}/search`, {
      method: "POST",
      body: { query: "how many days of leave a year?", top_k: 3 },
    });
    expect(found.status).toBe(200);
    expect(found.json.data[0]).toMatchObject({ document_id: up.json.id, filename: "leave.md", folder_path: "hr/2025" });
    expect(found.json.data[0].chunk).toContain("Twenty days");

    const bad = await panel(cookie, `/api/panel/knowledge/${id}/documents`, {
      method: "POST",
      form: fileForm("x.exe", "MZ\u0000\u0000binary"),
    });
    expect(bad.status).toBe(415);

    expect(
      (await panel(cookie, `/api/panel/knowledge/${id}/documents/${up.json.id}`, { method: "DELETE" })).json,
    ).toMatchObject({ deleted: true });
    expect((await panel(cookie, `/api/panel/knowledge/${id}/documents`)).json.data).toEqual([]);
    expect((await panel(cookie, `/api/panel/knowledge/${id}`, { method: "DELETE" })).json).toMatchObject({
      id,
      deleted: true,
    });
    expect((await panel(cookie, "/api/panel/knowledge")).json.data).toEqual([]);
  });

  it("another company's collection or document: 404", async () => {
    const other = await tenant();
    const theirs = await makeCollection(db, { companyId: other.company.id });
    const { cookie } = await tenant();
    expect((await panel(cookie, `/api/panel/knowledge/${theirs.id}/documents`)).status).toBe(404);
    expect((await panel(cookie, `/api/panel/knowledge/${theirs.id}`, { method: "DELETE" })).status).toBe(404);
    expect(
      (
        await panel(cookie, `/api/panel/knowledge/${theirs.id}/documents`, {
          method: "POST",
          form: fileForm("a.txt", "hi"),
        })
      ).status,
    ).toBe(404);
  });

  it("the knowledge page and the profiles page render for a signed-in user", async () => {
    const { company, cookie } = await tenant();
    await makeCollection(db, { companyId: company.id, name: "Visible collection" });
    for (const path of ["/knowledge", "/profiles"]) {
      const res = await fetch(`${server.url}${path}`, { headers: { cookie } });
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toContain("Visible collection");
    }
  });
});
