// rigging check refuses what the API server refuses, and only that: every
// mutant of the catalog (support/mutations.ts) over the common kinds and
// every object the examples render goes to a strict server-side dry run and
// to `rigging check --schema-only`; any disagreement fails, printed with its
// class, kind, field and both verdicts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControlPlane, type ControlPlane } from "./support/control-plane.ts";
import { differential, schemasOf, type Trial } from "./support/differential.ts";
import { CATALOG } from "./support/mutations.ts";
import { serverMinor } from "./support/openapi.ts";

const NOT_JUDGED = new Set(CATALOG.filter((c) => c.notJudged !== undefined).map((c) => c.name));

let cp: ControlPlane;
let trials: Trial[];

beforeAll(async () => {
  cp = await startControlPlane();
  const minor = await serverMinor(cp);
  trials = await differential(cp, schemasOf(minor), minor);
}, 600_000);
afterAll(async () => {
  await cp?.stop();
});

const shown = (t: Trial) =>
  `${t.class}: ${t.kind} ${t.field || "(as written)"}: the API server ${t.server.refused ? "refuses" : "accepts"} (${t.server.message}); rigging ${t.rigging.refused ? "refuses" : "accepts"} (${t.rigging.message})`;

describe("rigging check against the API server's strict dry run", () => {
  it("accepts every object as written, as the API server does", () => {
    const valid = trials.filter((t) => t.class === "valid object");
    expect(valid.length).toBeGreaterThan(40);
    expect(valid.filter((t) => t.server.refused || t.rigging.refused).map(shown)).toEqual([]);
  });

  it("gives the API server's verdict on every mutant of the catalog", () => {
    expect(trials.length).toBeGreaterThan(1000);
    expect(trials.filter((t) => !NOT_JUDGED.has(t.class) && t.server.refused !== t.rigging.refused).map(shown)).toEqual([]);
  });

  it("refuses nothing in a class it does not judge (what depends on the cluster), where the API server may refuse", () => {
    const apart = trials.filter((t) => NOT_JUDGED.has(t.class));
    expect(apart.length).toBeGreaterThan(0);
    expect(apart.filter((t) => t.rigging.refused).map(shown)).toEqual([]);
  });

  it("has no class that cannot fail: each makes mutants the API server refuses", () => {
    const refusing = new Set(trials.filter((t) => t.server.refused).map((t) => t.class));
    expect(CATALOG.map((c) => c.name).filter((name) => !refusing.has(name))).toEqual([]);
  });
});
