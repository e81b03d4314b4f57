// Rootpilot runner rules (RP-), over render's output and anyone's manifests:
// seed statements are errors, our own hardening is a waivable warning.
import { posix } from "node:path";
import type { Probe } from "kubernetes-types/core/v1";
import { hit, type ContainerRef, type ObjectSet, type Rule, type RuleHit } from "../../rules/engine.ts";
import { flagOrEnv, type FlagOrEnv } from "../../k8s/flag-or-env.ts";
import { isolationGaps, mountHolding, policiesSelecting, projectedToken, volumeAt } from "../../rules/templates.ts";
import {
  ATTESTATION_MODES,
  DEFAULT_DRAIN_TIMEOUT_MS,
  ENROLL_AUDIENCE,
  ENV,
  GKE_TOKEN_PATH,
  HOME_DIR,
  IRSA_ROLE_ANNOTATION,
  MISSING_REGION_ERROR,
  NODE_UID,
  ROOTPILOT_READING,
  ROLE_ARN,
  SECRET_STORE_MODES,
  STATIC_AWS_ENV,
  TOKEN_MIN_SECONDS,
  gracePeriodFor,
} from "./runtime.ts";
import { RP } from "./requirements.ts";
import { rule } from "../../rules/requirement-data.ts";
import { dig, list } from "../../k8s/access.ts";

/** Kubernetes' own default when a pod sets no grace period. */
const KUBERNETES_DEFAULT_GRACE = 30;

/** The runner's app containers (init containers do not read the runner's environment). */
function runnerContainers(set: ObjectSet): ContainerRef[] {
  return set.containers().filter((c) => c.containerPath[c.containerPath.length - 2] === "containers");
}

/** The field path of a variable inside the object, for a finding; its env list when it is unset. */
function at(ref: ContainerRef, s: FlagOrEnv | undefined): PropertyKey[] {
  return [...ref.containerPath, ...(s?.path ?? ["env"])];
}

const WHOLE_NUMBER = /^[0-9]+$/;
const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"] as const;
const NETWORK_HANDLERS = ["httpGet", "tcpSocket", "grpc"] as const;

/** The $HOME the runner's process sees: HOME when written, else the home of the uid in the image (node's for 1000 or unset). */
function homeOf(ref: ContainerRef): string | undefined {
  const home = flagOrEnv(ref.container, { env: ENV.home }, ROOTPILOT_READING);
  if (home?.from === "env") return home.value;
  if (home?.from === "envFrom") return undefined;
  const uid = ref.container.securityContext?.runAsUser ?? ref.spec.securityContext?.runAsUser;
  return uid === undefined || uid === NODE_UID ? HOME_DIR : undefined;
}

const AWS_DIR = /(^|\/)\.aws\/?$/;

