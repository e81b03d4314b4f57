// The kubelet's $(VAR) expansion (k8s.io/kubernetes
// third_party/forked/golang/expansion/expand.go), in one pass.

/** How long an expanded value may grow: chained references double at each step, so a few lines could otherwise fill memory. */
export const EXPANDED_LIMIT = 1 << 20;

/** `text` with each `$(NAME)` that `known` has replaced, `$$` as `$`, anything else as written; undefined past EXPANDED_LIMIT. */
export function expand(text: string, known: (name: string) => string | undefined): string | undefined {
  if (!text.includes("$")) return text;
  // The next ")" after each position, so an unterminated "$(" costs no rescan.
  const closeAfter = new Int32Array(text.length + 1).fill(-1);
  for (let i = text.length - 1; i >= 0; i--) closeAfter[i] = text.charCodeAt(i) === 41 ? i : closeAfter[i + 1];
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < text.length; cursor++) {
    if (text[cursor] !== "$" || cursor + 1 >= text.length) continue;
    out += text.slice(checkpoint, cursor);
    const next = text[cursor + 1];
    if (next === "$") out += "$";
    else if (next === "(" && closeAfter[cursor + 2] >= 0) {
      const end = closeAfter[cursor + 2];
      const name = text.slice(cursor + 2, end);
      out += known(name) ?? `$(${name})`;
      if (out.length > EXPANDED_LIMIT) return undefined;
      cursor = end - 1;
    } else out += `$${next}`;
    cursor += 1;
    checkpoint = cursor + 1;
  }
  return out + text.slice(checkpoint);
}

/** The names `text` refers to as `$(NAME)`, as expand reads them. */
export function references(text: string): string[] {
  const names: string[] = [];
  expand(text, (name) => {
    names.push(name);
    return undefined;
  });
  return names;
}
