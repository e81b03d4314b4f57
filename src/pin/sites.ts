// Where a values file names images: every scalar under a key `image`, at
// any depth (the Server's and the Runner's own, NATS's `nats.image`), and
// whose image it is, which sets the platforms D10 asks of it.
import { isMap, isScalar, isSeq, type Scalar, type Document, type Node } from "yaml";

export type Role = "server" | "nats" | "runner" | "rootpilot";

export interface ImageSite {
  /** The key path, such as nats.image or runner.image. */
  path: string;
  keys: (string | number)[];
  role: Role;
  node: Scalar;
  text: string;
}

/** D10: every image multi-arch, except the Runner's, amd64 only until an arm64 KVM boot passes (DL-577). */
export const REQUIRED_PLATFORMS: Record<Role, { platforms: string[]; index: boolean }> = {
  server: { platforms: ["linux/amd64", "linux/arm64"], index: true },
  nats: { platforms: ["linux/amd64", "linux/arm64"], index: true },
  rootpilot: { platforms: ["linux/amd64", "linux/arm64"], index: true },
  runner: { platforms: ["linux/amd64"], index: false },
};

export const ROLE_NAMES: Record<Role, string> = { server: "the Compass Server", nats: "NATS", runner: "the Compass Runner", rootpilot: "the Rootpilot runner" };

export function imageSites(doc: Document, kind: string): ImageSite[] {
  const sites: ImageSite[] = [];
  const walk = (node: unknown, path: (string | number)[]) => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined) continue;
        const at = [...path, key];
        if (key === "image" && isScalar(pair.value) && typeof pair.value.value === "string") {
          sites.push({ path: at.join("."), keys: at, role: roleOf(kind, at), node: pair.value, text: pair.value.value });
        } else walk(pair.value, at);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...path, i]));
    }
  };
  walk(doc.contents as Node | null, []);
  return sites;
}

function roleOf(kind: string, path: (string | number)[]): Role {
  if (path.includes("nats")) return "nats";
  if (kind === "CompassRunner") return "runner";
  if (kind === "RootpilotRunner") return "rootpilot";
  if (kind === "Compass" && path[0] === "runner") return "runner";
  return "server";
}
