/** The opt-in of a model picker that lists usable models: also offer those whose provider has no key. */
export function IncludeWithoutKey({
  count,
  checked,
  onChange,
  testId,
}: {
  /** Models the picker leaves out; nothing is shown when there are none. */
  count: number;
  checked: boolean;
  onChange: (checked: boolean) => void;
  testId: string;
}) {
  if (count === 0) return null;
  return (
    <label className="mt-1.5 inline-flex items-center gap-2 text-xs text-slate-600">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
      Include providers without a key ({count} more)
    </label>
  );
}
