// `check` reads YAML as kubectl applies it. The oracle is the real kubectl on
// this machine: `kubectl label --local -f FILE -o json` decodes the file the
// way `kubectl apply -f` does (go-yaml v2, YAML 1.1 scalars) without a
// cluster; rigging's reading of the same file must give the same objects.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { KUBECTL_YAML, parseManifests, readsDifferently, readsDifferentlyByWord } from "../../src/check/kube-yaml.ts";
import { parseDocuments, parseDocumentsWithPositions } from "../../src/parse/source.ts";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";
import { runs } from "../support/runs.ts";

/** kubectl's reading of a file: the objects it would send, without the label it was asked to add. */
function kubectlReads(file: string): unknown[] {
  const out = execFileSync("kubectl", ["label", "--local", "-f", file, "rigging-probe=1", "-o", "json"], { encoding: "utf8" });
  const objects: Record<string, any>[] = [];
  // kubectl prints one JSON document per object.
  for (const chunk of out.split(/\n(?=\{)/)) if (chunk.trim()) objects.push(JSON.parse(chunk));
  for (const o of objects) {
    delete o.metadata.labels["rigging-probe"];
    if (Object.keys(o.metadata.labels).length === 0) delete o.metadata.labels;
  }
  return objects;
}

const riggingReads = (file: string) => parseManifests(readFileSync(file, "utf8"), file).map((d) => d.data);

const SCALARS = `apiVersion: v1
kind: Pod
metadata:
  name: scalars
  annotations:
    quoted-octal: "0400"
    time: 12:30
    date: 2001-12-14
    word: yesterday
spec:
  terminationGracePeriodSeconds: 1_500
  containers:
    - name: c
      image: busybox
      stdin: yes
      tty: On
      volumeMounts:
        - { name: s, mountPath: /s, readOnly: y }
  volumes:
    - name: s
      secret:
        secretName: s
        defaultMode: 0400
        items:
          - { key: a, path: a, mode: 0o600 }
          - { key: b, path: b, mode: 0644 }
    - name: t
      secret: { secretName: t, defaultMode: 0b111 }
    - name: u
      configMap: { name: u, defaultMode: 0X1ff, optional: off }
`;

const MERGE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: merged
  labels: &common
    app: x
data:
  <<: { a: "1" }
  b: "2"
`;

describe("scalars as kubectl reads them", () => {
  it.each([
    ["octal modes, YAML 1.1 booleans, underscores, Go prefixes; quoted and time-like text stays text", SCALARS],
    ["merge keys", MERGE],
  ])("%s", (_what, text) => {
    const file = tempFile(text, "manifest.yaml");
    expect(readsDifferently(text)).toBe(true);
    expect(riggingReads(file)).toEqual(kubectlReads(file));
  });

  it("a plain manifest is read the fast way, and the same as kubectl reads it", () => {
    const file = join(ROOT, "test", "fixtures", "check", "rootpilot-runner", "valid.yaml");
    expect(readsDifferently(readFileSync(file, "utf8"))).toBe(false);
    expect(riggingReads(file)).toEqual(kubectlReads(file));
  });

  it("defaultMode: 0400 is 256 (0o400), not 400", () => {
    const [pod] = riggingReads(tempFile(SCALARS, "m.yaml")) as any[];
    expect(pod.spec.volumes[0].secret.defaultMode).toBe(0o400);
  });
});

describe("quoted scalars folded over lines, as go-yaml reads them", () => {
  // A rendered example with an annotation whose quoted value goes on at a
  // line indented less than its key: go-yaml (kubectl) folds it, YAML 1.2 ends it.
  const rendered = runInProcess(["render", "examples/rootpilot-eks.yaml"]).out;
  const annotated = (value: string) => rendered.replace(/^( {2}annotations:\n)/m, `$1    note: ${value}\n`);

  it.each([
    ["double-quoted, its next line at column 1", '"spread\nover lines"', false],
    ["single-quoted, with a tab, an empty line and an escaped quote", "'spread\n\tover\n\n  it''s'", false],
    ["a line like a comment inside the quotes, and a YAML 1.1 word elsewhere (the other parse)", '"a\n# not a comment\n  b"', true],
  ])("%s: read as kubectl reads it, and checked", (_what, value, yaml11) => {
    const text = annotated(value);
    const file = tempFile(yaml11 ? text.replace("automountServiceAccountToken: false", "automountServiceAccountToken: no") : text, "folded.yaml");
    expect(readsDifferently(readFileSync(file, "utf8"))).toBe(yaml11);
    const read = riggingReads(file) as any[];
    expect(read).toEqual(kubectlReads(file));
    expect(read[1].metadata.annotations.note).toMatch(/^(spread over|a # not a comment b)/);
    expect(runInProcess(["check", file, "--kube-version", "1.33"]).code).not.toBe(2);
  });

  it("a document marker inside the quotes ends the document for both: refused, at the quote", () => {
    const text = annotated('"spread\n---\nover"');
    const file = tempFile(text, "marker.yaml");
    expect(() => kubectlReads(file)).toThrow();
    const line = text.split("\n").findIndex((l) => l.startsWith("    note: ")) + 1;
    expect(() => riggingReads(file)).toThrow(new RegExp(`:${line}:\\d+ not valid YAML: Missing closing "quote`));
  });
});

