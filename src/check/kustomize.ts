// A kustomization is built with the real kustomize with origin annotations, so
// findings name source files; the user's kustomization is never changed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { LIMITS } from "../parse/source.ts";

const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

export function isKustomization(dir: string): boolean {
  return KUSTOMIZATION_FILES.some((name) => existsSync(join(dir, name)));
}

export type Built = { text: string; root: string; via: string } | { notBuilt: string } | { error: string };

/** The programs that build a kustomization, in the order they are tried. */
const BUILDERS: { via: string; command: string; args: (dir: string) => string[] }[] = [
  { via: "kubectl kustomize", command: "kubectl", args: (dir) => ["kustomize", dir] },
  { via: "kustomize build", command: "kustomize", args: (dir) => ["build", dir] },
];

export function buildKustomization(dir: string): Built {
  const wrapper = mkdtempSync(join(tmpdir(), "rigging-kustomize-"));
  try {
    const target = relative(wrapper, realpathSync.native(dir)).split(sep).join("/");
    writeFileSync(join(wrapper, "kustomization.yaml"), `resources:\n  - ${JSON.stringify(target)}\nbuildMetadata: [originAnnotations]\n`);
    for (const builder of BUILDERS) {
      const run = spawnSync(builder.command, builder.args(wrapper), { encoding: "utf8", maxBuffer: LIMITS.fileBytes, timeout: 300_000 });
      if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") continue;
      if (run.status !== 0) {
        const why = (run.stderr || String(run.error?.message ?? "")).trim().split("\n")[0] ?? "";
        return { error: `${dir}: ${builder.via} failed: ${why.slice(0, 500)}` };
      }
      // Origin paths are relative to the temporary kustomization: they are joined to it (lexically) to name the real files.
      return { text: run.stdout, root: wrapper, via: builder.via };
    }
    return { notBuilt: `${dir}: a kustomization, not built (neither kubectl nor kustomize is on PATH); its files were read one by one` };
  } finally {
    rmSync(wrapper, { recursive: true, force: true });
  }
}
