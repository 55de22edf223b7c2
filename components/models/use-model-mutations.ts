"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { queryKeys } from "@/lib/query-keys";
import { resetModelRequest, updateModelRequest, type ModelOverrideBody } from "./api";

/**
 * Override mutations of one slug. No optimistic update: the mutation stays pending until the
 * refetch lands, so a switch never flips back and forth.
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
