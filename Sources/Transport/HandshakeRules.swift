import Foundation
import GatherDelivery

/// Pure decisions about a request, kept out of the C callbacks so they can be tested.
enum HandshakeRules {
    /// A browser's `Origin` must name the host it connected to; no `Origin` (a native client) passes.
    /// `door` says which scheme's default port a `Host` without one means; behind a proxy that
    /// terminates TLS, `forwardedProto` (its `X-Forwarded-Proto`, `http` or `https`) says it instead.
    static func originAllowed(origin: String?, host: String?, door: Door = .tls, forwardedProto: String? = nil) -> Bool {
        guard let origin, !origin.isEmpty else { return true }
        guard let host, !host.isEmpty else { return false }
        guard let schemeEnd = origin.range(of: "://") else { return false }
        let scheme = origin[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return false }
        var authority = String(origin[schemeEnd.upperBound...])
        if let slash = authority.firstIndex(of: "/") { authority = String(authority[..<slash]) }
        let secure = switch forwardedProto?.lowercased() {
        case "https": true
        case "http": false
        default: door == .tls
        }
        return normalised(authority, defaultPort: scheme == "https" ? "443" : "80")
            == normalised(host, defaultPort: secure ? "443" : "80")
    }

    private static func normalised(_ authority: String, defaultPort: String) -> String {
        let lower = authority.lowercased()
        let hasPort: Bool
        if lower.hasPrefix("[") { hasPort = lower.contains("]:") } else { hasPort = lower.contains(":") }
        return hasPort ? lower : lower + ":" + defaultPort
    }

    /// Whether a `Sec-WebSocket-Protocol` offer names one of `accepted`. No offer at all passes
    /// here (lws binds it to the HTTP protocol, which refuses it with advice).
    static func offersAny(of accepted: [WireProtocol], in offer: String?) -> Bool {
        guard let offer, !offer.isEmpty else { return true }
        let offered = offer.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return accepted.contains { offered.contains($0.rawValue) }
    }

    /// The file under `root` that `path` names, or nil: no `..`, no hidden files, nothing that
    /// resolves (through links) outside `root`. `/` and folders mean their index.html.
    static func staticFile(for path: String, root: String) -> String? {
        guard path.hasPrefix("/"), !path.contains("\0"), !path.contains("\\") else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.allSatisfy({ $0 != ".." && $0 != "." && !$0.hasPrefix(".") }) else { return nil }
        let rootURL = URL(fileURLWithPath: root).resolvingSymlinksInPath().standardizedFileURL
        var candidate = rootURL
        for part in parts { candidate.appendPathComponent(String(part)) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
            candidate.appendPathComponent("index.html")
        }
        let resolved = candidate.resolvingSymlinksInPath().standardizedFileURL.path
        let rootPath = rootURL.path.hasSuffix("/") ? rootURL.path : rootURL.path + "/"
        guard resolved.hasPrefix(rootPath),
              FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: resolved)
        else { return nil }
        return resolved
    }

    static func contentType(forFile path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "ico": "image/x-icon"
        case "json": "application/json; charset=utf-8"
        case "webmanifest": "application/manifest+json"
        case "txt": "text/plain; charset=utf-8"
        case "woff2": "font/woff2"
        default: "application/octet-stream"
        }
    }

    /// Headers on every HTTP answer. The CSP allows only this origin (`'self'` covers its own
    /// WebSocket, ws: or wss:, in CSP Level 3 browsers).
    /// No HSTS: it would send phones from the plain spectator door to TLS on the same host.
    static func securityHeaders(_ door: Door) -> [(String, String)] {
        [
            ("Content-Security-Policy",
             "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; "
                 + "script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"),
        ]
    }

    enum SpectatorDoorAnswer: Equatable { case serve, toTLS, notHere }

    /// What the plain-HTTP door does with a path: what watching needs is served, the organiser
    /// console is sent to TLS (its logins must never cross the Wi-Fi in the clear), the rest is 404.
    static func spectatorDoor(path: String) -> SpectatorDoorAnswer {
        switch path {
        case "/", "/index.html", "/scoreboard.html", "/trust.html", "/ca.pem", "/qr.svg", "/healthz",
             "/manifest.webmanifest", "/favicon.ico":
            return .serve
        case "/organiser.html", "/organiser":
            return .toTLS
        default:
            for prefix in ["/api/", "/css/", "/js/", "/icons/", "/i18n/"] where path.hasPrefix(prefix) { return .serve }
            return .notHere
        }
    }
}
