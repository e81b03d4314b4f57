// A Kubernetes version as people write it, reduced to the minor that decides
// what a cluster serves and runs: 1.30, 1.30.4, v1.30 and v1.30.4 are 1.30.

/** The minor `given` names ("1.N"), or undefined when it is not a version. */
export function minorVersion(given: string): string | undefined {
  return /^v?(1\.\d{1,3})(?:\.\d{1,4})?$/.exec(given)?.[1];
}

/** The minor number of "1.N". */
export const minorOf = (version: string): number => Number(version.split(".")[1]);
