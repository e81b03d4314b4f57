// Where a values file names images (any `image` key), and whose image it is,
// which sets the platforms D10 asks of it.
import { isMap, isScalar, isSeq, parseDocument, type Scalar, type Document, type Node } from "yaml";
import { UsageError } from "../core/errors.ts";
import { printable } from "../core/printable.ts";
import { parseValuesFile } from "../parse/source.ts";
import { closest } from "../values/values.ts";
import type { ImageNeed } from "../systems/registry.ts";
import { kinds, systemOf, systemOfKind, valuesKindOf } from "../systems/registry.ts";
import { PLACES } from "./write.ts";

export interface ImageSite {
  /** The key path, such as nats.image or runner.image. */
  path: string;
  keys: (string | number)[];
  /** What D10 asks of it, from its system's record. */
  need: ImageNeed;
  node: Scalar;
  text: string;
}

/** The images a values file names, where they stand in its text (its kind refused when not a values kind). */
export function imagesOf(text: string, file: string): { kind: string; sites: ImageSite[] } {
  const source = parseValuesFile(text, file);
  const kind = (source.data as Record<string, unknown>).kind;
  if (typeof kind !== "string" || !valuesKindOf(kind)) {
    const near = typeof kind === "string" ? closest(kind, kinds()) : undefined;
    throw new UsageError(
      `${file}: ${kind === undefined ? "no top-level kind" : `kind ${printable(JSON.stringify(String(kind)))} is not a values kind`}; expected one of ${kinds().join(", ")}${near ? ` (did you mean ${near}?)` : ""}`,
    );
  }
  // The checks above bound size, depth and aliases and refused duplicate keys
  // (in linear time, unlike the package's own check); this parse keeps each value's place.
  const doc = parseDocument(text, PLACES);
  return { kind, sites: imageSites(doc, kind) };
}

export function imageSites(doc: Document, kind: string): ImageSite[] {
  const sites: ImageSite[] = [];
  const walk = (node: unknown, path: (string | number)[]) => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined) continue;
        const at = [...path, key];
        if (key === "image" && isScalar(pair.value) && typeof pair.value.value === "string") {
          sites.push({ path: at.join("."), keys: at, need: needOf(kind, at), node: pair.value, text: pair.value.value });
        } else walk(pair.value, at);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...path, i]));
    }
  };
  walk(doc.contents as Node | null, []);
  return sites;
}

/** The system an image belongs to, by its path in the values. */
function needOf(kind: string, path: (string | number)[]): ImageNeed {
  const valuesKind = valuesKindOf(kind);
  const owner = valuesKind?.imagesOf?.[String(path[0])];
  const system = owner === undefined ? systemOfKind(kind) : systemOf(owner);
  if (!system) throw new Error(`no system renders values kind ${kind}`);
  const bundled = Object.entries(system.bundledImages ?? {}).find(([key]) => path.includes(key));
  return bundled ? bundled[1] : system.image;
}
