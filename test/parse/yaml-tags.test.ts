// The `yaml` package's tag tests and core tag values are taken at build time
// (scripts/gen-yaml-tags.ts -> src/parse/yaml-tags.ts), so that no run loads
// the package to read them. The committed file must be what the package
// gives now, and each value must be the one the package's own `resolve`
// builds (numbers compared with Object.is: -0 and NaN count). Its freshness
// is checked before the build by scripts/check-generated.mjs.
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { isScalar } from "yaml";
import { expect, it } from "vitest";
import { corePlainTags } from "../../scripts/gen-yaml-tags.ts";
import { CORE_PLAIN_TAGS } from "../../src/parse/yaml-tags.ts";
import { runs } from "../support/runs.ts";

const EDGES = ["", "~", "null", "NULL", "True", "FALSE", "0", "-0", "+0", "007", "+12", "-12", "0o0", "0o777", "0x0", "0xFFff", "99999999999999999999"];
const FLOATS = [".inf", "-.Inf", "+.INF", ".nan", ".NaN", "-0.0", "+.5", "1.", "1.50", "1e400", "-1e-400", "2E+3", ".5e1", "0.1e-0"];

it("each core tag's value is what the yaml package's resolve gives, on the scalars its test matches", async () => {
  const reference = corePlainTags();
  expect(CORE_PLAIN_TAGS.map((tag) => [tag.tag, String(tag.test)])).toEqual(reference.map((tag) => [tag.tag, String(tag.test)]));
  const expectSame = (index: number, text: string) => {
    const resolve = reference[index].resolve as (text: string, onError: (message: string) => void, options: object) => unknown;
    const resolved = resolve(text, (message) => expect.fail(`${text}: ${message}`), {});
    const expected = isScalar(resolved) ? resolved.value : resolved;
    expect(Object.is(CORE_PLAIN_TAGS[index].value(text), expected), `${reference[index].tag} ${reference[index].test}: ${JSON.stringify(text)}`).toBe(true);
  };
  let checked = 0;
  for (const [index, tag] of CORE_PLAIN_TAGS.entries()) {
    for (const text of [...EDGES, ...FLOATS].filter((text) => tag.test.test(text))) expectSame(index, text), checked++;
    await fc.assert(
      loopProperty(fc.stringMatching(tag.test), (text) => expectSame(index, text)),
      { numRuns: runs(200) },
    );
  }
  // Every edge case above is some tag's.
  expect(checked).toBeGreaterThanOrEqual(EDGES.length + FLOATS.length);
});
