/** A bench result's goal rows, paired with another result's by goal (bench/compare.ts). */
export interface Verdict {
  name: string;
  value: number | null;
  unit?: string;
  target?: string;
  result?: string;
}

export interface ComparedGoal {
  goal: string;
  unit: string;
  target: string;
  previous: number | null;
  latest: number | null;
  result: string;
}

/**
 * The goal a verdict's name states, without the numbers of its run (repetitions, counts, medians
 * in brackets or parentheses), so the same goal of two runs pairs up.
 */
export function goalKey(name: string): string {
  return name
    .replace(/\s*[[(][^\])]*\d[^\])]*[\])]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Every goal of `latest` beside its value in `previous` (null where that run did not have it). */
export function compareVerdicts(previous: Verdict[], latest: Verdict[]): ComparedGoal[] {
  const before = new Map(previous.map((v) => [goalKey(v.name), v]));
  return latest.map((v) => {
    const goal = goalKey(v.name);
    return {
      goal,
      unit: v.unit ?? "",
      target: v.target ?? "",
      previous: before.get(goal)?.value ?? null,
      latest: v.value,
      result: v.result ?? "",
    };
  });
}
