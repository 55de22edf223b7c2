"use client";

import { useQuery } from "@tanstack/react-query";
import { queryKeys } from "@/lib/query-keys";
import { fetchModels, type ModelList } from "./api";

/** The company's catalog (hidden slugs included), seeded with what the server page rendered. */
export function useModelList(initialData: ModelList, loadedAt: number) {
  return useQuery({
    queryKey: queryKeys.models.list(),
    queryFn: fetchModels,
    initialData,
    initialDataUpdatedAt: loadedAt,
  });
}
