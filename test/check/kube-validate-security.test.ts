// A pod's and a container's securityContext as kube-apiserver validates them: an object it accepts
// and one it refuses for each check.
import { describe, it } from "vitest";
import { accepts, type Obj, refuses } from "../support/api-server.ts";

const pod = (spec: Obj = {}, container: Obj = {}): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web" },
  spec: { containers: [{ name: "web", image: "nginx:1.27", ...container }], ...spec },
});
const podContext = (sc: Obj) => pod({ securityContext: sc });
const containerContext = (sc: Obj) => pod({}, { securityContext: sc });
const C = "spec.containers.0.securityContext";

describe("user and group ids (IsValidUserID, IsValidGroupID)", () => {
  it("are 0 to 2147483647, in the pod's context and a container's", () => {
    accepts(podContext({ runAsUser: 0, runAsGroup: 2147483647, fsGroup: 1000, supplementalGroups: [1, 2] }));
    refuses(podContext({ runAsUser: -1 }), "spec.securityContext.runAsUser", "outside 0-2147483647");
    refuses(podContext({ fsGroup: 2147483648 }), "spec.securityContext.fsGroup", "outside 0-2147483647");
    refuses(podContext({ supplementalGroups: [1000, -5] }), "spec.securityContext.supplementalGroups.1", "outside 0-2147483647");
    refuses(containerContext({ runAsGroup: -1 }), `${C}.runAsGroup`, "outside 0-2147483647");
  });
});

describe("seccomp and AppArmor profiles", () => {
  it("name a localhostProfile exactly when the type is Localhost, a relative seccomp file", () => {
    accepts(podContext({ seccompProfile: { type: "Localhost", localhostProfile: "profiles/audit.json" } }));
    refuses(podContext({ seccompProfile: { type: "Localhost" } }), "spec.securityContext.seccompProfile.localhostProfile", "needs localhostProfile");
    refuses(
      containerContext({ seccompProfile: { type: "Localhost", localhostProfile: "/abs.json" } }),
      `${C}.seccompProfile.localhostProfile`,
      "relative path",
    );
    refuses(
      podContext({ seccompProfile: { type: "Localhost", localhostProfile: "../x.json" } }),
      "spec.securityContext.seccompProfile.localhostProfile",
      "without '..'",
    );
    refuses(
      podContext({ seccompProfile: { type: "RuntimeDefault", localhostProfile: "a.json" } }),
      "spec.securityContext.seccompProfile.localhostProfile",
      "only when the type is Localhost",
    );
  });

  it("judge AppArmor from 1.30, where the field is served", () => {
    accepts(podContext({ appArmorProfile: { type: "Localhost", localhostProfile: "k8s-nginx" } }));
    refuses(podContext({ appArmorProfile: { type: "Localhost" } }), "spec.securityContext.appArmorProfile.localhostProfile", "needs localhostProfile");
    refuses(
      podContext({ appArmorProfile: { type: "Localhost", localhostProfile: " padded " } }),
      "spec.securityContext.appArmorProfile.localhostProfile",
      "padded",
    );
    refuses(
      containerContext({ appArmorProfile: { type: "Unconfined", localhostProfile: "x" } }),
      `${C}.appArmorProfile.localhostProfile`,
      "only when the type is Localhost",
    );
  });
});

describe("privilege escalation switched off (ValidateSecurityContext)", () => {
  it("cannot sit beside privileged, or CAP_SYS_ADMIN spelt so", () => {
    accepts(containerContext({ allowPrivilegeEscalation: false, privileged: false, capabilities: { add: ["NET_BIND_SERVICE"] } }));
    refuses(containerContext({ allowPrivilegeEscalation: false, privileged: true }), C, "while privileged is true");
    refuses(containerContext({ allowPrivilegeEscalation: false, capabilities: { add: ["CAP_SYS_ADMIN"] } }), C, "CAP_SYS_ADMIN");
    // The API server compares the text: SYS_ADMIN (which the runtime adds as CAP_SYS_ADMIN) passes.
    accepts(containerContext({ allowPrivilegeEscalation: false, capabilities: { add: ["SYS_ADMIN"] } }));
  });

  it("shares the process namespace only without hostPID", () => {
    accepts(pod({ shareProcessNamespace: true }));
    refuses(pod({ shareProcessNamespace: true, hostPID: true }), "spec.shareProcessNamespace", "cannot both be true");
  });
});
