// The general requirements (G-), shared by every system, as data: rules, values refusals, `explain` and the docs read them.
import { defineRequirements, type RefusedBy } from "./requirement-data.ts";
import { RECOMMENDED_LABEL_KEYS } from "../k8s/labels.ts";
import type { JudgedSystem } from "./judged-system.ts";

/** The G- requirements for the systems given: each applies to all of them, and G-05 carries their digest opinions. */
export function generalRequirements(systems: readonly JudgedSystem[]) {
  const names = systems.map((s) => s.name);
  return defineRequirements({
    "G-01": {
      summary: "Values files are YAML or JSON; unknown keys are errors (with a did-you-mean); every error in one run; nothing written on error",
      profiles: names,
      judged: { by: "elsewhere", where: "the values schema of every profile (render refuses the file, exit 1) and the values refusal tests" },
    },
    "G-02": {
      summary: "Output is deterministic and in a stable, apply-safe order",
      profiles: names,
      judged: { by: "elsewhere", where: "the renderer (sortForApply, fixed key order) and tests that render twice, under Node and Bun, and compare bytes" },
      noValues: "a property of the renderer (order and bytes), the same for every values file",
    },
    "G-03": {
      summary: "Every rendered object passes strict upstream Kubernetes schema validation and every rule of this catalog",
      profiles: names,
      judged: {
        by: "elsewhere",
        where:
          "tests validate every rendered object strictly against the upstream OpenAPI schema; render runs the catalog over its own output (a finding there is exit 3)",
      },
      noValues: "a property of the renderer's output: render runs the catalog over it, and a finding there is an internal error, not a refusal",
    },
    "G-04": {
      summary: "Secrets are referenced by name and key, never inlined",
      fix: "put the value in a Secret and reference it with secretKeyRef or a secret volume",
      why: "A secret written into values or manifests ends up in Git, in CI logs and in every copy of the rendered output; rotating it means finding all of them. The Compass Server-on-Kubernetes design (D4) keeps secrets by name: the database URL, master key, NATS password, TLS certificate, admin token and forge App credentials live in Secrets the operator creates, and the manifests only point at them.",
      source: {
        from: "documented",
        says: 'the Compass Server-on-Kubernetes design, D4: "secrets by name"; the Rootpilot Kubernetes guide, Requirement 5: "with no static keys"',
      },
      severity: "error",
      profiles: names,
    },
    "G-05": {
      summary: "Every image is repository@sha256:<64 hex>",
      fix: "pin the image by digest: repository@sha256:<64 hex>; tags are for people, not pod specs",
      why: '"The image must be a repo@sha256:<digest> reference" (the Compass Runner manifests guide). A tag can move: the node may pull a different image than the one reviewed, and two nodes may run two builds. The Compass Server-on-Kubernetes design (D8) pairs tags like main-<n>-<sha12> with the digest for people, "with only the digest written to pod specs".',
      source: {
        from: "documented",
        says: 'the Compass Runner manifests guide: "The image must be a repo@sha256:<digest> reference."; the Compass Server-on-Kubernetes design, D8: "with only the digest written to pod specs"',
      },
      // Each system whose source documents ask no digest names its opinion in its record.
      opinions: Object.fromEntries(systems.flatMap(({ digestOpinion: o }) => (o ? [[o.key, { summary: o.summary, because: o.because }]] : []))),
      severity: "error",
      profiles: names,
    },
    "G-06": {
      summary: "Containers drop all capabilities, forbid privilege escalation, run non-root on a read-only root with a seccomp profile",
      fix: "set securityContext: allowPrivilegeEscalation: false, capabilities.drop: [ALL], readOnlyRootFilesystem: true, runAsNonRoot: true, seccompProfile",
      why: "These settings are what Pod Security's restricted level asks of a container, and the Compass Runner's namespace cannot enforce that level (it needs hostPath, see G-10). Without them a compromised process can gain privileges (setuid binaries, file capabilities), write into its own image, or make any system call the kernel offers.",
      source: {
        from: "upstream",
        says: 'Kubernetes\' Pod Security Standards, restricted profile (privilege escalation, capabilities, non-root, seccomp), which the namespaces of G-10 enforce; the Rootpilot Kubernetes guide: "runAsNonRoot is no longer a gap"',
      },
      opinions: {
        "read-only-root": {
          summary: "a read-only root filesystem",
          because:
            "not part of the restricted profile and not asked for by the Compass Runner manifests guide or the Rootpilot Kubernetes guide; rigging asks for it so that a compromised process cannot change its own files (for the Compass Server it is CS-02's, an error)",
        },
      },
      severity: "error",
      profiles: names,
    },
    "G-07": {
      summary: "Objects carry the recommended app.kubernetes.io labels",
      fix: `label every object with ${RECOMMENDED_LABEL_KEYS.join(", ")}`,
      why: "The recommended labels are how people, dashboards and this tool tell which installation an object belongs to: `check` recognises a profile from app.kubernetes.io/name, and kubectl, Helm and Argo CD group objects by instance and part-of. An object without them is easy to orphan on upgrade or uninstall.",
      source: {
        from: "rigging",
        says: "Kubernetes recommends these labels and no source document asks for them; rigging writes all six so that tools can group an installation's objects (`check` recognises a profile by its shape too)",
      },
      severity: "warning",
      profiles: names,
    },
    "G-08": {
      summary: "Every container has CPU and memory requests and a memory limit",
      fix: "set resources.requests.cpu, resources.requests.memory and resources.limits.memory",
      why: "Without requests the scheduler places the pod blind and the node may be overcommitted; without a memory limit one leaking process takes memory from every other pod on the node until the kernel's OOM killer picks a victim, possibly not the culprit. The defaults are written out in the docs so that nobody has to guess them.",
      source: {
        from: "rigging",
        says: "no source document sets resources (the Rootpilot Kubernetes guide calls them an open decision); rigging asks for requests and a memory limit so that the scheduler and the OOM killer treat the pod predictably",
      },
      severity: "warning",
      concern: "reliability",
      profiles: names,
    },
    "G-09": {
      summary: "No image pull secrets: images are public and read anonymously",
      fix: "remove imagePullSecrets; the images are public (the Compass Server-on-Kubernetes design, D9)",
      why: 'The Compass Server-on-Kubernetes design (D9): "all images are public, and registry reads are anonymous." A pull secret is a credential that has to be distributed, rotated and kept out of Git for no gain; when it expires, pods stop starting on new nodes.',
      source: {
        from: "rigging",
        says: "the Compass Server-on-Kubernetes design (D9) makes the images public, so a pull secret is a credential with nothing to do; a private mirror may still need one",
      },
      severity: "warning",
      profiles: names,
    },
    "G-10": {
      summary: "A Namespace carries Pod Security Admission labels at the strictest level its pods pass",
      fix: "label the Namespace pod-security.kubernetes.io/enforce (and audit, warn) with the profile's level: restricted, or privileged for the Compass Runner",
      why: "Pod Security Admission labels make the API server refuse pods weaker than the level. The Compass Server and the Rootpilot runner pass restricted. The Compass Runner mounts two hostPath trees, which baseline already forbids, so its namespace is privileged; the CR-06 admission policies, hostUsers: false and the container settings of G-06 take the place of the missing guard rails. A namespace without the labels gets the cluster default, often no check at all.",
      source: {
        from: "upstream",
        says: "Kubernetes' Pod Security Admission refuses every pod a namespace's enforce level forbids: hostPath volumes (the Compass Runner's two trees) from baseline up",
      },
      opinions: {
        enforce: {
          summary: "enforce at the strictest level the pods pass",
          because:
            "rigging's choice: the strictest level the profile's pods pass (restricted, privileged for the Compass Runner) makes the API server refuse anything weaker; no source document asks for it",
        },
        "audit-warn": {
          summary: "audit and warn at the same level",
          because:
            "rigging's choice: audit and warn report what enforce would refuse when enforce is lowered; at privileged they report nothing, so they are not asked for there",
        },
      },
      severity: "error",
      profiles: names,
    },
  });
}

/** A general requirement's ID. */
export type GeneralId = keyof ReturnType<typeof generalRequirements>;

/** How one system's values break general requirements, by ID (a system's record carries it). */
export type GeneralRefusedBy = Readonly<Partial<Record<GeneralId, RefusedBy>>>;
