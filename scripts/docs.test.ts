import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** README.md and docs/: links resolve inside the repository, no history, every variable documented. */
const ROOT = path.resolve(import.meta.dirname, "..");
const README = path.join(ROOT, "README.md");
const DOCS = path.join(ROOT, "docs");
const README_MAX_BYTES = 15_000;

const pages = [
  README,
  ...fs
    .readdirSync(DOCS)
    .filter((f) => f.endsWith(".md"))
    .map((f) => path.join(DOCS, f)),
];
const read = (file: string) => fs.readFileSync(file, "utf8");
const rel = (file: string) => path.relative(ROOT, file);

/** The text outside fenced code blocks and inline code spans, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Targets of Markdown links and images, and of `<img src>`. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  for (const m of text.matchAll(/<img\b[^>]*\bsrc="([^"]+)"/g)) targets.push(m[1]!);
  return targets;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
}

function anchors(markdown: string): Set<string> {
  const headings = [...markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1]!);
  return new Set(headings.map(slug));
}

describe("README and docs/", () => {
  it("keeps the README under 15,000 bytes", () => {
    expect(fs.statSync(README).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it.each(pages.map((p) => [rel(p), p]))(
    "%s: every relative link and image resolves inside the repository",
    (_, file) => {
      const broken: string[] = [];
      for (const target of linkTargets(read(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
        const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
        if (!resolved.startsWith(ROOT + path.sep) || !fs.existsSync(resolved)) {
          broken.push(`${target}: no such file in the repository`);
          continue;
        }
        if (anchor && resolved.endsWith(".md") && !anchors(read(resolved)).has(anchor)) {
          broken.push(`${target}: no heading with that anchor`);
        }
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(pages.map((p) => [rel(p), p]))("%s: carries no dates, issue numbers or session history", (_, file) => {
    const text = read(file);
    expect(text.match(/20\d\d-\d\d-\d\d/g) ?? []).toEqual([]);
    expect(text.match(/\bissues? #?\d+/gi) ?? []).toEqual([]);
    // A work session, not a panel session: "the fourth session", "session 3".
    const sessions =
      /\b(?:first|second|third|fourth|fifth|sixth|seventh|this|last|previous|earlier)\s+session\b|\bsession\s+\d+/gi;
    expect(text.match(sessions) ?? []).toEqual([]);
  });

  it("docs/configuration.md names every variable of lib/env.ts, db/env.ts and .env.example", () => {
    const names = new Set<string>();
    for (const file of ["lib/env.ts", "db/env.ts"]) {
      for (const m of read(path.join(ROOT, file)).matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) names.add(m[1]!);
    }
    for (const m of read(path.join(ROOT, ".env.example")).matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)) names.add(m[1]!);
    expect(names.size).toBeGreaterThan(40);
    const documented = read(path.join(DOCS, "configuration.md"));
    const missing = [...names].filter((name) => !new RegExp(`\\b${name}\\b`).test(documented));
    expect(missing).toEqual([]);
  });
});
