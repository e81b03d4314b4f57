// What kube-apiserver refuses in a pod spec beyond the OpenAPI schema, wherever a pod template is
// (k8s.io/kubernetes/pkg/apis/core/validation/validation.go ValidatePodSpec, ValidatePodTemplateSpec).
import { GO_SPACE, isDNS1123Label, isDNS1123Subdomain } from "../k8s/validation.ts";
import { checkContainerPorts, checkEnv, checkLifecycle, checkProbes, checkResources, checkVolumeMounts } from "./kube-validate-container.ts";
import { checkScheduling } from "./kube-validate-scheduling.ts";
import { checkVolumeSource } from "./kube-validate-volumes.ts";
import { checkContainerSecurity, checkPodSecurity } from "./kube-validate-security.ts";
import { atLeast, type Ctx, checkAnnotations, checkLabels, int, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";

export interface PodOptions {
  /** A Pod, not a pod template (SetDefaults_Pod, ValidatePodCreate). */
  isPod?: boolean;
  /** A StatefulSet's: its volumeClaimTemplates are volumes, and the controller sets hostname and subdomain. */
  statefulSet?: { claims: unknown; path: Path };
}

/** ValidatePodTemplateSpec: the template's labels and annotations, then its pod spec. */
export function checkPodTemplate(template: unknown, path: Path, ctx: Ctx, options: PodOptions = {}): void {
  if (!isRecord(template)) return;
  const meta = isRecord(template.metadata) ? template.metadata : {};
  checkLabels(meta.labels, [...path, "metadata", "labels"], ctx);
  checkAnnotations(meta.annotations, [...path, "metadata", "annotations"], ctx);
  checkPodSpec(template.spec, [...path, "spec"], ctx, options);
}

/** ValidatePodSpec, in its order: volumes, containers, init and ephemeral containers, then the pod's own fields. */
export function checkPodSpec(spec: unknown, path: Path, ctx: Ctx, options: PodOptions = {}): void {
  if (!isRecord(spec)) return;
  const volumes = checkVolumes(spec, path, ctx, options);
  const names = new Set<string>();
  const containers = list(spec.containers);
  containers.forEach((c, i) => {
    if (!isRecord(c)) return;
    const at = [...path, "containers", i];
    checkContainer(c, volumes, names, at, ctx, options);
    checkLifecycle(c, at, ctx);
    checkProbes(c, at, ctx);
  });
  checkHostPorts(spec, containers, [...path, "containers"], ctx, options);
  list(spec.initContainers).forEach((c, i) => {
    if (!isRecord(c)) return;
    const at = [...path, "initContainers", i];
    checkContainer(c, volumes, names, at, ctx, options);
    // Init containers run one at a time: a hostPort conflicts only within one.
    checkHostPorts(spec, [c], [...path, "initContainers"], ctx, options, i);
    // A sidecar (restartPolicy Always, honoured from 1.29 where SidecarContainers is on) takes probes and lifecycle.
    if (c.restartPolicy === "Always" && (ctx.minor === undefined || ctx.minor >= 29)) {
      checkLifecycle(c, at, ctx);
      checkProbes(c, at, ctx);
      return;
    }
    for (const field of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"])
      if (c[field] !== undefined && c[field] !== null)
        report(ctx, [...at, field], `an init container cannot set ${field} unless it is a sidecar (restartPolicy: Always)`);
  });
  checkEphemeral(spec, volumes, names, path, ctx, options);
  checkHostNetwork(spec, path, ctx);
  checkPodFields(spec, path, ctx, options);
  checkScheduling(spec, path, ctx);
  checkPodSecurity(spec, path, ctx);
}

/** v1.VolumeSource's members; validateVolumeSource counts those set. */
const VOLUME_TYPES = [
  ...["hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim"],
  ...["rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk"],
  ...["photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image"],
];

/** ValidateVolumes: names are unique DNS-1123 labels, each volume of one type (SetDefaults_Volume makes an empty one an emptyDir). */
function checkVolumes(spec: Record<string, unknown>, path: Path, ctx: Ctx, options: PodOptions): Set<string> {
  // Only a volume without errors is remembered (ValidateVolumes' allNames), so a later one of its name is the duplicate.
  const valid = new Set<string>();
  const claimNames = new Set<string>();
  // ValidateStatefulSetSpec adds a volume per volumeClaimTemplate, replacing a template volume of that name.
  if (options.statefulSet) {
    list(options.statefulSet.claims).forEach((claim, i) => {
      const name = isRecord(claim) && isRecord(claim.metadata) ? str(claim.metadata.name) : undefined;
      if (name === undefined || claimNames.has(name)) return;
      claimNames.add(name);
      const at = [...options.statefulSet!.path, i, "metadata", "name"];
      if (name === "") report(ctx, at, "a volumeClaimTemplate needs a name: it names a volume of the pods");
      else if (isDNS1123Label(name).length > 0)
        report(ctx, at, `${show(name)} is not a valid volume name (a volumeClaimTemplate names a volume): ${RULES.label}`);
      else valid.add(name);
    });
  }
  list(spec.volumes).forEach((volume, i) => {
    if (!isRecord(volume)) return;
    const name = str(volume.name);
    if (name === undefined || claimNames.has(name)) return;
    const at = [...path, "volumes", i];
    let ok = true;
    const types = VOLUME_TYPES.filter((k) => volume[k] !== undefined && volume[k] !== null);
    if (types.length > 1) {
      report(ctx, [...at, types[1]], `volume ${show(name)} sets ${types.join(" and ")}: a volume has exactly one type`);
      ok = false;
    }
    if (name === "") {
      report(ctx, [...at, "name"], "a volume needs a name");
      ok = false;
    } else if (isDNS1123Label(name).length > 0) {
      report(ctx, [...at, "name"], `${show(name)} is not a valid volume name: ${RULES.label}`);
      ok = false;
    }
    if (!checkVolumeSource(volume, at, ctx)) ok = false;
    if (valid.has(name)) {
      report(ctx, [...at, "name"], `volume name ${show(name)} is used twice: volume names must be unique in a pod`);
      ok = false;
    }
    if (ok) valid.add(name);
  });
  return valid;
}

/** validateContainerCommon and the name's uniqueness across containers, initContainers and ephemeralContainers. */
function checkContainer(c: Record<string, unknown>, volumes: ReadonlySet<string>, names: Set<string>, at: Path, ctx: Ctx, options: PodOptions = {}): void {
  const name = str(c.name);
  if (name === "") report(ctx, [...at, "name"], "a container needs a name");
  else if (name !== undefined) {
    if (isDNS1123Label(name).length > 0) report(ctx, [...at, "name"], `${show(name)} is not a valid container name: ${RULES.label}`);
    if (names.has(name))
      report(
        ctx,
        [...at, "name"],
        `container name ${show(name)} is used twice: names must be unique across containers, initContainers and ephemeralContainers`,
      );
    names.add(name);
  }
  checkImage(c.image, [...at, "image"], ctx, options);
  checkContainerPorts(c.ports, [...at, "ports"], ctx);
  checkEnv(c, at, ctx);
  checkVolumeMounts(c.volumeMounts, volumes, [...at, "volumeMounts"], ctx);
  checkResources(c, at, ctx);
  checkContainerSecurity(c, at, ctx);
}

/** validateContainerCommon: an image, in a template too; validateContainerOnlyForPod (from 1.29): a Pod's without white space around it. */
function checkImage(image: unknown, at: Path, ctx: Ctx, options: PodOptions): void {
  if (image === undefined || image === null || image === "") report(ctx, at, "a container needs an image");
  else if (typeof image === "string" && options.isPod && atLeast(ctx, 29) && (GO_SPACE.test(image[0]) || GO_SPACE.test(image[image.length - 1])))
    report(ctx, at, `image ${show(image)} has white space around it`);
}

/** ValidatePodCreate and ValidatePodTemplateSpec refuse ephemeral containers; their names are still checked as upstream does. */
function checkEphemeral(spec: Record<string, unknown>, volumes: ReadonlySet<string>, names: Set<string>, path: Path, ctx: Ctx, options: PodOptions): void {
  const ephemeral = list(spec.ephemeralContainers);
  if (ephemeral.length === 0) return;
  const where = options.isPod ? "on create: they are added later through the pod's ephemeralcontainers subresource" : "in a pod template";
  report(ctx, [...path, "ephemeralContainers"], `ephemeralContainers cannot be set ${where}`);
  ephemeral.forEach((c, i) => {
    if (isRecord(c)) checkContainer(c, volumes, names, [...path, "ephemeralContainers", i], ctx);
  });
}

/**
 * The hostPort a port takes: its own, or with hostNetwork its containerPort, as SetDefaults_Pod fills
 * it (and SetDefaults_PodSpec for templates up to 1.27).
 */
function hostPortOf(spec: Record<string, unknown>, port: Record<string, unknown>, ctx: Ctx, options: PodOptions): number {
  const hostPort = int(port.hostPort) ?? 0;
  if (hostPort !== 0 || spec.hostNetwork !== true) return hostPort;
  return options.isPod || (ctx.minor !== undefined && ctx.minor <= 27) ? (int(port.containerPort) ?? 0) : 0;
}

/** AccumulateUniqueHostPorts: protocol, hostIP and hostPort together are unique. */
function checkHostPorts(spec: Record<string, unknown>, containers: unknown[], path: Path, ctx: Ctx, options: PodOptions, offset = 0): void {
  const used = new Set<string>();
  containers.forEach((c, ci) => {
    if (!isRecord(c)) return;
    list(c.ports).forEach((port, pi) => {
      if (!isRecord(port)) return;
      const hostPort = hostPortOf(spec, port, ctx, options);
      if (hostPort === 0) return;
      const protocol = str(port.protocol) || "TCP";
      const hostIP = str(port.hostIP) ?? "";
      const key = `${protocol}/${hostIP}/${hostPort}`;
      if (used.has(key))
        report(
          ctx,
          [...path, offset + ci, "ports", pi, "hostPort"],
          `hostPort ${hostPort}/${protocol}${hostIP ? ` on ${hostIP}` : ""} is used twice in this pod: a protocol, hostIP and hostPort can be taken once`,
        );
      used.add(key);
    });
  });
}

/** validatePodHostNetworkDeps: with hostNetwork, a hostPort that is set must equal the containerPort. */
function checkHostNetwork(spec: Record<string, unknown>, path: Path, ctx: Ctx): void {
  if (spec.hostNetwork !== true) return;
  list(spec.containers).forEach((c, ci) => {
    list(isRecord(c) ? c.ports : undefined).forEach((port, pi) => {
      if (!isRecord(port)) return;
      const hostPort = int(port.hostPort) ?? 0;
      const containerPort = int(port.containerPort);
      if (hostPort !== 0 && containerPort !== undefined && hostPort !== containerPort)
        report(
          ctx,
          [...path, "containers", ci, "ports", pi, "hostPort"],
          `hostPort ${hostPort} must equal containerPort ${containerPort} when hostNetwork is true`,
        );
    });
  });
}

/** ValidatePodSpec's own fields: nodeSelector, serviceAccountName, hostname, subdomain, priorityClassName. */
function checkPodFields(spec: Record<string, unknown>, path: Path, ctx: Ctx, options: PodOptions): void {
  checkLabels(spec.nodeSelector, [...path, "nodeSelector"], ctx, "nodeSelector");
  for (const field of ["serviceAccountName", "priorityClassName"]) {
    const value = str(spec[field]);
    if (value && isDNS1123Subdomain(value).length > 0) report(ctx, [...path, field], `${show(value)} is not a valid ${field}: ${RULES.subdomain}`);
  }
  // The StatefulSet controller overwrites both, so ValidateStatefulSetSpec does not validate them.
  if (options.statefulSet) return;
  for (const field of ["hostname", "subdomain"]) {
    const value = str(spec[field]);
    if (value && isDNS1123Label(value).length > 0) report(ctx, [...path, field], `${show(value)} is not a valid ${field}: ${RULES.label}`);
  }
}

/** The pod's restartPolicy after SetDefaults_PodSpec (Always when unset). */
export function restartPolicyOf(spec: unknown): unknown {
  const policy = isRecord(spec) ? spec.restartPolicy : undefined;
  return policy === undefined || policy === null || policy === "" ? "Always" : policy;
}

/** ValidatePodTemplateSpecForReplicaSet and the like: a controller's pods restart Always and have no activeDeadlineSeconds. */
export function checkAlwaysRestarts(spec: unknown, path: Path, kind: string, ctx: Ctx): void {
  const policy = restartPolicyOf(spec);
  if (typeof policy === "string" && policy !== "Always")
    report(ctx, [...path, "restartPolicy"], `a ${kind}'s pods must have restartPolicy Always, not ${show(policy)}`);
  if (isRecord(spec) && spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null)
    report(ctx, [...path, "activeDeadlineSeconds"], `a ${kind}'s pods cannot set activeDeadlineSeconds`);
}
