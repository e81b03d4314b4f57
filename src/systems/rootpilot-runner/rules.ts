// Rootpilot runner rules (RP-), over render's output and anyone's manifests:
// the Rootpilot Kubernetes guide's statements are errors, our own hardening
// is a waivable warning.
import type { Probe } from "kubernetes-types/core/v1";
import { hit, type ContainerRef, type ObjectSet, type Rule, type RuleHit } from "../../rules/engine.ts";
import { cleanPath } from "../../k8s/clean-path.ts";
import { isolationGaps, mountHolding, mountPoint, policiesSelecting, volumeAt } from "../../rules/templates.ts";
import { ATTESTATION_MODES, DEFAULT_DRAIN_TIMEOUT_MS, ENV, HOME_DIR, NODE_UID, SECRET_STORE_MODES, STATIC_AWS_ENV, gracePeriodFor } from "./interface.ts";
import { at, eksHits, gkeHits } from "./attestation-rules.ts";
import { runnerFile, setting } from "./settings.ts";
import { RP } from "./requirements.ts";
import { rule } from "../../rules/requirement-data.ts";
import { dig, list } from "../../k8s/access.ts";

/** Kubernetes' own default when a pod sets no grace period. */
const KUBERNETES_DEFAULT_GRACE = 30;

/** The runner's app containers (init containers do not read the runner's environment). */
function runnerContainers(set: ObjectSet): ContainerRef[] {
  return set.containers().filter((c) => c.containerPath[c.containerPath.length - 2] === "containers");
}

const WHOLE_NUMBER = /^[0-9]+$/;
const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"] as const;
const NETWORK_HANDLERS = ["httpGet", "tcpSocket", "grpc"] as const;

/** The $HOME the runner's process sees, cleaned: HOME when set (a relative or empty one depends on the working directory), else the home of the uid in the image (node's for 1000 or unset). */
function homeOf(ref: ContainerRef): string | undefined {
  const home = setting(ref.container, ENV.home);
  if (home.hidden) return undefined;
  if (home.value !== undefined) return home.value.startsWith("/") ? cleanPath(home.value) : undefined;
  const uid = ref.container.securityContext?.runAsUser ?? ref.spec.securityContext?.runAsUser;
  return uid === undefined || uid === NODE_UID ? HOME_DIR : undefined;
}

/** A mount of ~/.aws, where the kubelet mounts it (its path made absolute and cleaned). */
const AWS_DIR = /\/\.aws$/;

