// A copy of the clone as a new user has it after `npm ci` and `npm link`:
// its tracked files, node_modules and dist/, and `rigging` on a bare PATH.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { ROOT, tempDir } from "../support/cli.ts";

export interface CloneCopy {
  /** The temporary directory that holds the copy and its bin/. */
  work: string;
  /** The copy's root. */
  copy: string;
  /** The directory `npm link` would put `rigging` in. */
  bin: string;
  /** PATH as on a fresh machine: the link, node and npm, and the system's programs. */
  env: Record<string, string>;
  remove: () => void;
}

export function cloneCopy(): CloneCopy {
  const work = tempDir();
  const copy = join(work, "rigging");
  for (const file of execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  cpSync(join(ROOT, "dist"), join(copy, "dist"), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  // What `npm link` does: the package's bin on PATH.
  const bin = join(work, "bin");
  mkdirSync(bin);
  symlinkSync(join(copy, "dist", "rigging.cjs"), join(bin, "rigging"));
  const env = { PATH: [bin, dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"), RIGGING_FROM_SOURCES: "" };
  return { work, copy, bin, env, remove: () => rmSync(work, { recursive: true, force: true }) };
}
