"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { queryKeys } from "@/lib/query-keys";
import { resetModelRequest, updateModelRequest, type ModelOverrideBody } from "./api";

/**
 * Override mutations of one slug. No optimistic update: the row shows the server's view once the
 * refetch lands, and the mutation stays pending until then (onSuccess returns the refetch), so a
 * switch never flips back and forth. The playground's model list shares the query and follows.
 */
export function useModelMutations(slug: string) {
  const queryClient = useQueryClient();
  const refetch = () => queryClient.invalidateQueries({ queryKey: queryKeys.models.all });
  const update = useMutation({
    mutationFn: (body: ModelOverrideBody) => updateModelRequest(slug, body),
    onSuccess: refetch,
  });
  const reset = useMutation({
    mutationFn: () => resetModelRequest(slug),
    onSuccess: refetch,
  });
  return { update, reset };
}
