import { expect, type APIRequestContext } from "@playwright/test";
import type { Tenant } from "../fixtures";
import { admin } from "./admin-cli";

export interface SeededTenant {
  profileName: string;
  collectionId: string;
  threadId: string;
}

/**
 * A little of everything through the public API, as a developer would make it: a profile, a
 * collection with a ready document, a tool, a guardrail rule, and a thread with a completed run.
 */
export async function seedTenant(request: APIRequestContext, tenant: Tenant): Promise<SeededTenant> {
  const { key } = await admin<{ id: string; key: string }>(
    "key",
    "create",
    "--company",
    tenant.companyId,
    "--scopes",
    "chat",
    "--name",
    "Screenshots key",
  );
  const headers = { authorization: `Bearer ${key}` };
  const post = async <T>(path: string, data: unknown): Promise<T> => {
    const res = await request.post(path, { headers, data });
    expect(res.ok(), `${path}: ${await res.text()}`).toBe(true);
    return (await res.json()) as T;
  };

  const profileName = "Support concierge";
  await post("/v1/profiles", {
    name: profileName,
    model_slug: "local-mini",
    system_prompt: "Answer in one short sentence, politely.",
  });
  await post("/v1/tools", {
    name: "add_numbers",
    description: "Adds two numbers.",
    json_schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    python_code: "def add_numbers(a, b):\n    return a + b\n",
  });
  await post("/v1/guardrails", {
    name: "No card numbers",
    stage: "input",
    match: { type: "regex", pattern: "\\b\\d{16}\\b" },
    action: "block",
  });
  const collection = await post<{ id: string }>("/v1/knowledge", {
    name: "Product manuals",
    description: "Pumps and valves",
  });
  const upload = await request.post(`/v1/knowledge/${collection.id}/documents`, {
    headers,
    multipart: {
      file: {
        name: "pumps.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("Pump P-7 is serviced every 90 days.\n\nIts seals are replaced yearly."),
      },
    },
  });
  expect(upload.status(), await upload.text()).toBe(202);
  await expect(async () => {
    const docs = await request.get(`/v1/knowledge/${collection.id}/documents`, { headers });
    const body = (await docs.json()) as { data: { status: string }[] };
    expect(body.data.map((d) => d.status)).toEqual(["ready"]);
  }).toPass({ timeout: 60_000 });

  const thread = await post<{ id: string }>("/v1/threads", { metadata: { source: "screenshots" } });
  await post(`/v1/threads/${thread.id}/messages`, { role: "user", content: "When is pump P-7 serviced?" });
  await post(`/v1/threads/${thread.id}/runs`, { model: "local-mini" });
  return { profileName, collectionId: collection.id, threadId: thread.id };
}
