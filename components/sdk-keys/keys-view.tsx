"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { Button, Spinner } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorMessage } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { errorMessage } from "@/components/panel/fetch-json";
import { queryKeys } from "@/lib/query-keys";
import { fetchKeyPage, type KeyPage } from "./api";
import { CreateKeyDialog } from "./create-key-dialog";
import { KeysTable } from "./keys-table";

export function KeysView({ initialPage, loadedAt }: { initialPage: KeyPage; loadedAt: number }) {
  const query = useInfiniteQuery({
    queryKey: queryKeys.keys.list(),
    queryFn: ({ pageParam }) => fetchKeyPage(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
    initialData: { pages: [initialPage], pageParams: [null] },
    initialDataUpdatedAt: loadedAt,
  });
  const keys = query.data.pages.flatMap((p) => p.data);

  return (
    <>
      <PageHeader
        title="API keys"
        description={
          <>
            Keys authenticate your apps against the gateway&apos;s /v1 API. Each key carries scopes and its own rate
            limit; usage is billed to your company. Every route is in the{" "}
            <a
              href="/docs/api"
              className="font-medium text-indigo-600 hover:text-indigo-700"
              data-testid="api-reference-link"
            >
              API reference
            </a>
            .
          </>
        }
        actions={<CreateKeyDialog />}
      />
      {query.isError && (
        <ErrorMessage className="mb-4">Could not refresh the list: {errorMessage(query.error)}</ErrorMessage>
      )}
      <Card>
        <KeysTable keys={keys} />
        {keys.length > 0 && (
          <div className="flex items-center justify-between border-t border-slate-200 px-5 py-3 text-sm text-slate-500">
            <span data-testid="keys-count">
              {keys.length} {keys.length === 1 ? "key" : "keys"}
              {query.hasNextPage ? " shown" : ""}
            </span>
            {query.hasNextPage && (
              <Button
                variant="secondary"
                size="sm"
                onClick={() => void query.fetchNextPage()}
                disabled={query.isFetchingNextPage}
              >
                {query.isFetchingNextPage && <Spinner className="size-3.5" />}
                Load more
              </Button>
            )}
          </div>
        )}
      </Card>
    </>
  );
}