describe("an octal defaultMode judged as kubectl applies it", () => {
  // A Compass Server with P4 reads its admin token from a Secret volume mounted 0400 (CS-06).
  const server = join(ROOT, "test", "fixtures", "check", "compass-server", "warn", "CS-14.yaml");
  const text = readFileSync(server, "utf8");

  it("the corpus writes 0400 in octal and passes", () => {
    expect(text).toMatch(/defaultMode: 0400\b|defaultMode: 256\b/);
    const r = runInProcess(["check", "--format", "json", server]);
    expect(JSON.parse(r.out).filter((f: any) => f.severity === "error")).toEqual([]);
  });

  it("0400 and its decimal 256 get the same verdict; 400 (0620) does not", () => {
    const verdict = (mode: string) => {
      const file = tempFile(text.replace(/defaultMode: (0400|256)\b/g, `defaultMode: ${mode}`), "server.yaml");
      return JSON.parse(runInProcess(["check", "--format", "json", file]).out).map((f: any) => f.ruleId);
    };
    expect(verdict("0400")).toEqual(verdict("256"));
    expect(verdict("400")).toContain("CS-06");
  });
});

describe("the scan that picks the parse is conservative", () => {
  // Texts built from scalars both readings may resolve differently, in every
  // place a scalar can stand: when the scan says "same", both readings agree.
  const words = [
    "yes",
    "no",
    "on",
    "Off",
    "y",
    "n",
    "0400",
    "0o17",
    "0x1F",
    "0X1F",
    "0b11",
    "1_000",
    "08",
    "12:30",
    "true",
    "null",
    "~",
    "x",
    "say",
    "<<",
    "&a",
    "!!str",
    "'on'",
    '"0400"',
  ];
  const scalar = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }).map((ws) => ws.join(" "));
  const line = fc.oneof(
    fc.tuple(fc.constantFrom("k", "on", "a1"), scalar).map(([k, v]) => `${k}: ${v}`),
    scalar.map((v) => `- ${v}`),
    fc.array(scalar, { minLength: 1, maxLength: 3 }).map((vs) => `f: [${vs.join(", ")}]`),
    fc.tuple(scalar, scalar).map(([a, b]) => `m: {a: ${a}, b: ${b}}`),
    scalar.map((v) => `c: x # ${v}`),
  );

  it("never says `same` where kubectl reads otherwise", async () => {
    await fc.assert(
      loopProperty(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
        const text = `${lines.map((l, i) => l.replace(/^(k|on|a1|f|m|c):/, `$1${i}:`)).join("\n")}\n`;
        let kubectl: unknown;
        try {
          kubectl = parseDocumentsWithPositions(text, "t.yaml", KUBECTL_YAML).map((d) => d.data);
        } catch {
          return; // not YAML (an alias to nothing, say): refused either way
        }
        if (readsDifferently(text)) return;
        expect(parseDocuments(text, "t.yaml").map((d) => d.data)).toEqual(kubectl);
      }),
      { numRuns: runs(500) },
    );
  });
});

describe("the scan asks only the words that may read differently, and answers as asking every word", () => {
  // Near misses of every word `differs` takes, after every character that
  // may end a word (and at the start of the text), as keys and values.
  const pieces = [
    "yes",
    "Yes",
    "YES",
    "yES",
    "y",
    "n",
    "N",
    "no",
    "on",
    "ON",
    "oN",
    "off",
    "Off",
    "offf",
    "<<",
    "<",
    "0",
    "00",
    "08",
    "0400",
    "-0400",
    "+07",
    "0o17",
    "0O17",
    "0x1F",
    "0X1F",
    "0b11",
    "0B11",
    "0_1",
    "1_000",
    "-1_0",
    "+_1",
    "--1_0",
    "a_1",
    "1.5e_3",
    "12:30",
    "x",
    ":",
    "-",
    "?",
    "&a",
    "!!str",
    "#",
    ",",
    "[",
    "]",
    "{",
    "}",
    "'",
    '"',
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\u00a0",
    "\u2028",
    "\ufeff",
  ];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 24 }).map((ps) => ps.join(""));

  it("on generated near-miss texts", async () => {
    let differently = 0;
    await fc.assert(
      loopProperty(text, (t) => {
        const expected = readsDifferentlyByWord(t);
        expect(readsDifferently(t)).toBe(expected);
        if (expected) differently++;
      }),
      { numRuns: runs(5000) },
    );
    // Both answers are reached, so the comparison is not vacuous.
    expect(differently).toBeGreaterThan(100);
  });

  it("on every file of the check corpus, and the texts above", () => {
    const dir = join(ROOT, "test", "fixtures", "check");
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => /\.ya?ml$/.test(f));
    expect(files.length).toBeGreaterThan(50);
    const answers = new Set<boolean>();
    for (const [name, t] of [...files.map((f) => [f, readFileSync(join(dir, f), "utf8")]), ["SCALARS", SCALARS], ["MERGE", MERGE]]) {
      answers.add(readsDifferentlyByWord(t));
      expect(readsDifferently(t), name).toBe(readsDifferentlyByWord(t));
    }
    expect(answers.size).toBe(2);
  });

  // A quadratic scan (from every start of a word to its end, say) runs into
  // the test timeout on 2 MiB; a linear one takes milliseconds. No time is asserted.
  it.each([" 1", "1", " -1", "0", " 0_", "y", " y", "1:", "_1"])("in linear time, on 2 MiB of %j", (pattern) => {
    const hostile = pattern.repeat(Math.ceil((2 * 1024 * 1024) / pattern.length));
    expect(readsDifferently(hostile)).toBe(readsDifferentlyByWord(hostile));
    expect(readsDifferently(`x: ${hostile}`)).toBe(readsDifferentlyByWord(`x: ${hostile}`));
  });
});
