// The WebSocket to /live: one at a time, reconnecting by itself with backoff, and the connection
// status the pages show ("connecting", "live", "reconnecting").

export class LiveSocket {
  /**
   * `resumeQuery()` gives the query of each new connection: `?epoch=E&version=V` of the state
   * held, so the server sends only the patches missed (or nothing), or "" for a snapshot.
   */
  constructor({ onMessage, onClose, onStatus, resumeQuery = () => "" }) {
    Object.assign(this, { onMessage, onClose, onStatus, resumeQuery });
    this.socket = null;
    this.status = "connecting";
    this.attempt = 0;
  }

  connect() {
    this.setStatus(this.attempt === 0 ? "connecting" : "reconnecting");
    let socket;
    try {
      // The plain-HTTP spectator door has no TLS: its pages talk ws:// to the same host and port.
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${location.host}/live${this.resumeQuery()}`, ["gather.v2"]);
    } catch (error) {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onmessage = (event) => { if (this.socket === socket) this.onMessage(event.data); };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.onClose();
      this.scheduleReconnect();
    };
    socket.onerror = () => socket.close();
  }

  /** The server said welcome: the next drop starts the backoff afresh. */
  welcomed() {
    this.attempt = 0;
    this.setStatus("live");
  }

  /** Exponential backoff with jitter, so a restarted server is not hit by every phone at once. */
  scheduleReconnect() {
    this.setStatus("reconnecting");
    const delay = Math.min(10000, 500 * 2 ** Math.min(this.attempt, 5)) * (0.5 + Math.random());
    this.attempt += 1;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.onStatus(status);
  }

  /** False when there is no open connection (the caller keeps the message for later). */
  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Ends this connection; a new one starts (resuming from the state held, if any). */
  drop() { if (this.socket) this.socket.close(); }
}
