// A Kubernetes version as people write it, reduced to the minor that decides
// what a cluster serves and runs: 1.30, 1.30.4, v1.30 and v1.30.4 are 1.30.
import { UsageError } from "../core/errors.ts";

/** The minor `given` names ("1.N"), or undefined when it is not a version. */
export function minorVersion(given: string): string | undefined {
  return /^v?(1\.\d{1,3})(?:\.\d{1,4})?$/.exec(given)?.[1];
}

/** The minor number of "1.N". */
export const minorOf = (version: string): number => Number(version.split(".")[1]);

/** A --kube-version flag's minor, or undefined when not given; a spelling that is no version is a usage error. */
export function kubeVersionFlag(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  const minor = minorVersion(given);
  if (minor === undefined) throw new UsageError(`--kube-version ${JSON.stringify(given)}: expected 1.N (or 1.N.P, v1.N.P)`);
  return minor;
}
