// A PersistentVolumeClaim's spec and a StatefulSet's volumeClaimTemplates as kube-apiserver validates
// them: an object it accepts and one it refuses for each check, and the releases that judge them.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const claimSpec = (extra: Obj = {}): Obj => ({ accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } }, ...extra });
const claim = (extra: Obj = {}): Obj => ({ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data" }, spec: claimSpec(extra) });
const labels = { app: "db" };
const statefulSet = (template: Obj): Obj => ({
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "db" },
  spec: {
    serviceName: "db",
    selector: { matchLabels: labels },
    template: { metadata: { labels }, spec: { containers: [{ name: "db", image: "postgres:17" }] } },
    volumeClaimTemplates: [{ metadata: { name: "data" }, spec: template }],
  },
});

describe("a PersistentVolumeClaim (ValidatePersistentVolumeClaimSpec)", () => {
  it("takes at least one access mode, and ReadWriteOncePod alone", () => {
    accepts(claim());
    accepts(claim({ accessModes: ["ReadWriteOncePod"] }));
    refuses(claim({ accessModes: [] }), "spec.accessModes", "at least one access mode");
    refuses(claim({ accessModes: ["ReadWriteOncePod", "ReadWriteOnce"] }), "spec.accessModes", "ReadWriteOncePod cannot be combined");
  });

  it("asks for a storage size above zero", () => {
    refuses(claim({ resources: { requests: { cpu: "1" } } }), "spec.resources.requests", "needs resources.requests.storage");
    refuses(claim({ resources: {} }), "spec.resources.requests", "needs resources.requests.storage");
    refuses(claim({ resources: { requests: { storage: "0" } } }), "spec.resources.requests.storage", "must be greater than zero");
    refuses(claim({ resources: { requests: { storage: "-1Gi" } } }), "spec.resources.requests.storage", "must be greater than zero");
  });

  it("names its StorageClass as a subdomain, and selects by valid labels", () => {
    accepts(claim({ storageClassName: "" }));
    accepts(claim({ storageClassName: "fast.ssd" }));
    refuses(claim({ storageClassName: "Fast_SSD" }), "spec.storageClassName", "is not a valid StorageClass name");
    refuses(claim({ selector: { matchLabels: { tier: "-x-" } } }), "spec.selector.matchLabels.tier", "is not a valid");
  });

  it("judges a data source the create keeps: a claim or snapshot, or one beside a dataSourceRef", () => {
    accepts(claim({ dataSource: { kind: "PersistentVolumeClaim", name: "seed" } }));
    accepts(claim({ dataSource: { apiGroup: "snapshot.storage.k8s.io", kind: "VolumeSnapshot", name: "nightly" } }));
    // Dropped on create without a dataSourceRef (EnforceDataSourceBackwardsCompatibility): the API server accepts the claim.
    accepts(claim({ dataSource: { kind: "Pod", name: "web" } }));
    refuses(claim({ dataSource: { kind: "PersistentVolumeClaim", name: "" } }), "spec.dataSource.name", "needs the name");
    refuses(claim({ dataSourceRef: { kind: "Pod", name: "web" } }), "spec.dataSourceRef", 'is a PersistentVolumeClaim, not "Pod"');
    refuses(claim({ dataSourceRef: { apiGroup: "Populators", kind: "Seed", name: "x" } }), "spec.dataSourceRef.apiGroup", "is not a valid API group");
    accepts(claim({ dataSourceRef: { apiGroup: "Populators", kind: "Seed", name: "x" } }), "1.24");
  });
});

describe("a StatefulSet's volumeClaimTemplates (validateVolumeClaimTemplates, from 1.34)", () => {
  it("are validated as claims from 1.34, and not before", () => {
    accepts(statefulSet(claimSpec()));
    refuses(statefulSet(claimSpec({ accessModes: [] })), "spec.volumeClaimTemplates.0.spec.accessModes", "at least one access mode", "1.34");
    accepts(statefulSet(claimSpec({ accessModes: [] })), "1.33");
    // A template keeps its data source: no create normalises it.
    refuses(statefulSet(claimSpec({ dataSource: { kind: "Pod", name: "web" } })), "spec.volumeClaimTemplates.0.spec.dataSource", 'not "Pod"');
  });
});
