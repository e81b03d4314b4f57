// `rigging diff OLD NEW`: what applying NEW over OLD changes and what that does.
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { readSide } from "../diff/inputs.ts";
import { kubeVersionFlag } from "../k8s/kube-version.ts";
import { KUBECTL_APPLY } from "../diff/applied.ts";
import { compareSides, formatDiff } from "../diff/run.ts";
import { printable } from "../core/printable.ts";
import { parseFormat } from "../preflight/common.ts";
import type { Io } from "./io.ts";

export const DIFF_HELP = `Usage: rigging diff OLD NEW [--format text|json]

Compare two sets of objects, as applying NEW over OLD would change them.
OLD and NEW are each a values file (rendered here), a directory of
manifests (a render -o output), or a manifest stream: a file, or - for
stdin, which also takes the live objects as kubectl get -o yaml prints them.

Objects are matched by kind, namespace and name, and compared field by
field as apply does: what only the API server writes (status,
managedFields, uid, resourceVersion) is never compared, and when one side
is live, only the fields the other side sets are, so defaults the API
server filled in are not changes; a field the live object's
last-applied-configuration, or its kubectl Apply managed fields, hold and
the other side drops is a removal. Named list items (containers, volumes,
env) are matched by name. Only rigging's objects (its managed-by label, a
render, a render -o manifest) are reported removed; others are counted.
A directory with a kustomization is read through its resources, not built.

Every change gets its consequence:
  the Runner DaemonSet's pod template   restarts the Runner on its node(s);
                                        sessions are reaped within the grace period
  the Server Deployment under Recreate  downtime until the new pod is ready
  the Runner's token audience/lifetime  enrollment breaks until the Server's
                                        cluster entry follows (and back)
  an admission policy or binding        takes effect at once
  the runner-clusters file              takes effect after the Server restarts

Options:
      --format FMT         text (default) or json
      --kube-version 1.N   render a values side for this Kubernetes version
                           (1.N.P and v1.N.P name their minor); a system
                           below its floor is refused, as render does
      --field-manager NAME the server-side apply manager whose fields an
                           apply removes (repeatable; default kubectl)
  -h, --help               show this help

Exit codes: 0 no change; 1 changes; 2 an error (an input that cannot be
read, or the same object twice on one side).
`;

export function diffCommand(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: "string" },
      "field-manager": { type: "string", multiple: true },
      "kube-version": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return io.out(DIFF_HELP), 0;
  if (positionals.length !== 2) throw new UsageError(`diff takes OLD and NEW, got ${positionals.length} argument(s); usage: rigging diff OLD NEW`);
  if (positionals[0] === "-" && positionals[1] === "-") throw new UsageError("diff: only one side can be - (stdin)");
  const format = parseFormat(values.format);
  const kubeVersion = kubeVersionFlag(values["kube-version"]);
  const old = readSide(positionals[0], undefined, kubeVersion);
  const next = readSide(positionals[1], undefined, kubeVersion);
  for (const note of [...old.notes, ...next.notes]) io.err(`note: ${printable(note)}\n`);
  const managers = new Set(values["field-manager"] ?? [KUBECTL_APPLY]);
  const { diffs, notRigging } = compareSides(old, next, { managers });
  io.out(formatDiff(diffs, format, notRigging));
  return diffs.length === 0 ? 0 : 1;
}
