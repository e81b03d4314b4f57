// The generated validators are committed (tsc, vitest and Bun read the
// sources without a build), so they must be what the schemas generate now.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { GENERATED, generateValidators } from "../../scripts/gen-validators.ts";

it("src/core/validators/generated.ts is what scripts/gen-validators.ts writes from the schemas as they are", async () => {
  const committed = readFileSync(GENERATED, "utf8");
  const fresh = await generateValidators();
  // Compared as a flag: a diff of 600 kB of generated code helps nobody. Run
  // `node --import tsx scripts/gen-validators.ts` (every build does) and commit it.
  expect(committed === fresh, "src/core/validators/generated.ts is stale: run node --import tsx scripts/gen-validators.ts").toBe(true);
});
