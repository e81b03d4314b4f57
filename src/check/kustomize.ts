// A kustomization is built with the real kustomize with origin annotations, so
// findings name source files; the user's kustomization is never changed.
// Its references are judged first (kustomize-refs.ts), and kustomize runs
// offline: no program on its PATH, load restrictions on.
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative, sep } from "node:path";
import { LIMITS } from "../parse/limits.ts";
import { treeOf } from "../parse/tree.ts";
import { KUSTOMIZATION_FILES, type Refusal, refusedReferences } from "./kustomize-refs.ts";

export function isKustomization(dir: string): boolean {
  return KUSTOMIZATION_FILES.some((name) => existsSync(join(dir, name)));
}

export type Built = { text: string; root: string; via: string } | { notBuilt: string } | { error: string } | { refused: Refusal[] };

/** The programs that build a kustomization, in the order they are tried. */
const BUILDERS: { via: string; command: string; args: (dir: string) => string[] }[] = [
  { via: "kubectl kustomize", command: "kubectl", args: (dir) => ["kustomize", "--load-restrictor", "LoadRestrictionsRootOnly", dir] },
  { via: "kustomize build", command: "kustomize", args: (dir) => ["build", "--load-restrictor", "LoadRestrictionsRootOnly", dir] },
];

const SCRATCH_PREFIX = "rigging-kustomize-";
const WRAPPER = "kustomization.yaml";

/** The first program on PATH that builds a kustomization, if any. */
export function builder() {
  return BUILDERS.map((b) => ({ ...b, path: onPath(b.command) })).find((b) => b.path !== undefined);
}

export async function buildKustomization(dir: string): Promise<Built> {
  const refused = refusedReferences(dir, treeOf(dir).real);
  if (refused.length > 0) return { refused };
  const found = builder();
  if (!found) return { notBuilt: `${dir}: a kustomization, not built (neither kubectl nor kustomize is on PATH); its files were read one by one` };
  sweepScratch();
  const wrapper = mkdtempSync(join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));
  const run = new Run();
  const release = removedOnSignal(wrapper, run);
  try {
    const target = relative(wrapper, realpathSync.native(dir)).split(sep).join("/");
    writeFileSync(join(wrapper, WRAPPER), `resources:\n  - ${JSON.stringify(target)}\nbuildMetadata: [originAnnotations, transformerAnnotations]\n`);
    const done = await run.start(found.path as string, found.args(wrapper), offline(wrapper));
    if (done.status !== 0) {
      const why = (done.stderr || done.error).trim().split("\n")[0] ?? "";
      return { error: `${dir}: ${found.via} failed: ${why.slice(0, 500)}` };
    }
    // Origin paths are relative to the temporary kustomization: they are joined to it (lexically) to name the real files.
    return { text: done.stdout, root: wrapper, via: found.via };
  } finally {
    rmSync(wrapper, { recursive: true, force: true });
    release();
  }
}

/** The kustomize process: its output bounded as any input file is, stopped after five minutes or on a signal. */
class Run {
  private child: ChildProcess | undefined;

  start(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string; error: string }> {
    return new Promise((done) => {
      const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
      this.child = child;
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      let error = "";
      child.stdout.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= LIMITS.fileBytes) out.push(chunk);
        else if (!error) {
          error = `its output is over ${LIMITS.fileBytes / 1024 / 1024} MiB`;
          child.kill("SIGKILL");
        }
      });
      child.stderr.on("data", (chunk: Buffer) => void (err.length < 64 && err.push(chunk)));
      child.on("error", (e) => void (error ||= e.message));
      child.on("close", (status) => {
        this.child = undefined;
        done({ status: error ? -1 : status, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), error });
      });
    });
  }

  stop(): void {
    this.child?.kill("SIGKILL");
  }
}

/** kustomize's environment: no PATH (git is never found), a HOME of its own, proxies that refuse. */
function offline(scratch: string): NodeJS.ProcessEnv {
  const home = join(scratch, "home");
  mkdirSync(home);
  const refuse = "http://127.0.0.1:9";
  return { PATH: "", HOME: home, KUBECONFIG: join(home, "none"), HTTP_PROXY: refuse, HTTPS_PROXY: refuse, NO_PROXY: "", GIT_TERMINAL_PROMPT: "0" };
}

/** A program's path on the caller's PATH, resolved here so that kustomize's own PATH can be empty. */
function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const path = join(dir, command);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** Scratch directories in use, and the builds writing into them: a signal ends both before the process ends as the signal says. */
const live = new Map<string, Run>();

function onSignal(signal: NodeJS.Signals): void {
  for (const [dir, run] of live) {
    run.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

/** Tracks `dir` until the returned function is called. */
function removedOnSignal(dir: string, run: Run): () => void {
  if (live.size === 0) for (const s of SIGNALS) process.on(s, onSignal);
  live.set(dir, run);
  return () => {
    live.delete(dir);
    if (live.size === 0) for (const s of SIGNALS) process.removeListener(s, onSignal);
  };
}

/** Scratch directories of runs that were killed (their process is gone), removed when they hold only what rigging wrote. */
function sweepScratch(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = name.startsWith(SCRATCH_PREFIX) ? /^(\d+)-/.exec(name.slice(SCRATCH_PREFIX.length))?.[1] : undefined;
    if (pid === undefined || Number(pid) === process.pid || alive(Number(pid))) continue;
    const dir = join(tmpdir(), name);
    try {
      const entries = readdirSync(dir).sort();
      if (entries.every((e) => e === WRAPPER || e === "home")) rmSync(dir, { recursive: true, force: true });
    } catch {}
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
