// The Server's configuration file (CS-09), rendered into a ConfigMap and
// mounted read-only. It holds where things are, never a secret: secrets
// arrive as files of Secret volumes or as environment variables fed from
// Secrets, and the file names the path or the variable.
import { parse } from "yaml";
import { toYaml } from "../../core/emit.ts";
import { natsUrlOf } from "./nats.ts";
import { DATABASE_URL_ENV, FORGE_DIR, NATS_PASSWORD_ENV, SERVER_TLS_PORT } from "./ports.ts";
import type { ClusterEntry, ServerFields } from "./values.ts";

export const FORGE_FILES = { appId: "app-id", privateKey: "private-key.pem", webhookSecret: "webhook-secret" } as const;
export const FORGE_APPS = { app: "app", reviewerApp: "reviewer-app" } as const;

export function forgeAppDir(which: keyof typeof FORGE_APPS): string {
  return `${FORGE_DIR}/${FORGE_APPS[which]}`;
}

function forgeAppFiles(which: keyof typeof FORGE_APPS) {
  const dir = forgeAppDir(which);
  return { appIdFile: `${dir}/${FORGE_FILES.appId}`, privateKeyFile: `${dir}/${FORGE_FILES.privateKey}`, webhookSecretFile: `${dir}/${FORGE_FILES.webhookSecret}` };
}

export function serverConfig(v: ServerFields, clusters: readonly ClusterEntry[]): Record<string, unknown> {
  const config: Record<string, unknown> = {
    listen: `:${SERVER_TLS_PORT}`,
    publicURL: `https://${v.publicHost}`,
    // D3: the Server migrates its schema at boot; nothing runs before it.
    database: { urlEnv: DATABASE_URL_ENV, migrateAtBoot: true },
    nats: { url: natsUrlOf(v.name, v.namespace, v.nats), user: v.nats.user, passwordEnv: NATS_PASSWORD_ENV },
  };
  if (v.forge) {
    config.forge = {
      provider: v.forge.provider,
      url: v.forge.url,
      app: forgeAppFiles("app"),
      ...(v.forge.reviewerApp ? { reviewerApp: forgeAppFiles("reviewerApp") } : {}),
    };
  }
  config.clusters = clusters.map((c) => ({ name: c.name, namespace: c.namespace, serviceAccount: c.serviceAccount, audience: c.audience, maxTokenLifetime: c.maxTokenLifetime }));
  return config;
}

export function serverConfigText(v: ServerFields, clusters: readonly ClusterEntry[]): string {
  return `# Compass Server configuration rendered by rigging; secrets are files or Secret-fed variables, never values.\n${toYaml(serverConfig(v, clusters))}`;
}

/** Reads a config file back (rules and tests); undefined when it is not a YAML mapping. */
export function parseServerConfig(text: string): Record<string, unknown> | undefined {
  try {
    const data = parse(text);
    return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
