// `rigging pin` reads a values file in time linear in its size, whatever
// its shape: the same keys in one mapping cost what they cost in many. As
// in linear-time.test.ts no absolute time is asserted: each size's CPU time
// (the least of up to two interleaved rounds, so a busy machine adds
// little) is compared with the linear extrapolation from the smallest
// size, and a quadratic read (the `yaml` package's own duplicate-key check
// compares each key with every key before it) lands far above the bound.
import { describe, expect, it } from "vitest";
import { imagesOf } from "../../src/pin/sites.ts";
import { applyEdits } from "../../src/pin/write.ts";

const IMAGE = "127.0.0.1:1/rigelbuild/compass-runner:main-1842-3f9c2a7d1b6e";
const PINNED = `${IMAGE}@sha256:${"a".repeat(64)}`;
const SMALL = 8_000;
const LARGE = 32_000;
const ROUNDS = 2;
/** A linear read stays near 1 on both ratios; a quadratic one lands near the size ratio (4) and above. */
const FIT_BOUND = 3;
const SHAPE_BOUND = 2;

/** `keys` keys under `maps` mappings of one values file, its image first. */
function valuesText(keys: number, maps: number): string {
  const lines = ["kind: CompassRunner", `image: ${IMAGE}`, "extra:"];
  for (let m = 0; m < maps; m++) {
    lines.push(`  m${m}:`);
    for (let k = 0; k < keys / maps; k++) lines.push(`    key${k}: ${k}`);
  }
  return `${lines.join("\n")}\n`;
}

/** What pin does with the text before and after the registry: find the images, write the digest. */
function pinText(text: string): string {
  const { sites } = imagesOf(text, "values.yaml");
  return applyEdits(text, [{ site: sites[0], value: PINNED }], "values.yaml");
}

function cpuMs(run: () => unknown): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** The least CPU time of each text over interleaved rounds (another only while `judged` fails), the test's worker answering between runs. */
async function leastTimes(texts: string[], judged: (times: number[]) => boolean): Promise<number[]> {
  const least = texts.map(() => Number.POSITIVE_INFINITY);
  pinText(texts[0]); // warm-up
  for (let round = 0; round < ROUNDS && (round === 0 || !judged(least)); round++) {
    for (const [i, text] of texts.entries()) {
      least[i] = Math.min(
        least[i],
        cpuMs(() => pinText(text)),
      );
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return least;
}

describe("pin reads a values file in linear time", () => {
  it("keys in one mapping: over the linear extrapolation from a quarter the size, and against 32 mappings of the same keys", async () => {
    const texts = [valuesText(SMALL, 1), valuesText(LARGE, 1), valuesText(LARGE, 32)];
    expect(pinText(texts[0])).toContain(`image: ${PINNED}\n`);
    const overFit = ([small, large]: number[]) => large / ((small * LARGE) / SMALL);
    const shape = ([, large, spread]: number[]) => large / spread;
    const times = await leastTimes(texts, (t) => overFit(t) < FIT_BOUND && shape(t) < SHAPE_BOUND);
    expect(overFit(times)).toBeLessThan(FIT_BOUND);
    expect(shape(times)).toBeLessThan(SHAPE_BOUND);
  }, 120_000);
});
