// G-01: every refusal of a values file in one run, in the order of the file.
// Each kind's example gets three independent mistakes from three stages of
// validation (an unknown key, a value of the wrong type, a rule that needs
// more than one key), placed so that file order is not stage order.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";

interface Refusal {
  line: number;
  path: string;
  id: string;
  message: string;
}

/** The refusals render prints on stderr, as written: `error FILE:LINE:COL path: message (ID: fix)`. */
function refusals(text: string): { code: number; refusals: Refusal[]; err: string } {
  const r = runInProcess(["render", tempFile(text)]);
  const found = [...r.err.matchAll(/^error \S+?:(\d+):\d+ (\S+): (.*) \(([A-Z]+-\d+): .*\)$/gm)].map((m) => ({
    line: Number(m[1]),
    path: m[2],
    message: m[3],
    id: m[4],
  }));
  return { code: r.code, refusals: found, err: r.err };
}

const example = (name: string) => readFileSync(join(ROOT, "examples", name), "utf8");

/** `text` with `from` (a whole line, once) replaced by `to`. */
function edit(text: string, from: RegExp, to: string): string {
  expect(text).toMatch(from);
  return text.replace(from, to);
}

/** The last key of a printed path: `runner.guestCpus` -> guestCpus, `nodeSelector["kubernetes.io/arch"]` -> kubernetes.io/arch. */
const lastKey = (path: string) => /(?:\["([^"]+)"\]|([^.[\]]+))$/.exec(path)!.slice(1).find(Boolean)!;

describe("render reports every refusal of a values file at once, in file order", () => {
  it.each([
    {
      kind: "CompassRunner",
      file: "compass-runner.yaml",
      edits: [
        [/^kind: CompassRunner$/m, "kind: CompassRunner\nbogusKey: 1"],
        [/^tokenExpirationSeconds: 3600$/m, "tokenExpirationSeconds: 90000"],
        [/^guestCpus: 2$/m, "guestCpus: two"],
      ],
      expected: [
        ["bogusKey", "G-01", /^unknown key$/],
        ["tokenExpirationSeconds", "CR-03", /is above maxTokenLifetimeSeconds \(86400\)/],
        ["guestCpus", "CR-19", /"two" expected a number/],
      ],
    },
    {
      kind: "CompassServer",
      file: "compass-server.yaml",
      edits: [
        [/^kind: CompassServer$/m, "kind: CompassServer\nnodeSelector:\n  kubernetes.io/arch: amd64"],
        [/^replicas: 1$/m, "replicas: one"],
        [/^publicHost: (.*)$/m, "publicHost: $1\nbogusKey: 1"],
      ],
      expected: [
        ['nodeSelector["kubernetes.io/arch"]', "CS-10", /pins the Server to amd64/],
        ["replicas", "CS-01", /"one" must be 1/],
        ["bogusKey", "G-01", /^unknown key$/],
      ],
    },
    {
      kind: "Compass",
      file: "compass.yaml",
      edits: [
        [/^kind: Compass$/m, "kind: Compass\nbogusKey: 1"],
        [/^ {2}tokenExpirationSeconds: 3600$/m, "  tokenExpirationSeconds: 90000"],
        [/^ {2}guestCpus: 2$/m, "  guestCpus: two"],
      ],
      expected: [
        ["bogusKey", "G-01", /^unknown key$/],
        ["runner.tokenExpirationSeconds", "CR-03", /is above maxTokenLifetimeSeconds \(86400\)/],
        ["runner.guestCpus", "CR-19", /"two" expected a number/],
      ],
    },
    {
      kind: "RootpilotRunner",
      file: "rootpilot-eks.yaml",
      edits: [
        [/^replicas: 3$/m, "replicas: three"],
        [/^drainTimeoutMs: 300000$/m, "drainTimeoutMs: 300000\nterminationGracePeriodSeconds: 100"],
        [/^nodeSelector:$/m, "bogusKey: 1\nnodeSelector:"],
      ],
      expected: [
        ["replicas", "RP-01", /"three" expected a number/],
        ["terminationGracePeriodSeconds", "RP-03", /is not above the drain timeout of 300 s/],
        ["bogusKey", "G-01", /^unknown key$/],
      ],
    },
  ] as const)("$kind: an unknown key, a wrong type and a rule of several keys, all three", ({ file, edits, expected }) => {
    let text = example(file);
    for (const [from, to] of edits) text = edit(text, from, to);
    const { code, refusals: found, err } = refusals(text);
    expect(code, err).toBe(1);
    expect(err).toContain(`${found.length} error(s); nothing was rendered`);
    expect(found.map((r) => [r.path, r.id, r.message])).toEqual(expected.map(([path, id, message]) => [path, id, expect.stringMatching(message)]));
    // In the order of the file: the lines the edits wrote, ascending.
    const lines = found.map((r) => r.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    for (const r of found) expect(text.split("\n")[r.line - 1]).toContain(lastKey(r.path));
  });

  it("a rule that reads a refused value is skipped for that value only; the other rules of several keys still judge", () => {
    let text = example("compass-runner.yaml");
    text = edit(text, /^tokenExpirationSeconds: 3600$/m, 'tokenExpirationSeconds: "3600"');
    text = edit(text, /^ {2}runtimeRoot: .*$/m, "  runtimeRoot: /var/lib/compass/sessions/runtime");
    text = edit(text, /^nodeSelector:\n {2}key: .*\n {2}value: .*$/m, "nodeSelector:\n  key: kubernetes.io/arch\n  value: arm64");
    const { code, refusals: found } = refusals(text);
    expect(code).toBe(1);
    expect(found.map((r) => [r.path, r.id])).toEqual([
      ["tokenExpirationSeconds", "CR-03"],
      ["nodeSelector.value", "CR-13"],
      ["hostPaths.runtimeRoot", "CR-11"],
    ]);
    // CR-03's comparison with maxTokenLifetimeSeconds needs the refused value: only its type error is said.
    expect(found[0].message).toMatch(/expected a number/);
  });

  it("a Compass file: a refused key in the runner section leaves the runner's other rules of several keys judging", () => {
    let text = example("compass.yaml");
    text = edit(text, /^ {2}guestCpus: 2$/m, "  guestCpus: two");
    text = edit(text, /^ {2}namespace: compass( .*)?$/m, "  namespace: compass-runner");
    const { refusals: found } = refusals(text);
    expect(found.map((r) => [r.path, r.id])).toEqual([
      ["server.namespace", "CR-06"],
      ["runner.guestCpus", "CR-19"],
    ]);
  });
});