export const rootpilotRunnerRules: Rule[] = [
  rule(RP["RP-01"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const pod of set.pods()) {
        if (pod.object.kind !== "Deployment")
          hits.push(hit(pod.object, ["kind"], `the runner is a ${pod.object.kind}, not a Deployment of stateless replicas`, "deployment"));
      }
      for (const ref of runnerContainers(set)) {
        const { object, spec, container, containerPath, path } = ref;
        const uid = container.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
        if (uid === undefined)
          hits.push(hit(object, [...path, "securityContext"], "runAsUser is unset: the image's named USER cannot be verified non-root", "uid-unset"));
        else if (uid !== NODE_UID && uid !== 0)
          hits.push(hit(object, [...path, "securityContext", "runAsUser"], `runs as uid ${uid}, not node (${NODE_UID})`, "uid"));
        const home = homeOf(ref);
        list<{ mountPath?: string }>(container.volumeMounts).forEach((mount, index) => {
          if (typeof mount?.mountPath !== "string" || !AWS_DIR.test(mount.mountPath) || home === undefined) return;
          if (posix.normalize(mount.mountPath).replace(/\/$/, "") !== posix.join(home, ".aws")) {
            hits.push(
              hit(
                object,
                [...containerPath, "volumeMounts", index, "mountPath"],
                `~/.aws is mounted at ${mount.mountPath}, but $HOME is ${home}: the SDK reads ${posix.join(home, ".aws")} and never this mount`,
              ),
            );
          }
        });
        if (home !== undefined && !volumeAt(ref, container, home)?.volume?.emptyDir) {
          hits.push(
            hit(
              object,
              [...containerPath, "volumeMounts"],
              `no emptyDir is mounted at $HOME (${home}), so it is on the read-only root filesystem`,
              "home-writable",
            ),
          );
        }
      }
      return hits;
    },
  }),
  rule(RP["RP-02"], {
    check(set) {
      const hits: RuleHit[] = set.ofKind("Service").map((s) => hit(s, ["kind"], "a Service for the runner, which serves nothing", "service"));
      for (const { object, container, containerPath } of set.containers()) {
        if (list(container.ports).length > 0)
          hits.push(hit(object, [...containerPath, "ports"], "the container declares ports; the runner listens on none", "port"));
        for (const probe of PROBES) {
          const handler = NETWORK_HANDLERS.find((h) => (container[probe] as Probe | undefined)?.[h] !== undefined);
          if (handler)
            hits.push(hit(object, [...containerPath, probe, handler], `${probe} uses ${handler}; the runner listens on nothing, so it always fails`));
        }
        const postStart = (["httpGet", "tcpSocket"] as const).find((h) => container.lifecycle?.postStart?.[h] !== undefined);
        if (postStart)
          hits.push(
            hit(
              object,
              [...containerPath, "lifecycle", "postStart", postStart],
              `lifecycle.postStart uses ${postStart}; it fails, and Kubernetes kills a container whose postStart hook fails`,
            ),
          );
        const preStop = (["httpGet", "tcpSocket"] as const).find((h) => container.lifecycle?.preStop?.[h] !== undefined);
        if (preStop)
          hits.push(
            hit(object, [...containerPath, "lifecycle", "preStop", preStop], `lifecycle.preStop uses ${preStop}; the runner listens on nothing`, "pre-stop"),
          );
      }
      return hits;
    },
  }),
  rule(RP["RP-03"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const { object, spec, path } = ref;
        const drain = flagOrEnv(ref.container, { env: ENV.drainTimeout }, ROOTPILOT_READING);
        if (drain?.from === "env" && drain.value === undefined) continue; // from a Secret or ConfigMap: not visible
        if (drain?.from === "envFrom") continue;
        if (drain?.value !== undefined && !WHOLE_NUMBER.test(drain.value)) {
          hits.push(hit(object, at(ref, drain), `${ENV.drainTimeout} is ${JSON.stringify(drain.value)}, not a whole number of milliseconds`));
          continue;
        }
        const drainMs = drain?.value !== undefined ? Number(drain.value) : DEFAULT_DRAIN_TIMEOUT_MS;
        const grace = spec.terminationGracePeriodSeconds ?? KUBERNETES_DEFAULT_GRACE;
        const shown = spec.terminationGracePeriodSeconds === undefined ? `unset (Kubernetes' default ${KUBERNETES_DEFAULT_GRACE})` : String(grace);
        if (grace <= drainMs / 1000) {
          hits.push(
            hit(
              object,
              [...path, "terminationGracePeriodSeconds"],
              `terminationGracePeriodSeconds is ${shown}, not above the ${drainMs / 1000} s drain; SIGKILL arrives mid-drain (use ${gracePeriodFor(drainMs)})`,
            ),
          );
        }
      }
      return hits;
    },
  }),
  rule(RP["RP-04"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const flush = flagOrEnv(ref.container, { env: ENV.flushInterval }, ROOTPILOT_READING);
        if (flush?.value !== undefined && (!WHOLE_NUMBER.test(flush.value) || Number(flush.value) === 0)) {
          hits.push(hit(ref.object, at(ref, flush), `${ENV.flushInterval} is ${JSON.stringify(flush.value)}, not a positive whole number of milliseconds`));
        }
      }
      return hits;
    },
  }),
  rule(RP["RP-05"], {
    check(set) {
      const hits: RuleHit[] = set.ofKind("PersistentVolumeClaim").map((o) => hit(o, ["kind"], "a PersistentVolumeClaim in the runner set"));
      for (const sts of set.ofKind("StatefulSet")) {
        if (list(dig(sts, ["spec", "volumeClaimTemplates"])).length > 0)
          hits.push(hit(sts, ["spec", "volumeClaimTemplates"], "volumeClaimTemplates create PersistentVolumeClaims"));
      }
      for (const { object, spec, path } of set.pods()) {
        list<{ name?: string; persistentVolumeClaim?: unknown; ephemeral?: unknown }>(spec.volumes).forEach((volume, index) => {
          if (volume?.persistentVolumeClaim)
            hits.push(hit(object, [...path, "volumes", index, "persistentVolumeClaim"], `volume ${volume.name} is a PersistentVolumeClaim`));
          if (volume?.ephemeral)
            hits.push(
              hit(
                object,
                [...path, "volumes", index, "ephemeral"],
                `volume ${volume.name} is a generic ephemeral volume, which creates a PersistentVolumeClaim`,
              ),
            );
        });
      }
      for (const ref of runnerContainers(set)) {
        const store = flagOrEnv(ref.container, { env: ENV.learnedStorePath }, ROOTPILOT_READING);
        if (!store?.value || store.value === ":memory:" || !store.value.startsWith("/")) continue;
        const mounted = mountHolding(ref, ref.container, store.value);
        if (!mounted) {
          const readOnly = ref.container.securityContext?.readOnlyRootFilesystem === true;
          if (readOnly)
            hits.push(
              hit(ref.object, at(ref, store), `${ENV.learnedStorePath} ${store.value} is on the read-only root filesystem: the runner cannot write it`),
            );
          else
            hits.push(
              hit(ref.object, at(ref, store), `${ENV.learnedStorePath} ${store.value} is on the container's root filesystem, not an emptyDir`, "not-empty-dir"),
            );
        } else if (!mounted.volume?.emptyDir && !mounted.volume?.persistentVolumeClaim && !mounted.volume?.ephemeral) {
          hits.push(
            hit(
              ref.object,
              at(ref, store),
              `${ENV.learnedStorePath} ${store.value} is on volume ${mounted.mount.name}, which is not an emptyDir`,
              "not-empty-dir",
            ),
          );
        }
      }
      return hits;
    },
  }),
  rule(RP["RP-06"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const mode = flagOrEnv(ref.container, { env: ENV.attestationMode }, ROOTPILOT_READING);
        if (mode?.from === "envFrom" || (mode?.from === "env" && mode.value === undefined)) continue; // not visible in the manifest
        if (mode?.value === ATTESTATION_MODES.gke) hits.push(...gkeHits(ref));
        else if (mode?.value === ATTESTATION_MODES.eks) hits.push(...eksHits(set, ref));
        else if (mode?.value === "eks-oidc")
          hits.push(hit(ref.object, at(ref, mode), "RUNNER_ATTESTATION_MODE is eks-oidc; on EKS the runner attests with aws-sts through IRSA"));
        else if (mode === undefined) hits.push(hit(ref.object, at(ref, mode), `${ENV.attestationMode} is not set (gke-oidc on GKE, aws-sts on EKS)`));
        else hits.push(hit(ref.object, at(ref, mode), `${ENV.attestationMode} is ${JSON.stringify(mode.value)}, not gke-oidc or aws-sts`));
      }
      return hits;
    },
  }),
  rule(RP["RP-07"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, container, containerPath } of set.containers()) {
        list<{ name?: string }>(container.env).forEach((env, index) => {
          if (env?.name === "AWS_SHARED_CREDENTIALS_FILE")
            hits.push(
              hit(object, [...containerPath, "env", index, "name"], "AWS_SHARED_CREDENTIALS_FILE points the SDK at a credentials file", "credentials-file"),
            );
          else if ((STATIC_AWS_ENV as readonly (string | undefined)[]).includes(env?.name))
            hits.push(hit(object, [...containerPath, "env", index, "name"], `${env.name} is a static AWS credential`));
        });
        list<{ mountPath?: string }>(container.volumeMounts).forEach((mount, index) => {
          if (typeof mount?.mountPath === "string" && AWS_DIR.test(mount.mountPath))
            hits.push(hit(object, [...containerPath, "volumeMounts", index, "mountPath"], `${mount.mountPath} mounts AWS shared credentials`, "aws-mount"));
        });
      }
      for (const ref of runnerContainers(set)) {
        const mode = flagOrEnv(ref.container, { env: ENV.secretStoreMode }, ROOTPILOT_READING);
        if (mode?.value === undefined) continue;
        if (!(SECRET_STORE_MODES as readonly string[]).includes(mode.value)) {
          hits.push(hit(ref.object, at(ref, mode), `${ENV.secretStoreMode} is ${JSON.stringify(mode.value)}, not aws or vault`, "store-mode"));
        } else if (mode.value === "aws") {
          const cred = flagOrEnv(ref.container, { env: ENV.awsCredMode }, ROOTPILOT_READING);
          if (cred?.value !== "chain" && cred?.from !== "envFrom" && !(cred?.from === "env" && cred.value === undefined)) {
            hits.push(
              hit(
                ref.object,
                at(ref, cred),
                `${ENV.awsCredMode} is ${cred?.value === undefined ? "unset" : JSON.stringify(cred.value)}, not chain`,
                "cred-mode",
              ),
            );
          }
        }
      }
      return hits;
    },
  }),
  rule(RP["RP-08"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const pod of set.pods()) {
        const policies = policiesSelecting(set, pod);
        if (policies.length === 0) {
          hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy selects the runner pods", "no-policy"));
          continue;
        }
        for (const gap of isolationGaps(policies)) {
          const opinion =
            gap.kind === "ingress-not-isolated" || gap.kind === "egress-not-isolated"
              ? "not-isolated"
              : gap.kind.startsWith("egress-")
                ? "any-destination"
                : undefined;
          const message =
            gap.kind === "ingress-allowed"
              ? `${gap.message}; the runner accepts no connections`
              : gap.kind === "dns-only"
                ? `${gap.message}: the runner cannot reach the control plane`
                : gap.message;
          hits.push(hit(gap.object, gap.path, message, opinion));
        }
      }
      return dedupe(hits);
    },
  }),
  rule(RP["RP-09"], {
    check: () => [],
  }),
  rule(RP["RP-10"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const endpoint = flagOrEnv(ref.container, { env: ENV.otelEndpoint }, ROOTPILOT_READING);
        if (endpoint?.value !== undefined && !isEndpoint(endpoint.value))
          hits.push(hit(ref.object, at(ref, endpoint), `${ENV.otelEndpoint} ${JSON.stringify(endpoint.value)} is not an absolute http(s) URL`));
      }
      return hits;
    },
  }),
];

