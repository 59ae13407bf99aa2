// Choosing the model: the real Messages API when a key is set, the scripted model otherwise.
// The SDK is imported only when a real client is made: it is the slowest part of start-up, and
// offline runs do not need it.
import type { ModelClient } from "./types.ts";

/** A current model; override with MODEL_ID. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

export interface ModelChoice {
  offline: boolean;
  modelId: string;
  /** Why this choice was made, for the banner. */
  reason: string;
  baseURL?: string;
}

export function chooseModel(env: NodeJS.ProcessEnv, forceOffline: boolean): ModelChoice {
  const modelId = env.MODEL_ID?.trim() || DEFAULT_MODEL;
  const hasKey = Boolean(env.ANTHROPIC_API_KEY?.trim() || env.ANTHROPIC_AUTH_TOKEN?.trim());
  if (forceOffline) return { offline: true, modelId, reason: "--offline was given" };
  if (!hasKey) return { offline: true, modelId, reason: "no ANTHROPIC_API_KEY is set" };
  return { offline: false, modelId, reason: "ANTHROPIC_API_KEY is set", baseURL: env.ANTHROPIC_BASE_URL || undefined };
}

/** The real SDK client. Key and token are passed explicitly so the SDK never goes looking
 *  for other credentials; ANTHROPIC_BASE_URL points it at a proxy or a local fake server. */
export async function realClient(env: NodeJS.ProcessEnv): Promise<ModelClient> {
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
  return new Anthropic({
    apiKey: env.ANTHROPIC_API_KEY?.trim() || null,
    authToken: env.ANTHROPIC_AUTH_TOKEN?.trim() || null,
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    maxRetries: 1,
  });
}

/** One clear sentence for a failed model call, instead of a stack trace. */
export function describeModelError(err: unknown, modelId: string): string {
  // The SDK's error classes, recognised by name so this module need not load the SDK.
  const kind = (err as object | null)?.constructor?.name ?? "";
  if (kind === "APIConnectionTimeoutError") return "The model did not answer in time. Check your network and try again.";
  if (kind === "APIConnectionError") {
    return "Could not reach the model API (network failure). Check your connection or ANTHROPIC_BASE_URL.";
  }
  if (err instanceof Error && "status" in err && "error" in err) {
    const apiError = err as Error & { status?: number; error?: { error?: { message?: string } } };
    const detail = apiError.error?.error?.message ?? err.message;
    switch (apiError.status) {
      case 400: return `The API rejected the request: ${detail}`;
      case 401: return "The API key was rejected (401). Check ANTHROPIC_API_KEY, or run with --offline.";
      case 403: return "This key may not use that model or endpoint (403). Check your account's permissions.";
      case 404: return `The model "${modelId}" was not found (404). Set MODEL_ID to a model your account can use.`;
      case 413: return "The request was too large for the API (413). Start a fresh session or compact the history.";
      case 429: return "Rate limited (429): too many requests. Wait a moment and try again.";
      case 529: return "The API is overloaded (529). Wait a moment and try again.";
      default:
        if (apiError.status && apiError.status >= 500) return `The API had a server error (${apiError.status}). Try again shortly.`;
        return `The model call failed: ${detail}`;
    }
  }
  return `The model call failed: ${err instanceof Error ? err.message : String(err)}`;
}