function awsMount(mountPath: unknown): boolean {
  return typeof mountPath === "string" && AWS_DIR.test(mountPoint(mountPath));
}

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
        const sdkDir = home === undefined ? undefined : cleanPath(`${home}/.aws`);
        list<{ mountPath?: string }>(container.volumeMounts).forEach((mount, index) => {
          if (sdkDir === undefined || !awsMount(mount?.mountPath) || mountPoint(mount.mountPath as string) === sdkDir) return;
          hits.push(
            hit(
              object,
              [...containerPath, "volumeMounts", index, "mountPath"],
              `~/.aws is mounted at ${mount.mountPath}, but $HOME is ${home}: the SDK reads ${sdkDir} and never this mount`,
            ),
          );
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
        const drain = setting(ref.container, ENV.drainTimeout);
        if (drain.hidden) continue; // from a Secret or a ConfigMap outside the input: not judged
        if (drain.value !== undefined && !WHOLE_NUMBER.test(drain.value)) {
          hits.push(hit(object, at(ref, drain.at), `${ENV.drainTimeout} is ${JSON.stringify(drain.value)}, not a whole number of milliseconds`));
          continue;
        }
        const drainMs = drain.value !== undefined ? Number(drain.value) : DEFAULT_DRAIN_TIMEOUT_MS;
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
        const flush = setting(ref.container, ENV.flushInterval);
        if (!flush.hidden && flush.value !== undefined && (!WHOLE_NUMBER.test(flush.value) || Number(flush.value) === 0)) {
          hits.push(hit(ref.object, at(ref, flush.at), `${ENV.flushInterval} is ${JSON.stringify(flush.value)}, not a positive whole number of milliseconds`));
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
        hits.push(...storeHits(ref));
      }
      return hits;
    },
  }),
  rule(RP["RP-06"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const mode = setting(ref.container, ENV.attestationMode);
        if (mode.hidden) continue; // not visible in the input
        if (mode.value === ATTESTATION_MODES.gke) hits.push(...gkeHits(ref));
        else if (mode.value === ATTESTATION_MODES.eks) hits.push(...eksHits(set, ref));
        else if (mode.value === "eks-oidc")
          hits.push(hit(ref.object, at(ref, mode.at), "RUNNER_ATTESTATION_MODE is eks-oidc; on EKS the runner attests with aws-sts through IRSA"));
        else if (mode.value === undefined) hits.push(hit(ref.object, at(ref, mode.at), `${ENV.attestationMode} is not set (gke-oidc on GKE, aws-sts on EKS)`));
        else hits.push(hit(ref.object, at(ref, mode.at), `${ENV.attestationMode} is ${JSON.stringify(mode.value)}, not gke-oidc or aws-sts`));
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
          if (awsMount(mount?.mountPath))
            hits.push(hit(object, [...containerPath, "volumeMounts", index, "mountPath"], `${mount.mountPath} mounts AWS shared credentials`, "aws-mount"));
        });
      }
      for (const ref of runnerContainers(set)) {
        const mode = setting(ref.container, ENV.secretStoreMode);
        if (mode.hidden || mode.value === undefined) continue;
        if (!(SECRET_STORE_MODES as readonly string[]).includes(mode.value)) {
          hits.push(hit(ref.object, at(ref, mode.at), `${ENV.secretStoreMode} is ${JSON.stringify(mode.value)}, not aws or vault`, "store-mode"));
        } else if (mode.value === "aws") {
          const cred = setting(ref.container, ENV.awsCredMode);
          if (cred.value !== "chain" && !cred.hidden) {
            hits.push(
              hit(
                ref.object,
                at(ref, cred.at),
                `${ENV.awsCredMode} is ${cred.value === undefined ? "unset" : JSON.stringify(cred.value)}, not chain`,
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
        const endpoint = setting(ref.container, ENV.otelEndpoint);
        if (!endpoint.hidden && endpoint.value !== undefined && !isEndpoint(endpoint.value))
          hits.push(hit(ref.object, at(ref, endpoint.at), `${ENV.otelEndpoint} ${JSON.stringify(endpoint.value)} is not an absolute http(s) URL`));
      }
      return hits;
    },
  }),
];

/** RP-05's learned store: a file the runner can write, on an emptyDir (a cache). */
function storeHits(ref: ContainerRef): RuleHit[] {
  const store = setting(ref.container, ENV.learnedStorePath);
  if (store.hidden || !store.value || store.value === ":memory:") return [];
  const file = runnerFile(store.value, ref.container);
  if (!file) return [];
  const where = at(ref, store.at);
  if ("problem" in file) return [hit(ref.object, where, `${ENV.learnedStorePath} ${file.problem}`)];
  const mounted = mountHolding(ref, ref.container, file.path);
  if (!mounted) {
    if (ref.container.securityContext?.readOnlyRootFilesystem === true)
      return [hit(ref.object, where, `${ENV.learnedStorePath} ${store.value} is on the read-only root filesystem: the runner cannot write it`)];
    return [hit(ref.object, where, `${ENV.learnedStorePath} ${store.value} is on the container's root filesystem, not an emptyDir`, "not-empty-dir")];
  }
  const volume = mounted.volume;
  if (volume?.emptyDir || volume?.persistentVolumeClaim || volume?.ephemeral) return [];
  return [hit(ref.object, where, `${ENV.learnedStorePath} ${store.value} is on volume ${mounted.mount.name}, which is not an emptyDir`, "not-empty-dir")];
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
