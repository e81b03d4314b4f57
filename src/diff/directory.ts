// The files of a directory side: a kustomization's resources, read as they are
// (not built), else every manifest file under it; and which files render -o wrote.
import { existsSync, realpathSync, statSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { printable } from "../core/printable.ts";
import { isRecord, list } from "../k8s/access.ts";
import { parseDocuments } from "../parse/source.ts";
import { readText } from "../parse/read.ts";
import { expandArguments } from "../check/inputs.ts";
import { KUSTOMIZATION_FILES, remoteForm } from "../check/kustomize-refs.ts";
import { inside, treeOf } from "../parse/tree.ts";
import { MANIFEST, readManifest } from "../emit/output-manifest.ts";

/** What a build would do to the resources, which diff does not. */
const BUILD_KEYS = [
  "namespace",
  "namePrefix",
  "nameSuffix",
  "commonLabels",
  "labels",
  "commonAnnotations",
  "images",
  "replicas",
  "patches",
  "patchesStrategicMerge",
  "patchesJson6902",
  "configMapGenerator",
  "secretGenerator",
  "generators",
  "transformers",
  "replacements",
  "components",
];

export interface DirectoryFiles {
  files: string[];
  /** Files the directory's render -o manifest lists: their objects are rigging's. */
  rigging: Set<string>;
  /** For people: what was not read, or read without being built. */
  notes: string[];
}

export function directoryFiles(dir: string): DirectoryFiles {
  const out: DirectoryFiles = { files: [], rigging: new Set(), notes: [] };
  readDirectory(dir, out, new Set(), treeOf(dir).real);
  const manifest = readManifest(join(dir, MANIFEST));
  for (const name of manifest?.files ?? []) out.rigging.add(join(dir, name));
  return out;
}

function readDirectory(dir: string, out: DirectoryFiles, seen: Set<string>, tree: string): void {
  let real: string;
  try {
    real = realpathSync.native(dir);
  } catch {
    throw new UsageError(`${printable(dir)}: cannot read the directory`);
  }
  // A kustomization that names a directory twice (or itself) is read once.
  if (seen.has(real)) return;
  seen.add(real);
  const kustomization = KUSTOMIZATION_FILES.map((name) => join(dir, name)).find((path) => existsSync(path));
  if (kustomization) {
    if (!statSync(kustomization).isFile()) throw new UsageError(`${printable(kustomization)}: not a regular file (a FIFO, socket or device), not read`);
    readKustomization(kustomization, dir, out, seen, tree);
    return;
  }
  const { files, problems } = expandArguments([dir], {}, false);
  if (problems.length > 0) throw new UsageError(problems.map(printable).join("; "));
  // A kustomization below the directory configures a build: it holds no object.
  out.files.push(...files.filter((file) => !KUSTOMIZATION_FILES.includes(basename(file))));
}

/** The kustomization's resources (and bases), each a file or a directory read the same way; URLs are not fetched. */
function readKustomization(file: string, dir: string, out: DirectoryFiles, seen: Set<string>, tree: string): void {
  const data = parseDocuments(readText(file), file)[0]?.data ?? {};
  if (!isRecord(data)) throw new UsageError(`${printable(file)}: a kustomization is a mapping`);
  for (const resource of [...list<unknown>(data.resources), ...list<unknown>(data.bases)]) {
    if (typeof resource !== "string") continue;
    if (remoteForm(resource) !== undefined) {
      out.notes.push(`${printable(file)}: the remote resource ${printable(resource)} is not read`);
      continue;
    }
    const path = isAbsolute(resource) ? resource : join(dir, resource);
    let stat: ReturnType<typeof statSync>;
    let real: string;
    try {
      real = realpathSync.native(path);
      stat = statSync(real);
    } catch {
      throw new UsageError(`${printable(file)}: its resource ${printable(resource)} is not there`);
    }
    if (!inside(real, tree)) throw new UsageError(`${printable(file)}: its resource ${printable(resource)} leaves the repository ${printable(tree)}`);
    if (stat.isDirectory()) readDirectory(path, out, seen, tree);
    else if (stat.isFile()) out.files.push(path);
    else throw new UsageError(`${printable(file)}: its resource ${printable(resource)} is not a regular file (a FIFO, socket or device), not read`);
  }
  const build = BUILD_KEYS.filter((key) => data[key] !== undefined);
  if (build.length > 0)
    out.notes.push(
      `${printable(file)}: its resources are read as they are, not built (${build.join(", ")} not applied); for the built objects: kubectl kustomize ${printable(dir)} | rigging diff - ...`,
    );
}
