// G-04 for every values file: secrets are referenced, never given, and a
// value that looks like one is refused without being echoed.

/** Keys whose name says they hold a secret: they take a reference object, never a string. */
const SECRET_KEY = /(password|passwd|passphrase|secret|token|apikey|privatekey|accesskey|secretkey|masterkey|credentials?)$/i;
/** Keys that hold a value inline when they sit under a secret-named key (`masterKey: {value: ...}`). */
const VALUE_KEYS = new Set(["value", "data", "stringData"]);
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
/** Credentials recognisable by their shape alone. */
const TOKEN_SHAPES: [RegExp, string][] = [
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, "holds an AWS access key ID"],
  [/\bgh[pousr]_[A-Za-z0-9]{36,}\b/, "holds a GitHub token"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}\b/, "holds a Slack token"],
  [/^eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+$/, "holds a JSON Web Token"],
];

/** Why a string looks like a secret itself, whatever key holds it. */
export function secretValueProblem(text: string): string | undefined {
  if (PRIVATE_KEY_PEM.test(text)) return "holds a PEM private key";
  // scheme://user:password@host, as in postgres://compass:hunter2@db/compass
  if (/(^|[^a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:[^/@\s]+@/i.test(text)) return "holds a URL carrying a password";
  const token = TOKEN_SHAPES.find(([pattern]) => pattern.test(text));
  return token?.[1];
}

export function isSecretKeyName(key: string): boolean {
  return SECRET_KEY.test(key);
}

export interface InlineSecret {
  path: PropertyKey[];
  message: string;
}

/** Every place in a values tree where a secret seems to be written inline. */
export function findInlineSecrets(data: unknown): InlineSecret[] {
  const found: InlineSecret[] = [];
  const walk = (node: unknown, path: PropertyKey[], underSecretKey: boolean) => {
    if (typeof node === "string") {
      const key = path.at(-1);
      const named = typeof key === "string" && (isSecretKeyName(key) || (underSecretKey && VALUE_KEYS.has(key)));
      const problem = secretValueProblem(node) ?? (named && node !== "" ? `holds an inline value under a key that names a secret` : undefined);
      if (problem) found.push({ path, message: problem });
      return;
    }
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, [...path, index], underSecretKey));
      return;
    }
    for (const key of Object.keys(node))
      walk((node as Record<string, unknown>)[key], [...path, key], underSecretKey || isSecretKeyName(key) || /secrets?$/i.test(key));
  };
  walk(data, [], false);
  return found;
}

export const INLINE_SECRET_FIX = "put the value in a Secret (kubectl create secret generic ...) and reference it by name and key; values never hold secrets";
