import { formatDate, formatDateTime, formatRelative } from "./format";

/** A Unix-seconds time as text; server and browser clocks and zones differ, hence suppressHydrationWarning. */
export function Timestamp({
  unix,
  style = "datetime",
  empty = "—",
}: {
  unix: number | null;
  style?: "datetime" | "date" | "relative";
  empty?: string;
}) {
  if (unix === null) return <span className="text-slate-400">{empty}</span>;
  const iso = new Date(unix * 1000).toISOString();
  const text = style === "relative" ? formatRelative(unix) : style === "date" ? formatDate(unix) : formatDateTime(unix);
  return (
    <time dateTime={iso} title={formatDateTime(unix)} suppressHydrationWarning>
      {text}
    </time>
  );
}
