// A bench fleet's values files: the Runner example varied as a real fleet varies.
import { readFileSync } from "node:fs";

const EXAMPLE = new URL("../examples/compass-runner.yaml", import.meta.url);

/** The text of installation `i`'s values file, from the example's `template` text. */
export function fleetValue(template, i) {
  const ns = `tenant-${i % 97}`;
  return template
    .replace(/^name: compass-runner$/m, `name: runner-${i}`)
    .replace(/^namespace: compass-runner$/m, `namespace: ${ns}`)
    .replace(/^ {2}namespace: compass-runner$/m, `  namespace: ${ns}`)
    .replace("value: kvm-node-1", `value: kvm-node-${i}`)
    .replace("serverAddr: https://compass-server.compass.svc", `serverAddr: https://compass-server.compass-${i % 13}.svc`)
    .replace("serverName: compass.example.com", `serverName: compass-${i}.example.com`)
    .replace("tokenExpirationSeconds: 3600", `tokenExpirationSeconds: ${600 + (i % 80000)}`)
    .replace("cidr: 10.244.20.0/24", `cidr: 10.${i % 256}.${(i >> 8) % 256}.0/24`);
}

/** The texts of a fleet of `size` values files. */
export function fleetValues(size) {
  const template = readFileSync(EXAMPLE, "utf8");
  return Array.from({ length: size }, (_, i) => fleetValue(template, i));
}
