// The app shell, kept on the phone so an organiser's console reopens at once when the pitch-side
// Wi-Fi is gone (the page then shows its last snapshot, "reconnecting", from localStorage).
//
// Strategy: cache first, refreshed in the background, the whole shell at a time.
// - Cache first, because "network first" waits for the network to fail, and a Wi-Fi that is
//   connected but dead fails only after a long timeout: the console would not open instantly.
// - Refreshed as a whole, after the page has loaded (the page posts "refresh-shell"), not while
//   it is still fetching its files; every file is fetched before any is stored, so an old
//   organiser.html meets a new organiser.js only if a page loads in the milliseconds the files
//   are being stored. An upgrade of the server reaches a phone the next time the page is opened
//   after one visit with the network up (test_service_worker.py checks this).
// - Refreshed only when the pages changed: the server's /api/shell-version.json (a digest of its
//   pages folder) is kept beside the shell, so an open with nothing new costs one small request
//   instead of fetching every file (660 KB) again. A server without it: every file, as before.
// - A new sw.js (this file changes) installs a fresh copy of the shell before it takes over.
//
// Only the files listed in SHELL are ever answered from or stored in the cache. Everything else
// (/live, /api/*, /healthz, /metrics, /ca.pem, /qr.svg, …) goes to the network untouched, so live
// data and downloads are never stale. Test: Tests/e2e/test_service_worker.py checks that every
// file under Public/ is listed here, except the club's (Public/club/, /i18n/club.*.json: another
// server's pages, always online).

// v4: the pages' modules were split (live-*.js, page.js, pitch-watch.js, trust.js); a new name so
// an old organiser.js is never served beside a new live.js while the new shell installs.
// v6: the pages speak six languages; i18n.js and every catalogue are part of the shell, so a
// page reopened offline keeps its reader's language.
// v7: the tournament's views (tournament*.js, organiser-tournament*.js, spectator-tournament.js,
// scoreboard-tournament.js) and a new organiser.html.
// v8: the shell's version is kept beside it (/api/shell-version.json).
const CACHE = "gather-shell-v8";
const VERSION = "/api/shell-version.json";
const SHELL = [
  "/", "/organiser.html", "/scoreboard.html", "/trust.html",
  "/css/app.css", "/css/scoreboard.css",
  "/js/announce.js", "/js/dom.js", "/js/format.js", "/js/offline.js", "/js/patch.js", "/js/state.js",
  "/js/page.js", "/js/pitch-watch.js", "/js/storage.js", "/js/trust.js",
  "/js/live.js", "/js/live-socket.js", "/js/live-state.js", "/js/live-session.js", "/js/live-commands.js",
  "/js/organiser.js", "/js/organiser-gather.js", "/js/organiser-players.js", "/js/organiser-pitches.js",
  "/js/organiser-scorer.js", "/js/organiser-match.js", "/js/organiser-accounts.js", "/js/organiser-activity.js", "/js/tabs.js",
  "/js/full-time.js", "/js/kit.js", "/js/result-card.js",
  "/js/scoreboard.js", "/js/scoreboard-pitch.js", "/js/scoreboard-venue.js", "/js/scoreboard-venue-layout.js", "/js/scoreboard-fit.js",
  "/js/link-delay.js",
  "/js/i18n.js", "/i18n/en.json", "/i18n/es.json", "/i18n/pt.json", "/i18n/fr.json", "/i18n/de.json", "/i18n/it.json",
  "/js/tournament.js", "/js/tournament-text.js", "/js/tournament-plan.js", "/js/tournament-views.js",
  "/js/organiser-tournament.js", "/js/organiser-tournament-create.js", "/js/organiser-tournament-day.js",
  "/js/spectator-tournament.js", "/js/scoreboard-tournament.js",
  "/js/spectator.js", "/js/spectator-match.js", "/js/spectator-cards.js", "/js/spectator-table.js", "/js/wake.js",
  "/css/referees.css", "/js/referee.js", "/js/referee-match.js", "/js/organiser-referees.js", "/js/organiser-referee-sheet.js",
  "/manifest.webmanifest",
  "/i18n/manifest.es.webmanifest", "/i18n/manifest.pt.webmanifest", "/i18n/manifest.fr.webmanifest",
  "/i18n/manifest.de.webmanifest", "/i18n/manifest.it.webmanifest",
  "/icons/icon.svg", "/icons/icon-192.png", "/icons/icon-512.png", "/icons/apple-touch-icon.png",
];
const IN_SHELL = new Set(SHELL);
let refreshing = null; // the refresh under way, if any
let refreshAgain = false; // asked for while one was under way: its files may predate the request

self.addEventListener("install", (event) => {
  event.waitUntil(installShell().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !IN_SHELL.has(url.pathname)) return;
  event.respondWith(fromCache(request, url.pathname));
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "refresh-shell") event.waitUntil(requestRefresh());
});

/**
 * The cached copy, whatever the query string (?page=… links); the network only for a file the
 * cache lacks, which is then kept.
 */
async function fromCache(request, path) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(path);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && response.type === "basic" && !response.redirected) await cache.put(path, response.clone());
  return response;
}

/** One refresh at a time, and always one that starts after the latest request. */
function requestRefresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      refreshAgain = false;
      await refreshShell();
    } while (refreshAgain);
  })().finally(() => { refreshing = null; });
  return refreshing;
}

/**
 * The whole shell, then the version read before it: pages changed while the files were fetched
 * are fetched again on the next open.
 */
async function installShell() {
  const version = await serverVersion();
  const cache = await caches.open(CACHE);
  await cache.addAll(SHELL.map(fresh));
  await keepVersion(cache, version);
}

/**
 * Fetches every shell file, then stores them all; one failure keeps the old shell untouched.
 * Nothing at all when the server's pages are the version the phone already holds.
 */
async function refreshShell() {
  const version = await serverVersion();
  const cache = await caches.open(CACHE);
  const kept = await cache.match(VERSION);
  if (version !== null && kept && (await kept.text()) === version) return;
  let responses;
  try {
    responses = await Promise.all(SHELL.map((path) => fetch(fresh(path))));
  } catch {
    return; // offline: keep what we have
  }
  if (!responses.every((response) => response.ok && !response.redirected)) return;
  await Promise.all(SHELL.map((path, index) => cache.put(path, responses[index])));
  await keepVersion(cache, version);
}

/** The server's pages version, or null (offline, or a server that has no such endpoint). */
async function serverVersion() {
  try {
    const response = await fetch(fresh(VERSION));
    return response.ok ? await response.text() : null;
  } catch {
    return null;
  }
}

/** Stored after the files it describes; an unknown version is forgotten, so the next open refreshes. */
function keepVersion(cache, version) {
  return version === null ? cache.delete(VERSION) : cache.put(VERSION, new Response(version));
}

/** Past the browser's HTTP cache: the server answers `Cache-Control: no-cache` without validators. */
function fresh(path) {
  return new Request(path, { cache: "no-store" });
}
