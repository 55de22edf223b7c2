/** A small Python tokenizer for highlighting what a tool function is made of; never a parser. */
export type PyTokenKind = "keyword" | "builtin" | "string" | "comment" | "number" | "decorator" | "defname" | "plain";
export interface PyToken {
  kind: PyTokenKind;
  text: string;
}

const KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case".split(
    " ",
  ),
);
const BUILTINS = new Set(
  "abs all any bool dict enumerate filter float int isinstance len list map max min print range repr round set sorted str sum tuple type zip ValueError TypeError KeyError Exception self".split(
    " ",
  ),
);

// Order matters: comments and strings before words; triple quotes before single ones.
const TOKEN =
  /(#[^\n]*)|((?:[rRbBuUfF]{1,2})?(?:"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?))|(@[A-Za-z_][\w.]*)|(\b(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?j?)\b)|([A-Za-z_]\w*)/g;

export function tokenizePython(source: string): PyToken[] {
  const out: PyToken[] = [];
  let last = 0;
  let afterDef = false;
  for (const m of source.matchAll(TOKEN)) {
    if (m.index > last) out.push({ kind: "plain", text: source.slice(last, m.index) });
    const [text, comment, string, decorator, number, word] = m;
    let kind: PyTokenKind = "plain";
    if (comment) kind = "comment";
    else if (string) kind = "string";
    else if (decorator) kind = "decorator";
    else if (number) kind = "number";
    else if (word)
      kind = afterDef ? "defname" : KEYWORDS.has(word) ? "keyword" : BUILTINS.has(word) ? "builtin" : "plain";
    afterDef = word === "def" || word === "class";
    out.push({ kind, text });
    last = m.index + text.length;
  }
  if (last < source.length) out.push({ kind: "plain", text: source.slice(last) });
  return out;
}
