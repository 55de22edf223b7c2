import { Badge } from "@/components/ui/badge";
import { RankerScore, Relevance } from "@/components/panel/relevance";

/** One retrieval candidate as the run step records it (lib/runs/stages/retrieval.ts). */
export interface Candidate {
  document_id?: string;
  filename?: string;
  page?: number | null;
  chunk?: string;
  score?: number;
  /** Absent on runs recorded before relevance existed. */
  relevance?: number;
  lexical_score?: number | null;
  lexical_rank?: number | null;
  dense_score?: number | null;
  dense_rank?: number | null;
  used?: boolean;
}

/** The retrieval step's candidates, best first: where each came from and how each ranker placed it. */
export function CandidatesTable({ candidates }: { candidates: Candidate[] }) {
  if (candidates.length === 0) return <p className="mt-2 text-xs text-slate-500">No candidates.</p>;
  return (
    <div className="mt-2 overflow-x-auto rounded-md border border-slate-200">
      {/* Fixed layout: the file column takes what is left and truncates; narrow screens scroll. */}
      <table className="w-full min-w-[32rem] table-fixed text-left text-xs" data-testid="candidates-table">
        <thead className="bg-slate-50 text-slate-500">
          <tr>
            <th className="w-8 px-2 py-1.5 font-medium">#</th>
            <th className="px-2 py-1.5 font-medium">File</th>
            <th className="w-12 px-2 py-1.5 text-right font-medium">Page</th>
            <th className="w-24 px-2 py-1.5 font-medium">Relevance</th>
            <th className="w-20 px-2 py-1.5 font-medium">BM25</th>
            <th className="w-24 px-2 py-1.5 font-medium">Vector</th>
            <th className="w-14 px-2 py-1.5 font-medium">
              <span className="sr-only">In context</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {candidates.map((c, i) => (
            <tr key={`${c.document_id ?? ""}-${i}`} data-testid="candidate-row" className="align-top">
              <td className="px-2 py-1.5 text-slate-500 tabular-nums">{i + 1}</td>
              <td className="px-2 py-1.5">
                <div className="truncate font-medium text-slate-800" data-testid="candidate-file" title={c.filename}>
                  {c.filename ?? "—"}
                </div>
                {c.chunk && (
                  <div className="truncate text-slate-500" title={c.chunk}>
                    {c.chunk}
                  </div>
                )}
              </td>
              <td className="px-2 py-1.5 text-right text-slate-600 tabular-nums" data-testid="candidate-page">
                {c.page ?? "—"}
              </td>
              <td className="px-2 py-1.5">
                <Relevance value={c.relevance} />
              </td>
              <td className="px-2 py-1.5" data-testid="candidate-bm25">
                <RankerScore rank={c.lexical_rank ?? null} score={c.lexical_score ?? null} digits={2} />
              </td>
              <td className="px-2 py-1.5" data-testid="candidate-vector">
                <RankerScore rank={c.dense_rank ?? null} score={c.dense_score ?? null} digits={3} />
              </td>
              <td className="px-2 py-1.5">
                {c.used && (
                  <Badge tone="green" data-testid="candidate-used">
                    used
                  </Badge>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
