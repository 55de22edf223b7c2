"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type DragEvent, type FormEvent } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button, Spinner } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ErrorMessage, Input, Label } from "@/components/ui/input";
import { Table, TableMessage, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { CopyId } from "@/components/panel/copy-id";
import { errorMessage } from "@/components/panel/fetch-json";
import { Timestamp } from "@/components/panel/timestamp";
import { RankerScore, Relevance } from "@/components/panel/relevance";
import { queryKeys } from "@/lib/query-keys";
import {
  deleteDocumentRequest,
  fetchDocuments,
  retryDocumentRequest,
  searchRequest,
  uploadDocument,
  type PublicCollection,
  type PublicDocument,
  type SearchHit,
} from "./api";

/** How often the list refreshes while a document is still being indexed. */
const PENDING_POLL_MS = 1_500;
const ACCEPT = ".pdf,.txt,.md,.markdown,.docx,.xlsx,.doc,.xls";
const STATUS_TONE: Record<string, BadgeTone> = { pending: "amber", ready: "green", failed: "red" };

interface UploadItem {
  key: string;
  name: string;
  progress: number;
  state: "uploading" | "done" | "error";
  error?: string;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

export function DocumentsPanel({ collection, maxUploadMb }: { collection: PublicCollection; maxUploadMb: number }) {
  const queryClient = useQueryClient();
  const docs = useQuery({
    queryKey: queryKeys.knowledge.documents(collection.id),
    queryFn: () => fetchDocuments(collection.id),
    // Live status without reloading: poll while any document is still pending.
    refetchInterval: (q) => (q.state.data?.data.some((d) => d.status === "pending") ? PENDING_POLL_MS : false),
  });
  const [uploads, setUploads] = useState<UploadItem[]>([]);
  const [folder, setFolder] = useState("");
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const patch = (key: string, change: Partial<UploadItem>) =>
    setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...change } : u)));

  function start(files: FileList | File[]) {
    for (const file of Array.from(files)) {
      const key = `${Date.now()}-${Math.random()}`;
      setUploads((list) => [...list, { key, name: file.name, progress: 0, state: "uploading" }]);
      if (file.size > maxUploadMb * 1024 * 1024) {
        patch(key, { state: "error", error: `Larger than the ${maxUploadMb} MB limit` });
        continue;
      }
      const { done } = uploadDocument(collection.id, file, folder, (p) => patch(key, { progress: p }));
      done.then(
        async () => {
          patch(key, { state: "done", progress: 1 });
          await queryClient.invalidateQueries({ queryKey: queryKeys.knowledge.all });
          // The row now shows in the list with its status: the finished bar can go.
          setTimeout(() => setUploads((list) => list.filter((u) => u.key !== key)), 1_500);
        },
        (err: unknown) => patch(key, { state: "error", error: errorMessage(err) }),
      );
    }
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    if (event.dataTransfer.files.length) start(event.dataTransfer.files);
  }

  const list = docs.data?.data ?? [];
  const folders = new Map<string, PublicDocument[]>();
  for (const d of list) {
    const k = d.folder_path ?? "";
    folders.set(k, [...(folders.get(k) ?? []), d]);
  }
  const groups = [...folders.entries()].sort(([a], [b]) => a.localeCompare(b));

  return (
    <>
      <Card>
        <CardHeader
          title="Upload"
          description={`PDF, TXT, Markdown, DOCX, XLSX, DOC or XLS, up to ${maxUploadMb} MB each.`}
        />
        <div className="space-y-4 px-5 py-4">
          <div className="max-w-sm">
            <Label htmlFor="kn-folder">Folder (optional)</Label>
            <Input
              id="kn-folder"
              value={folder}
              onChange={(e) => setFolder(e.target.value)}
              placeholder="e.g. policies/2025"
              data-testid="folder-path"
            />
          </div>
          <div
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={onDrop}
            className={cn(
              "flex flex-col items-center justify-center rounded-lg border-2 border-dashed px-6 py-8 text-center text-sm text-slate-500",
              dragging ? "border-indigo-400 bg-indigo-50/50" : "border-slate-300",
            )}
            data-testid="drop-zone"
          >
            <p>Drop files here, or</p>
            <Button
              variant="secondary"
              size="sm"
              className="mt-2"
              onClick={() => input.current?.click()}
              data-testid="choose-files"
            >
              Choose files
            </Button>
            <input
              ref={input}
              type="file"
              multiple
              accept={ACCEPT}
              className="sr-only"
              data-testid="file-input"
              onChange={(e) => {
                if (e.target.files?.length) start(e.target.files);
                e.target.value = "";
              }}
            />
          </div>
          {uploads.length > 0 && (
            <ul className="space-y-2" data-testid="uploads">
              {uploads.map((u) => (
                <li key={u.key} data-testid="upload-item" data-state={u.state} data-name={u.name}>
                  <div className="flex justify-between text-xs text-slate-600">
                    <span className="truncate">{u.name}</span>
                    <span>{u.state === "error" ? "failed" : `${Math.round(u.progress * 100)} %`}</span>
                  </div>
                  <div
                    className="mt-1 h-1.5 overflow-hidden rounded bg-slate-100"
                    role="progressbar"
                    aria-label={`Upload of ${u.name}`}
                    aria-valuemin={0}
                    aria-valuemax={100}
                    aria-valuenow={Math.round(u.progress * 100)}
                  >
                    <div
                      className={cn("h-full", u.state === "error" ? "bg-rose-500" : "bg-indigo-500")}
                      style={{ width: `${Math.round(u.progress * 100)}%` }}
                    />
                  </div>
                  {u.error && (
                    <p role="alert" className="mt-1 text-xs text-rose-600">
                      {u.error}
                    </p>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      </Card>

      <Card>
        <CardHeader title="Documents" description="The 500 most recent, newest first." />
        {docs.isError && (
          <ErrorMessage className="mx-5 my-3">Could not load the documents: {errorMessage(docs.error)}</ErrorMessage>
        )}
        {!docs.isPending && list.length === 0 ? (
          <EmptyState title="No documents yet">
            Drop files above or pick them. Each is split and indexed in the background, then the test below and every
            run that uses this collection can search it.
          </EmptyState>
        ) : (
          <Table data-testid="documents-table" stackOnPhone>
            <THead>
              <tr>
                <TH>File</TH>
                <TH>Status</TH>
                <TH className="hidden md:table-cell">Size</TH>
                <TH className="hidden lg:table-cell">Uploaded</TH>
                <TH>
                  <span className="sr-only">Actions</span>
                </TH>
              </tr>
            </THead>
            <TBody>
              {docs.isPending ? (
                <TableMessage colSpan={5}>
                  <Spinner />
                </TableMessage>
              ) : (
                groups.flatMap(([folderPath, rows]) => [
                  ...(groups.length > 1 || folderPath
                    ? [
                        <TR key={`folder:${folderPath}`} data-testid="folder-row">
                          <TD className="bg-slate-50 text-xs font-medium text-slate-600" colSpan={5}>
                            {folderPath ? `📁 ${folderPath}` : "No folder"}
                          </TD>
                        </TR>,
                      ]
                    : []),
                  ...rows.map((d) => <DocumentRow key={d.id} doc={d} collectionId={collection.id} />),
                ])
              )}
            </TBody>
          </Table>
        )}
      </Card>

      <TestRetrieval collectionId={collection.id} />
    </>
  );
}

function DocumentRow({ doc, collectionId }: { doc: PublicDocument; collectionId: string }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.knowledge.all });
  const retry = useMutation({ mutationFn: () => retryDocumentRequest(collectionId, doc.id), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => deleteDocumentRequest(collectionId, doc.id), onSuccess: refresh });
  return (
    <TR data-testid="document-row" data-document-id={doc.id} data-filename={doc.filename} data-status={doc.status}>
      <TD className="sm:max-w-96">
        <div className="truncate text-sm font-medium text-slate-900" title={doc.filename}>
          {doc.filename}
        </div>
        <CopyId id={doc.id} label="document id" className="mt-0.5" />
        {doc.status === "failed" && doc.error && (
          <p className="mt-0.5 text-xs text-rose-600" data-testid="document-error">
            {doc.error}
          </p>
        )}
        {(retry.isError || remove.isError) && (
          <p role="alert" className="mt-0.5 text-xs text-rose-600">
            {errorMessage(retry.error ?? remove.error)}
          </p>
        )}
      </TD>
      <TD>
        <Badge tone={STATUS_TONE[doc.status] ?? "neutral"} dot data-testid="document-status">
          {doc.status === "ready" ? `ready · ${doc.chunk_count} chunk${doc.chunk_count === 1 ? "" : "s"}` : doc.status}
        </Badge>
      </TD>
      <TD className="hidden text-xs whitespace-nowrap md:table-cell">{formatBytes(doc.size_bytes)}</TD>
      <TD className="hidden lg:table-cell">
        <Timestamp unix={doc.created_at} style="relative" />
      </TD>
      <TD align="right">
        <div className="flex justify-end gap-1">
          {doc.status === "failed" && (
            <Button
              variant="ghost"
              size="sm"
              onClick={() => retry.mutate()}
              disabled={retry.isPending}
              data-testid="retry-document"
            >
              Retry
            </Button>
          )}
          <Button
            variant="danger-ghost"
            size="sm"
            onClick={() => remove.mutate()}
            disabled={remove.isPending}
            aria-label={`Delete ${doc.filename}`}
            data-testid="delete-document"
          >
            Delete
          </Button>
        </div>
      </TD>
    </TR>
  );
}

function TestRetrieval({ collectionId }: { collectionId: string }) {
  const [query, setQuery] = useState("");
  const search = useMutation({ mutationFn: (q: string) => searchRequest(collectionId, { query: q, top_k: 5 }) });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (query.trim()) search.mutate(query.trim());
  }
  const hits: SearchHit[] = search.data?.data ?? [];
  return (
    <Card>
      <CardHeader
        title="Test retrieval"
        description="What runs would find in this collection for a question: the ranked chunks with their sources, a relevance from 0 to 1 (1 = first for both rankers) and each ranker's rank and score."
      />
      <form onSubmit={onSubmit} className="flex gap-2 px-5 py-4">
        <Input
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="Ask a question…"
          aria-label="Retrieval query"
          data-testid="search-query"
        />
        <Button type="submit" disabled={search.isPending || !query.trim()} data-testid="search-submit">
          {search.isPending && <Spinner />}
          Search
        </Button>
      </form>
      {search.isError && <ErrorMessage className="mx-5 mb-4">{errorMessage(search.error)}</ErrorMessage>}
      {search.isSuccess && (
        <ol className="divide-y divide-slate-100 border-t border-slate-200" data-testid="search-results">
          {hits.length === 0 ? (
            <li className="px-5 py-4 text-sm text-slate-500">Nothing relevant found.</li>
          ) : (
            hits.map((h, i) => (
              <li key={`${h.document_id}-${i}`} className="px-5 py-3" data-testid="search-hit">
                <div className="flex items-center justify-between gap-3 text-xs text-slate-500">
                  <span className="truncate">
                    {i + 1}. {h.folder_path ? `${h.folder_path}/` : ""}
                    {h.filename}
                    {h.page ? ` · page ${h.page}` : ""}
                  </span>
                  <Relevance value={h.relevance} />
                </div>
                <div className="mt-0.5 flex gap-3 text-xs text-slate-500" data-testid="search-hit-rankers">
                  <span>
                    BM25 <RankerScore rank={h.ranks.bm25} score={h.scores.bm25} digits={2} />
                  </span>
                  <span>
                    vector <RankerScore rank={h.ranks.vector} score={h.scores.vector} digits={3} />
                  </span>
                  <span
                    className="ml-auto font-mono text-slate-400"
                    title="Fused reciprocal-rank score (the API's score)"
                  >
                    {h.score.toFixed(4)}
                  </span>
                </div>
                <p className="mt-1 line-clamp-4 text-sm whitespace-pre-wrap text-slate-800">{h.chunk}</p>
              </li>
            ))
          )}
        </ol>
      )}
    </Card>
  );
}
