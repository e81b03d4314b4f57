// Input text is escaped before it reaches a terminal, where control
// characters could move the cursor or hide text.

/** Controls that could drive or reorder a terminal. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `text` with every unprintable character written as an escape (`\n`, `\u001b`). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Each line of `text` made printable, the line breaks kept. */
export function printableLines(text: string): string {
  return text.split("\n").map(printable).join("\n");
}
