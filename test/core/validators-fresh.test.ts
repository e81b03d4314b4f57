// The generated validators are committed (tsc, vitest and Bun read the
// sources without a build), so they must be what the schemas generate now.
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { expect, it } from "vitest";
import { GENERATED, generateValidators } from "../../scripts/gen-validators.ts";

it("src/core/validators/generated*.ts are what scripts/gen-validators.ts writes from the schemas as they are", async () => {
  const fresh = await generateValidators();
  const committed = readdirSync(dirname(GENERATED)).filter((name) => /^generated.*\.ts$/.test(name));
  expect(committed.sort()).toEqual([...fresh.keys()].map((file) => basename(file)).sort());
  for (const [file, text] of fresh) {
    // Compared as a flag: a diff of 100 kB of generated code helps nobody. Run
    // `node --import tsx scripts/gen-validators.ts` (every build does) and commit it.
    expect(readFileSync(file, "utf8") === text, `${basename(file)} is stale: run node --import tsx scripts/gen-validators.ts`).toBe(true);
  }
});
