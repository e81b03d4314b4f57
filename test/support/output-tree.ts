// Helpers for the `-o` tests: a directory tree as data (symlinks read, never
// followed), values that differ in their object names, and running the
// built command in a private mount namespace, where a test can mount a
// tmpfs (a real mount point, a full disk, a read-only file system).
import { spawnSync } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, ROOT } from "./cli.ts";

/** Every entry under `dir` by relative path: `<dir>`, `link:TARGET` or the file's text. */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(join(dir, path));
      if (stat.isSymbolicLink()) out[path] = `link:${readlinkSync(join(dir, path))}`;
      else if (stat.isDirectory()) {
        out[path] = "<dir>";
        walk(path);
      } else out[path] = readFileSync(join(dir, path), "utf8");
    }
  };
  walk("");
  return out;
}

const SERVER = readFileSync(join(ROOT, "examples/compass-server.yaml"), "utf8");

/** Compass Server values whose object names all carry `name` (so two renders share no file names but the namespace's). */
export function serverValues(name: string, serviceAccount = `${name}-sa`): string {
  return SERVER.replace(/^name: compass-server$/m, `name: ${name}`).replace(/^serviceAccount: compass-server$/m, `serviceAccount: ${serviceAccount}`);
}

/** Whether this machine lets a test mount a tmpfs in a user and mount namespace of its own. */
export const CAN_MOUNT = (() => {
  const dir = mkdtempSync(join(tmpdir(), "rigging-mount-"));
  try {
    return spawnSync("unshare", ["--user", "--map-root-user", "--mount", "sh", "-c", 'mount -t tmpfs none "$0"', dir]).status === 0;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

/**
 * Runs a shell script in a user and mount namespace of its own (mounts end
 * with it), with $NODE and $CLI naming the built command. Answers stdout.
 */
export function inNamespace(script: string, env: Record<string, string> = {}): { code: number; out: string; err: string } {
  const r = spawnSync("unshare", ["--user", "--map-root-user", "--mount", "sh", "-c", script], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", NODE: process.execPath, CLI, ...env },
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}
