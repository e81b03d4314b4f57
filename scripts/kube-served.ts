// `npx tsx scripts/kube-served.ts`: what the test API server's own OpenAPI
// says that the generated clients do not (each field's enum, and Quantities
// the client types as strings), written to scripts/kube-specs/served-1.N.json
// for `npm run schemas`. test/cluster/schema.test.ts fails when it drifts.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startControlPlane } from "../test/cluster/support/control-plane.ts";
import { beyondClients, served, serverMinor, type KubeSchemas } from "../test/cluster/support/openapi.ts";

export const servedFile = (minor: string) => join("scripts", "kube-specs", `served-${minor}.json`);

async function main(): Promise<void> {
  const cp = await startControlPlane();
  try {
    const minor = await serverMinor(cp);
    const bundled = JSON.parse(readFileSync(join("kube-schemas", `${minor}.json`), "utf8")) as KubeSchemas;
    const beyond = beyondClients(await served(cp), bundled);
    writeFileSync(servedFile(minor), `${JSON.stringify(beyond, null, 1)}\n`);
    console.error(`${servedFile(minor)}: ${Object.keys(beyond.enums).length} enums, ${beyond.quantities.length} quantities`);
  } finally {
    await cp.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
