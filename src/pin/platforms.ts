// D10 for one image: the platforms its digest holds against those its
// system's record asks (src/systems/registry.ts, `image`).
import type { CheckResult } from "../preflight/common.ts";
import { printable } from "../core/printable.ts";
import type { PinReference } from "./reference.ts";
import type { Manifest } from "./registry.ts";
import type { ImageSite } from "./sites.ts";

export interface PinResult extends CheckResult {
  /** The image as written in VALUES. */
  image?: string;
  /** The digest its tag names now. */
  digest?: string;
}

export function platformResult(site: ImageSite, ref: PinReference, manifest: Manifest): PinResult {
  const { need } = site;
  const { who, why } = need;
  const shown = `${printable(ref.name)}@${manifest.digest}`;
  const held = manifest.platforms.length > 0 ? manifest.platforms.map(printable).join(", ") : "no platform";
  const base = { id: "D10", check: site.path, image: ref.text, digest: manifest.digest };
  const missing = need.platforms.filter((p) => !manifest.platforms.includes(p));
  const wanted = need.platforms.join(" and ");
  if (need.index && manifest.kind !== "index") {
    return {
      ...base,
      outcome: "fail",
      message: `${shown} is a single-platform image (${held}), not an image index: ${why}`,
      fix: `publish ${who}'s image as an index with ${wanted} (docker buildx build --platform ${need.platforms.join(",")} --push)`,
    };
  }
  if (missing.length > 0) {
    return {
      ...base,
      outcome: "fail",
      message: `${shown} lacks ${missing.join(" and ")} (it holds ${held}): ${why}`,
      fix: `publish ${who}'s image with ${wanted}`,
    };
  }
  return { ...base, outcome: "pass", message: `${shown} is ${manifest.kind === "index" ? "an image index" : "an image"} with ${wanted}: ${why}` };
}
