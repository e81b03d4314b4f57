// A property: a rendered example rewritten into equivalent spellings (a random
// choice and order from a fixed list, a fixed seed) keeps check's verdict.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { example, REWRITES, verdict } from "../support/spellings.ts";
import { runs } from "../support/runs.ts";

const EXAMPLES: [name: string, kind: string][] = [
  ["compass-runner.yaml", "DaemonSet"],
  ["compass-server.yaml", "Deployment"],
  ["compass.yaml", "DaemonSet"],
  ["rootpilot-eks.yaml", "Deployment"],
  ["rootpilot-gke.yaml", "Deployment"],
];

// Copies made before another rewrite would differ from it: giving the objects twice comes last.
const TWICE = REWRITES.findIndex((r) => r.name.includes("twice"));

describe("random rewrites into equivalent spellings", () => {
  const verdicts = new Map(EXAMPLES.map(([name]) => [name, verdict(example(name))]));

  it("change no verdict of any example", () => {
    fc.assert(
      fc.property(fc.constantFrom(...EXAMPLES), fc.shuffledSubarray([...REWRITES.keys()], { minLength: 1 }), ([name, kind], chosen) => {
        const objects = example(name);
        const order = [...chosen.filter((i) => i !== TWICE), ...chosen.filter((i) => i === TWICE)];
        for (const i of order) REWRITES[i].edit(objects, kind);
        const lines = verdict(objects).filter((line) => !(chosen.includes(TWICE) && line.startsWith("objects warning")));
        expect(lines, `${name} with ${order.map((i) => REWRITES[i].name).join(", ")}`).toEqual(verdicts.get(name));
      }),
      { seed: 39, numRuns: runs(40) },
    );
  });
});
