// localStorage and sessionStorage as the pages meet them: full, blocked (private windows) or
// holding garbage from an older release. Reads give null, writes give up quietly.

export function readJSON(storage, key) {
  try { return JSON.parse(storage.getItem(key) || "null"); } catch { return null; }
}

export function writeJSON(storage, key, value) {
  try { storage.setItem(key, JSON.stringify(value)); } catch { /* storage full or blocked */ }
}

export function removeKey(storage, key) {
  try { storage.removeItem(key); } catch { /* storage blocked */ }
}
