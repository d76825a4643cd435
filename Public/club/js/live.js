// `/club/live`: one WebSocket (subprotocol club.v1) following a member or an organiser. The server
// only says WHICH dates changed; the page then reads what it shows again. It reconnects by itself
// with backoff and jitter, and a page coming back into view reads again (a phone asleep in a
// pocket misses messages without the socket noticing at once).

const PROTOCOL = "club.v1";

/**
 * `follow`: `{member: TOKEN}` or `{organiser: TOKEN}`. `onChanged(dates|null)` is called with the
 * changed dates' ids, or null when everything should be read again (a new connection, the page
 * shown again); `onStatus("connecting" | "live" | "reconnecting")`; `onRefused()` when the server
 * says the token is not valid (the socket is not reopened then).
 */
export function followClub(follow, { onChanged, onStatus, onRefused }) {
  let socket = null;
  let attempt = 0;
  let timer = null;
  let stopped = false;

  function connect() {
    if (stopped) return;
    onStatus(attempt === 0 ? "connecting" : "reconnecting");
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    let current;
    try {
      current = new WebSocket(`${scheme}://${location.host}/club/live`, [PROTOCOL]);
    } catch {
      retry();
      return;
    }
    socket = current;
    current.onopen = () => current.send(JSON.stringify({ type: "follow", ...follow }));
    current.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message.type === "following") {
        const first = attempt === 0;
        attempt = 0;
        onStatus("live");
        if (!first) onChanged(null); // what changed while we were away is not known: read it all
      } else if (message.type === "changed") {
        onChanged(Array.isArray(message.dates) ? message.dates.map(String) : null);
      } else if (message.type === "error" && message.code === "unauthorized") {
        stopped = true;
        onRefused();
      }
    };
    current.onclose = () => {
      if (socket !== current) return;
      socket = null;
      retry();
    };
    current.onerror = () => current.close();
  }

  function retry() {
    if (stopped) return;
    onStatus("reconnecting");
    const delay = Math.min(15000, 500 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random());
    attempt += 1;
    clearTimeout(timer);
    timer = setTimeout(connect, delay);
  }

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || stopped) return;
    onChanged(null);
    if (!socket) { attempt = Math.min(attempt, 1); clearTimeout(timer); connect(); }
  });

  connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      if (socket) { const closing = socket; socket = null; closing.close(); }
    },
  };
}
