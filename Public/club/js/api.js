// The club's JSON API, as the pages call it. Every change carries a fresh client `id` (the server
// answers the same id again with the same answer and changes nothing more), so a change whose
// answer was lost to the network is sent again with the SAME id: by itself a few times, and again
// when the person taps the same thing once more. The server's errors arrive already in the page's
// language (Accept-Language), and are shown as they are.

import { lang, t } from "./words.js";

/** 16 random bytes, base64url (22 of A-Za-z0-9-_), or a UUID: both inside the contract's 1–64. */
export function newId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** An answer that is not a success: `status` 0 for the network; `code` and `message` from the server. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    Object.assign(this, { status, code });
  }
}

const AUTOMATIC_TRIES = 3;
const lostIds = new Map(); // a change's key -> the id it went out with, while its answer is unknown
const LOST_AT_MOST = 50;

function pause(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

async function answerOf(response) {
  let body = null;
  try { body = await response.json(); } catch { /* not JSON: said below */ }
  if (response.ok) return body ?? {};
  const error = body && body.error;
  throw new ApiError(response.status, error?.code || "error", error?.message || t("error.server", { status: response.status }));
}

/**
 * `request(method, path, body, token)`: the JSON answer, or throws ApiError. GETs are read as
 * they are; a change gets its `id` here (the caller's body must not carry one).
 */
export async function request(method, path, body = null, token = null) {
  const headers = { "Accept": "application/json", "Accept-Language": lang };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (method === "GET") {
    let response;
    try {
      response = await fetch(path, { headers, cache: "no-store" });
    } catch {
      throw new ApiError(0, "network", t("error.network"));
    }
    return answerOf(response);
  }
  const key = JSON.stringify([method, path, body, token]);
  const id = lostIds.get(key) || newId();
  headers["Content-Type"] = "application/json";
  const payload = JSON.stringify({ ...(body || {}), id });
  for (let attempt = 1; ; attempt += 1) {
    let response;
    try {
      response = await fetch(path, { method, headers, body: payload, cache: "no-store" });
    } catch {
      if (attempt < AUTOMATIC_TRIES) { await pause(400 * 2 ** attempt); continue; }
      if (lostIds.size >= LOST_AT_MOST) lostIds.delete(lostIds.keys().next().value);
      lostIds.set(key, id); // tapped again: the same change, the same id
      throw new ApiError(0, "network", t("error.network"));
    }
    // Only `rate_limited` is not final for its id: wait and ask again with it.
    if (response.status === 429 && attempt < AUTOMATIC_TRIES) { await pause(1000 * attempt); continue; }
    lostIds.delete(key);
    return answerOf(response);
  }
}