function gkeHits(ref: ContainerRef): RuleHit[] {
  const { object, path, container, containerPath } = ref;
  const custom = flagOrEnv(container, { env: ENV.gkeTokenPath }, ROOTPILOT_READING);
  const file = custom?.value || GKE_TOKEN_PATH;
  const found = projectedToken(ref, container, file);
  if (!found) {
    return [
      hit(
        object,
        [...containerPath, "volumeMounts"],
        `no projected serviceAccountToken is mounted for ${file}; the runner fails with "RUNNER_ATTESTATION_MODE=gke-oidc: failed to read projected KSA token at ${file} (is the Workload Identity token volume mounted?)"`,
      ),
    ];
  }
  const tokenPath = [...path, ...found.at];
  const hits: RuleHit[] = [];
  if (found.token.audience !== ENROLL_AUDIENCE) {
    hits.push(
      hit(
        object,
        [...tokenPath, "audience"],
        `audience is ${found.token.audience === undefined ? "unset" : JSON.stringify(found.token.audience)}, not ${ENROLL_AUDIENCE}; the enroll is refused as attestation_invalid`,
      ),
    );
  }
  const seconds = found.token.expirationSeconds;
  if (seconds !== undefined && !(typeof seconds === "number" && seconds >= TOKEN_MIN_SECONDS)) {
    hits.push(hit(object, [...tokenPath, "expirationSeconds"], `expirationSeconds ${seconds} is below ${TOKEN_MIN_SECONDS}, which Kubernetes refuses`));
  }
  return hits;
}

