// Keeps the pages' files on the phone (Public/sw.js), on the TLS origin only: browsers allow no
// service worker on plain http://, and the spectator door there works without one.

export function keepShellOffline() {
  if (location.protocol !== "https:" || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // No service worker (a private window, a refused certificate): the pages work the same.
  });
  // Refresh the cached copy only once this page has all its files, so it never mixes versions.
  const refresh = () => navigator.serviceWorker.ready.then((registration) => {
    if (registration.active) registration.active.postMessage({ type: "refresh-shell" });
  });
  if (document.readyState === "complete") refresh();
  else window.addEventListener("load", refresh, { once: true });
}
