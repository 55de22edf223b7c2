"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { Button, Spinner } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { Timestamp } from "@/components/panel/timestamp";
import { queryKeys } from "@/lib/query-keys";
import { fetchMessages, type PublicMessage } from "./api";

interface Part {
  type?: string;
  text?: string;
  image_url?: { url?: string; mime_type?: string; size_bytes?: number; detail?: string };
}

/** A stored image is its URL, or `sha256:<hex>` for a data: image (lib/threads/storable-content.ts). */
function ImagePart({ image }: { image: NonNullable<Part["image_url"]> }) {
  const url = image.url ?? "";
  const label = url.startsWith("sha256:") ? `${url.slice(0, 19)}…` : url;
  return (
    <span
      className="inline-flex max-w-full items-center gap-1.5 text-xs text-slate-600"
      data-testid="image-part"
      title={url}
    >
      <Badge tone="indigo">image</Badge>
      <span className="truncate font-mono">{label}</span>
      {image.mime_type && <span className="text-slate-400">{image.mime_type}</span>}
    </span>
  );
}

function Content({ content }: { content: unknown }) {
  if (typeof content === "string") return <p className="text-sm whitespace-pre-wrap text-slate-800">{content}</p>;
  if (!Array.isArray(content)) return <pre className="text-xs text-slate-600">{JSON.stringify(content)}</pre>;
  return (
    <div className="space-y-1.5">
      {(content as Part[]).map((part, i) => {
        if (part.type === "text") {
          return (
            <p key={i} className="text-sm whitespace-pre-wrap text-slate-800">
              {part.text}
            </p>
          );
        }
        if (part.type === "image_url" && part.image_url) return <ImagePart key={i} image={part.image_url} />;
        return (
          <Badge key={i} data-testid="other-part">
            {part.type ?? "part"}
          </Badge>
        );
      })}
    </div>
  );
}

/** The thread's messages in order (oldest first), each with a link to the run that added it. */
export function MessageList({ threadId, onOpenRun }: { threadId: string; onOpenRun: (runId: string) => void }) {
  const query = useInfiniteQuery({
    queryKey: queryKeys.threads.messages(threadId),
    queryFn: ({ pageParam }) => fetchMessages(threadId, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
  });
  const messages = (query.data?.pages ?? []).flatMap((p) => p.data);

  return (
    <Card data-testid="messages">
      <CardHeader
        title="Messages"
        description="Oldest first. Images are shown as stored: their URL, or the SHA-256 of an inline image."
      />
      {query.isError && (
        <ErrorMessage className="m-4">Could not load messages: {errorMessage(query.error)}</ErrorMessage>
      )}
      {query.isPending && (
        <div className="flex justify-center py-8">
          <Spinner className="size-4 text-slate-400" />
        </div>
      )}
      {!query.isPending && messages.length === 0 && (
        <p className="px-5 py-8 text-center text-sm text-slate-500">No messages in this thread.</p>
      )}
      <ol className="divide-y divide-slate-100">
        {messages.map((m) => (
          <MessageRow key={m.id} message={m} onOpenRun={onOpenRun} />
        ))}
      </ol>
      {query.hasNextPage && (
        <div className="border-t border-slate-200 px-5 py-3">
          <Button
            variant="secondary"
            size="sm"
            onClick={() => void query.fetchNextPage()}
            disabled={query.isFetchingNextPage}
          >
            {query.isFetchingNextPage && <Spinner className="size-3.5" />}
            Load more
          </Button>
        </div>
      )}
    </Card>
  );
}

function MessageRow({ message, onOpenRun }: { message: PublicMessage; onOpenRun: (runId: string) => void }) {
  return (
    <li className="px-5 py-3" data-testid="message-row" data-message-id={message.id} data-role={message.role}>
      <div className="mb-1 flex flex-wrap items-center gap-2 text-xs text-slate-500">
        <Badge tone={message.role === "assistant" ? "indigo" : "neutral"} data-testid="message-role">
          {message.role}
        </Badge>
        <Timestamp unix={message.created_at} />
        {message.run_id && (
          <button
            type="button"
            className="font-mono text-indigo-600 hover:underline"
            onClick={() => onOpenRun(message.run_id!)}
            data-testid="message-run-link"
          >
            {message.run_id}
          </button>
        )}
      </div>
      <Content content={message.content} />
    </li>
  );
}