function eksHits(set: ObjectSet, ref: ContainerRef): RuleHit[] {
  const { object, spec } = ref;
  const hits: RuleHit[] = [];
  const region = flagOrEnv(ref.container, { env: ENV.awsRegion }, ROOTPILOT_READING);
  const hidden = region?.from === "envFrom" || (region?.from === "env" && region.value === undefined);
  if (!hidden && !region?.value) hits.push(hit(object, at(ref, region), `AWS_REGION is not set; the runner fails at boot with "${MISSING_REGION_ERROR}"`));
  const account = spec.serviceAccountName ?? "default";
  const sa = set.ofKind("ServiceAccount").find((s) => s.metadata.name === account && s.metadata.namespace === object.metadata.namespace);
  if (sa) {
    const arn = sa.metadata.annotations?.[IRSA_ROLE_ANNOTATION];
    if (arn === undefined)
      hits.push(
        hit(sa, ["metadata", "annotations"], `the ServiceAccount has no ${IRSA_ROLE_ANNOTATION} annotation, so IRSA gives the runner no identity`, "irsa"),
      );
    else if (!ROLE_ARN.test(arn))
      hits.push(
        hit(sa, ["metadata", "annotations", IRSA_ROLE_ANNOTATION], `${JSON.stringify(arn)} is not an IAM role ARN (arn:aws:iam::<12 digits>:role/<name>)`),
      );
  }
  return hits;
}

/** One hit per object, field and message: two runner pods selected by one policy report its gaps once. */
function dedupe(hits: RuleHit[]): RuleHit[] {
  const seen = new Set<string>();
  return hits.filter((h) => {
    const key = JSON.stringify([h.object.kind, h.object.metadata.namespace, h.object.metadata.name, h.path.map(String), h.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isEndpoint(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
  } catch {
    return false;
  }
}
