import { fetchJson } from "@/components/panel/fetch-json";

export interface ServiceSummary {
  service: string;
  title: string;
  views: { name: string; title: string }[];
}

export interface CreatedWidgetKey {
  id: string;
  name: string;
  key: string;
  scopes: string[];
}

/** A key for embedding: views and actions only (never `admin` or `chat`), made by the signed-in admin. */
export function createWidgetKey(): Promise<CreatedWidgetKey> {
  const name = `Widget embed ${new Date().toISOString().slice(0, 16).replace("T", " ")}`;
  return fetchJson<CreatedWidgetKey>("/api/panel/keys", {
    method: "POST",
    body: JSON.stringify({ name, scopes: ["view", "action"] }),
  });
}
