import type { PublicCollection } from "@/lib/knowledge/collections/to-public-collection";
import type { PublicDocument } from "@/lib/knowledge/documents/to-public-document";
import { fetchJson, toApiError } from "@/components/panel/fetch-json";

export type { PublicCollection, PublicDocument };
export interface PlainList<T> {
  object: "list";
  data: T[];
}

/** One ranked chunk of the test retrieval (CONTRACT 5.10). */
export interface SearchHit {
  document_id: string;
  collection_id: string;
  filename: string;
  folder_path: string | null;
  chunk: string;
  score: number;
  /** 0 to 1: the fused score over the best possible (first in both rankers). */
  relevance: number;
  ranks: { bm25: number | null; vector: number | null };
  scores: { bm25: number | null; vector: number | null };
  page?: number | null;
}

const base = (collectionId: string) => `/api/panel/knowledge/${encodeURIComponent(collectionId)}`;

export const fetchCollections = () => fetchJson<PlainList<PublicCollection>>("/api/panel/knowledge");

export const createCollectionRequest = (body: { name: string; description: string }) =>
  fetchJson<PublicCollection>("/api/panel/knowledge", { method: "POST", body: JSON.stringify(body) });

export const deactivateCollectionRequest = (id: string) => fetchJson<{ id: string }>(base(id), { method: "DELETE" });

export const fetchDocuments = (collectionId: string) =>
  fetchJson<PlainList<PublicDocument>>(`${base(collectionId)}/documents`);

export const deleteDocumentRequest = (collectionId: string, documentId: string) =>
  fetchJson<{ id: string }>(`${base(collectionId)}/documents/${encodeURIComponent(documentId)}`, { method: "DELETE" });

export const retryDocumentRequest = (collectionId: string, documentId: string) =>
  fetchJson<PublicDocument>(`${base(collectionId)}/documents/${encodeURIComponent(documentId)}/retry`, {
    method: "POST",
  });

export const searchRequest = (collectionId: string, body: { query: string; top_k?: number }) =>
  fetchJson<PlainList<SearchHit>>(`${base(collectionId)}/search`, { method: "POST", body: JSON.stringify(body) });

/**
 * Uploads with XMLHttpRequest, whose upload events report progress (fetch has none); `onProgress`
 * gets 0..1. Resolves with the document (202), rejects with the server's error as an ApiError.
 */
export function uploadDocument(
  collectionId: string,
  file: File,
  folderPath: string,
  onProgress: (fraction: number) => void,
): { done: Promise<PublicDocument>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<PublicDocument>((resolve, reject) => {
    xhr.open("POST", `${base(collectionId)}/documents`);
    xhr.responseType = "text";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: the status says enough
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as PublicDocument);
      else reject(toApiError(xhr.status, body));
    };
    xhr.onerror = () => reject(new Error("The upload failed: the connection closed"));
    xhr.onabort = () => reject(new Error("Upload cancelled"));
    const form = new FormData();
    if (folderPath.trim()) form.append("folder_path", folderPath.trim());
    form.append("file", file, file.name);
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}
