// Manifests read the way kubectl reads them (YAML 1.1 via go-yaml v2), so a
// manifest is judged as it is applied; test/check/kube-yaml.test.ts compares.
import type { ScalarTag, Tags } from "yaml";
import { parseDocuments, parseDocumentsWithPositions, type SourceDocument } from "../parse/source.ts";

/** Plain words go-yaml v2 reads as booleans, where YAML 1.2 reads strings (true/false read the same). */
const YAML11_BOOLEANS = new Set(["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"]);

/** Go's integer prefixes that the YAML 1.1 schema of the `yaml` package leaves out: 0o, 0O, 0X, 0B. */
const GO_PREFIXED = /^[-+]?0(?:[oO][0-7_]+|X[0-9a-fA-F_]+|B[01_]+)$/;

/** Whether a token may be a plain scalar that the two readings resolve differently (too wide is only slower). */
function differs(token: string): boolean {
  if (YAML11_BOOLEANS.has(token) || token === "<<") return true;
  const c = token.charCodeAt(token[0] === "-" || token[0] === "+" ? 1 : 0);
  if (!(c >= 48 && c <= 57)) return false; // numbers start with a digit, after a sign
  return /^[-+]?0[0-7_]/.test(token) || /^[-+]?0[bBoOX]/.test(token) || token.includes("_");
}

/** Words of the text that could be plain scalars: runs between white space and flow punctuation. */
const TOKEN = /[^\s,[\]{}'"#]+/g;

/** Where a word that `differs` may take starts (a superset), found by the regex engine; each word is read once, so linear. */
const WORD_START = String.raw`(?:[-+]?(?:0[0-7_bBoOX]|\d[^\s,[\]{}'"#_]*_)|(?:[yYnN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|<<):?(?![^\s,[\]{}'"#]))`;
const CANDIDATE = new RegExp(`[\\s,[\\]{}'"#]${WORD_START}`, "g");
const CANDIDATE_FIRST = new RegExp(WORD_START, "y");
const WORD = /[^\s,[\]{}'"#]+/y;

/** Whether a plain scalar or merge key reads otherwise under kubectl, in linear time; the same answer as `readsDifferentlyByWord`. */
export function readsDifferently(text: string): boolean {
  CANDIDATE_FIRST.lastIndex = 0;
  if (CANDIDATE_FIRST.test(text) && readsDifferentlyAt(text, 0) === true) return true;
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    const end = readsDifferentlyAt(text, m.index + 1);
    if (end === true) return true;
    CANDIDATE.lastIndex = end;
  }
  return false;
}

/** True if the word at `start` is a plain scalar kubectl reads otherwise; else where the word ends. */
function readsDifferentlyAt(text: string, start: number): true | number {
  WORD.lastIndex = start;
  const word = WORD.exec(text)![0];
  const key = word.endsWith(":");
  const token = key ? word.slice(0, -1) : word;
  if (token !== "" && differs(token) && wholeScalar(text, start, start + word.length, key)) return true;
  return start + word.length;
}

/** `readsDifferently` asking every word: the reference path test/check/kube-yaml.test.ts compares it with. */
export function readsDifferentlyByWord(text: string): boolean {
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const key = m[0].endsWith(":");
    const token = key ? m[0].slice(0, -1) : m[0];
    if (token === "" || !differs(token)) continue;
    if (wholeScalar(text, m.index, m.index + m[0].length, key)) return true;
  }
  return false;
}

function wholeScalar(text: string, start: number, end: number, key: boolean): boolean {
  let after = end;
  while (text[after] === " " || text[after] === "\t") after++;
  const next = text[after];
  if (!key && !(next === undefined || next === "\n" || next === "\r" || next === "#" || next === "," || next === "]" || next === "}" || next === ":"))
    return false;
  let before = start - 1;
  while (text[before] === " " || text[before] === "\t") before--;
  const previous = text[before];
  if (previous === undefined || previous === "\n" || previous === "\r" || ":-?[{,".includes(previous)) return true;
  // After an anchor or a tag (`&a yes`, `!!bool yes`): find where that word starts.
  let word = before;
  while (word > 0 && !" \t\r\n[{,".includes(text[word - 1])) word--;
  return text[word] === "&" || text[word] === "!";
}

/** The integers with Go's prefixes, as strconv.ParseInt(s, 0, 64) reads them. */
const goPrefixedInt: ScalarTag = {
  identify: (value) => typeof value === "number" && Number.isInteger(value),
  default: true,
  tag: "tag:yaml.org,2002:int",
  format: "GO",
  test: GO_PREFIXED,
  resolve(text) {
    const sign = text[0] === "-" ? -1 : 1;
    const body = text.replace(/^[-+]?0/, "").replace(/_/g, "");
    const radix = /^[oO]/.test(body) ? 8 : body[0] === "X" ? 16 : 2;
    return sign * parseInt(body.slice(1), radix);
  },
};

/** go-yaml v2's resolution in the `yaml` package: YAML 1.1 with merge keys and Go's integer prefixes, without sexagesimals and timestamps. */
export const KUBECTL_YAML = {
  version: "1.1" as const,
  schema: "yaml-1.1",
  merge: true,
  customTags: (tags: Tags) => [
    ...tags.filter((tag) => typeof tag === "string" || (tag.format !== "TIME" && tag.tag !== "tag:yaml.org,2002:timestamp")),
    goPrefixedInt,
  ],
};

/** go-yaml's reading of the text itself: quoted scalars fold over lines of any indentation. */
const GO_YAML = { goQuotes: true } as const;

/** Every document of a manifest stream, with the data kubectl would apply. */
export function parseManifests(text: string, file: string): SourceDocument[] {
  return readsDifferently(text) ? parseDocumentsWithPositions(text, file, KUBECTL_YAML, GO_YAML) : parseDocuments(text, file, GO_YAML);
}
