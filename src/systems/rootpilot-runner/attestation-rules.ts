// RP-06 on manifests, per provider: the projected token the runner reads on GKE,
// the region and the IRSA ServiceAccount on EKS.
import { hit, type ContainerRef, type ObjectSet, type RuleHit } from "../../rules/engine.ts";
import { projectedToken } from "../../rules/templates.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { runnerFile, setting } from "./settings.ts";
import { ENROLL_AUDIENCE, ENV, GKE_TOKEN_PATH, IRSA_ROLE_ANNOTATION, MISSING_REGION_ERROR, ROLE_ARN, TOKEN_MIN_SECONDS } from "./interface.ts";

/** The field path of a variable inside the object, for a finding; its env list when it is unset. */
export function at(ref: ContainerRef, s: { path: PropertyKey[] } | undefined): PropertyKey[] {
  return [...ref.containerPath, ...(s?.path ?? ["env"])];
}

/** gke-oidc: a projected token for the enroll audience where the runner reads it. */
export function gkeHits(ref: ContainerRef): RuleHit[] {
  const { object, path, containerPath } = ref;
  const custom = setting(ref.container, ENV.gkeTokenPath);
  if (custom.hidden) return []; // the runner reads a path the input does not show
  const file = runnerFile(custom.value || GKE_TOKEN_PATH, ref.container);
  if (!file) return [];
  if ("problem" in file) return [hit(object, at(ref, custom.at), `${ENV.gkeTokenPath} ${file.problem}`)];
  const found = projectedToken(ref, ref.container, file.path);
  if (!found) {
    return [
      hit(
        object,
        [...containerPath, "volumeMounts"],
        `no projected serviceAccountToken is mounted for ${file.path}; the runner fails with "RUNNER_ATTESTATION_MODE=gke-oidc: failed to read projected KSA token at ${file.path} (is the Workload Identity token volume mounted?)"`,
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

/** aws-sts: AWS_REGION, and the role IRSA gives through the pods' ServiceAccount. */
export function eksHits(set: ObjectSet, ref: ContainerRef): RuleHit[] {
  const { object } = ref;
  const hits: RuleHit[] = [];
  const region = setting(ref.container, ENV.awsRegion);
  if (!region.hidden && !region.value)
    hits.push(hit(object, at(ref, region.at), `AWS_REGION is not set; the runner fails at boot with "${MISSING_REGION_ERROR}"`));
  const account = serviceAccountOf(set, ref);
  if ("elsewhere" in account) hits.push(account.elsewhere);
  const sa = "found" in account ? account.found : undefined;
  if (!sa) return hits;
  const arn = sa.metadata.annotations?.[IRSA_ROLE_ANNOTATION];
  if (arn === undefined)
    hits.push(
      hit(sa, ["metadata", "annotations"], `the ServiceAccount has no ${IRSA_ROLE_ANNOTATION} annotation, so IRSA gives the runner no identity`, "irsa"),
    );
  else if (!ROLE_ARN.test(arn))
    hits.push(
      hit(sa, ["metadata", "annotations", IRSA_ROLE_ANNOTATION], `${JSON.stringify(arn)} is not an IAM role ARN (arn:aws:iam::<12 digits>:role/<name>)`),
    );
  return hits;
}

/**
 * The pods' ServiceAccount in the input: same name and namespace (an omitted namespace is the
 * stage's to fill). One of that name elsewhere is said, since IRSA never reads it; none is not judged.
 */
function serviceAccountOf(set: ObjectSet, ref: ContainerRef): { found: K8sObject } | { elsewhere: RuleHit } | { none: true } {
  const name = ref.spec.serviceAccountName || "default";
  const namespace = ref.object.metadata.namespace;
  const named = set.ofKind("ServiceAccount").filter((s) => s.metadata.name === name);
  const found = named.find((s) => s.metadata.namespace === namespace);
  if (found) return { found };
  if (named.length === 0) return { none: true };
  const other = named[0];
  const where = (ns: string | undefined) => (ns ? `namespace ${ns}` : "no namespace");
  const message =
    namespace && other.metadata.namespace
      ? `ServiceAccount ${name} is in ${where(other.metadata.namespace)}, but the runner pods run in ${where(namespace)}: IRSA reads the annotation of the pods' own ServiceAccount, never this one`
      : `ServiceAccount ${name} names ${where(other.metadata.namespace)} and the runner's ${ref.object.kind} ${where(namespace)}, while the input's namespaces disagree: not judged whether IRSA reads this one`;
  return { elsewhere: hit(other, other.metadata.namespace ? ["metadata", "namespace"] : ["metadata"], message, "service-account") };
}
