// `npx tsx scripts/differential.ts`: the differential harness of
// test/cluster/differential.test.ts on a fresh test control plane, summed up
// as JSON on stdout for `npm run bench`: trials, agreement, and per class.
import { startControlPlane } from "../test/cluster/support/control-plane.ts";
import { differential, schemasOf } from "../test/cluster/support/differential.ts";
import { CATALOG } from "../test/cluster/support/mutations.ts";
import { serverMinor } from "../test/cluster/support/openapi.ts";

interface ClassSummary {
  trials: number;
  agree: number;
  serverRefuses: number;
  notJudged?: string;
}

async function main(): Promise<void> {
  const cp = await startControlPlane();
  try {
    const minor = await serverMinor(cp);
    const trials = await differential(cp, schemasOf(minor), minor);
    const notJudged = new Map(CATALOG.filter((c) => c.notJudged).map((c) => [c.name, c.notJudged!]));
    const classes: Record<string, ClassSummary> = {};
    for (const t of trials) {
      const c = (classes[t.class] ??= { trials: 0, agree: 0, serverRefuses: 0, ...(notJudged.has(t.class) ? { notJudged: notJudged.get(t.class) } : {}) });
      c.trials++;
      if (t.server.refused === t.rigging.refused) c.agree++;
      if (t.server.refused) c.serverRefuses++;
    }
    const judged = trials.filter((t) => !notJudged.has(t.class));
    const agree = judged.filter((t) => t.server.refused === t.rigging.refused).length;
    process.stdout.write(`${JSON.stringify({ kubeVersion: minor, trials: judged.length, agree, classes })}\n`);
  } finally {
    await cp.stop();
  }
}

await main();
