// `check` reads YAML as kubectl applies it. The oracle is the real kubectl on
// this machine: `kubectl label --local -f FILE -o json` decodes the file the
// way `kubectl apply -f` does (go-yaml v2, YAML 1.1 scalars) without a
// cluster; rigging's reading of the same file must give the same objects.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { KUBECTL_YAML, parseManifests, readsDifferently } from "../../src/check/kube-yaml.ts";
import { parseDocuments, parseDocumentsWithPositions } from "../../src/core/source.ts";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";

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

describe("an octal defaultMode judged as kubectl applies it", () => {
  // A Compass Server reads its admin token from a Secret volume mounted 0400 (CS-06).
  const server = join(ROOT, "test", "fixtures", "check", "compass-server", "valid.yaml");
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

  it("never says `same` where kubectl reads otherwise", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
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
      { numRuns: 500 },
    );
  });
});
