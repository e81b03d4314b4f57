// Strict Kubernetes object validation for the test suite (like `kubeconform -strict`),
// built only from packages generated from the upstream Kubernetes OpenAPI spec:
//
// 1. kubernetes-models: each class's `.validate()` runs a precompiled ajv validator
//    (types, required fields, formats, enums). Those schemas do NOT set
//    `additionalProperties: false`, so a misspelt or invented field passes silently.
// 2. @kubernetes/client-node: its generated models expose `getAttributeTypeMap()`,
//    the exact field list (and field types) of every upstream type. Walking the object
//    with these maps supplies the missing "unknown field" check.
//
// Neither package alone is strict; together they are. No schema is hand-written here.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as k8s from "@kubernetes/client-node";
import { ValidatingAdmissionPolicy } from "kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy";
import { ValidatingAdmissionPolicyBinding } from "kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding";
import { DaemonSet } from "kubernetes-models/apps/v1/DaemonSet";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ClusterRole } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole";
import { ClusterRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding";
import { Role } from "kubernetes-models/rbac.authorization.k8s.io/v1/Role";
import { RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding";
import { PriorityClass } from "kubernetes-models/scheduling.k8s.io/v1/PriorityClass";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { Pod } from "kubernetes-models/v1/Pod";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";

/** One schema violation; `path` is a JSON pointer into the validated object. */
export interface SchemaProblem {
  path: string;
  message: string;
}

type ModelClass = new (data?: any) => { validate(): void };
type Attr = { baseName: string; type: string };
type GeneratedModel = { getAttributeTypeMap(): Attr[] };

// apiVersion -> kind -> kubernetes-models class. Only the kinds rigging renders.
const MODELS: Record<string, Record<string, ModelClass>> = {
  v1: { Namespace, ServiceAccount, ConfigMap, Secret, Service, Pod, PersistentVolumeClaim },
  "apps/v1": { DaemonSet, Deployment, StatefulSet },
  "networking.k8s.io/v1": { NetworkPolicy },
  "admissionregistration.k8s.io/v1": { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding },
  "rbac.authorization.k8s.io/v1": { Role, ClusterRole, RoleBinding, ClusterRoleBinding },
  "policy/v1": { PodDisruptionBudget },
  "scheduling.k8s.io/v1": { PriorityClass },
};

// client-node exports its generated models as named exports (k8s.V1PodSpec, k8s.RbacV1Subject, ...).
const GENERATED = k8s as unknown as Record<string, Partial<GeneratedModel> | undefined>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const pointer = (base: string, key: string | number) => `${base}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;

/** Validates a manifest object: upstream types/required/formats/enums plus unknown fields. */
export function validateStrict(obj: unknown): SchemaProblem[] {
  if (!isObject(obj)) return [{ path: "", message: "not an object" }];
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  const id = `${String(apiVersion)}/${String(kind)}`;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !Object.hasOwn(MODELS, apiVersion) || !Object.hasOwn(MODELS[apiVersion], kind)) {
    return [{ path: "", message: `no schema for ${id}` }];
  }
  const Model = MODELS[apiVersion][kind];
  const problems: SchemaProblem[] = [];

  // 1. Upstream JSON schema (ajv, compiled with allErrors). The thrown error is ajv's
  //    ValidationError, whose `errors` carry instancePath (already a JSON pointer).
  try {
    new Model(obj).validate();
  } catch (err) {
    type AjvError = { instancePath: string; message?: string; params?: { allowedValues?: unknown[] } };
    const errors = (err as { errors?: AjvError[] }).errors;
    if (!errors) throw err;
    for (const e of errors) {
      const allowed = e.params?.allowedValues ? `: ${e.params.allowedValues.join(", ")}` : "";
      problems.push({ path: e.instancePath, message: `${e.message ?? "invalid"}${allowed}` });
    }
  }

  // 2. Unknown fields, from the client-node type map (V1DaemonSet, V1ValidatingAdmissionPolicy, ...).
  const modelName = `${apiVersion.slice(apiVersion.lastIndexOf("/") + 1).replace(/^v/, "V")}${kind}`;
  if (typeof GENERATED[modelName]?.getAttributeTypeMap !== "function") {
    problems.push({ path: "", message: `no field list (client-node model ${modelName}) for ${id}` });
  } else {
    walk(obj, modelName, "", problems);
  }
  return problems;
}

// Recurses by client-node type string: a model name, `Array<T>`, `{ [key: string]: T; }`, or a
// leaf (string, number, boolean, any, IntOrString, Date, object) where the walk stops. Values of
// the wrong shape are skipped here: ajv already reports type errors.
function walk(value: unknown, type: string, path: string, out: SchemaProblem[]): void {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, array[1], pointer(path, i), out));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (isObject(value)) for (const [k, v] of Object.entries(value)) walk(v, map[1], pointer(path, k), out);
    return;
  }
  const model = GENERATED[type];
  if (typeof model?.getAttributeTypeMap !== "function" || !isObject(value)) return;
  const fields = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  for (const [key, child] of Object.entries(value)) {
    const childType = fields.get(key);
    if (childType === undefined) out.push({ path: pointer(path, key), message: `unknown field "${key}" in ${type}` });
    else walk(child, childType, pointer(path, key), out);
  }
}

/** Which upstream Kubernetes API each package was generated from (package version if unrecorded). */
export function kubernetesSchemaVersion(): string {
  const require = createRequire(import.meta.url);
  const version = (pkg: string) => (require(`${pkg}/package.json`) as { version: string }).version;
  // client-node stamps "OpenAPI spec version: vX.Y.Z" into every generated model file.
  const header = readFileSync(require.resolve("@kubernetes/client-node").replace(/index\.js$/, "gen/models/V1PodSpec.js"), "utf8");
  const clientApi = /OpenAPI spec version: (\S+)/.exec(header)?.[1] ?? "unknown";
  // kubernetes-models records no Kubernetes version in its published files.
  return (
    `kubernetes-models@${version("kubernetes-models")} (Kubernetes version not recorded); ` +
    `@kubernetes/client-node@${version("@kubernetes/client-node")} (Kubernetes OpenAPI ${clientApi})`
  );
}
