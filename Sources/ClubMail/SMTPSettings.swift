import Foundation

/// `--smtp URL` checked before anything is sent: `smtp://[USER:PASS@]HOST[:PORT]` with STARTTLS
/// required, `smtps://…` (TLS from the first byte), or with `plain` (`--smtp-plain`) no TLS at
/// all, which is refused when the URL has a user or password (no password over a plain link).
public struct SMTPSettings: Sendable {
    public enum Security: Sendable, Equatable {
        case startTLS, implicitTLS, plain
    }

    /// The URL as given (with its credentials): handed to libcurl only, never logged.
    let url: String
    public let host: String
    public let security: Security
    /// A CA certificate file (PEM) trusted besides the system's (`--smtp-ca`).
    public let caFile: String?
    /// The password, to scrub from any error text before it is logged or stored.
    let secrets: [String]

    public init(url: String, caFile: String?, plain: Bool) throws(SMTPSettingsError) {
        guard url.utf8.count <= 1_024, !url.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
              let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              let host = parts.host, !host.isEmpty
        else { throw SMTPSettingsError("--smtp must be smtp://[USER:PASS@]HOST[:PORT] or smtps://…, at most 1,024 characters") }
        guard parts.path.isEmpty || parts.path == "/", parts.query == nil, parts.fragment == nil else {
            throw SMTPSettingsError("--smtp takes no path, query or fragment")
        }
        let hasCredentials = (parts.user ?? "").isEmpty == false || (parts.password ?? "").isEmpty == false
        switch (scheme, plain) {
        case ("smtps", false): security = .implicitTLS
        case ("smtp", false): security = .startTLS
        case ("smtp", true):
            guard !hasCredentials else {
                throw SMTPSettingsError("--smtp-plain refuses a user or password: it would cross the link in clear (use STARTTLS or smtps://)")
            }
            security = .plain
        case ("smtps", true): throw SMTPSettingsError("--smtp-plain goes with smtp://, not smtps://")
        default: throw SMTPSettingsError("--smtp must be an smtp:// or smtps:// URL")
        }
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw SMTPSettingsError("--smtp-ca \(caFile.prefix(200)) is not a readable file")
            }
        }
        self.url = url
        self.host = host
        self.caFile = caFile
        self.secrets = [parts.password, parts.percentEncodedPassword].compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// `text` with every occurrence of the password replaced (curl's messages do not carry it,
    /// but nothing that is logged or stored may, whatever a future libcurl says).
    func scrubbed(_ text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }
}

public struct SMTPSettingsError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
