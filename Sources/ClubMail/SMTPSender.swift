import CCurl
import ClubModel
import Foundation
import Logging

/// One SMTP conversation per mail through Debian's libcurl (OpenSSL): STARTTLS required on
/// `smtp://`, TLS from the start on `smtps://`, the server's certificate and name verified
/// against the system's CAs plus `--smtp-ca` (libcurl keeps `/etc/ssl/certs` as its CA path
/// when a CA file is given). Every libcurl return code is checked; the URL (which may hold the
/// password) is never logged, and error texts are scrubbed of the password.
public final class SMTPSender: MailTransport, @unchecked Sendable {
    private let settings: SMTPSettings
    /// Seconds to connect, and for the whole conversation.
    private let connectTimeout: Int
    private let timeout: Int

    /// `curl_global_init` once per process, before any handle (it is not thread-safe itself).
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    public init(settings: SMTPSettings, connectTimeout: Int = 10, timeout: Int = 60) throws(SMTPSettingsError) {
        guard Self.globalInit == CURLE_OK else {
            throw SMTPSettingsError("libcurl did not start: \(String(cString: curl_easy_strerror(Self.globalInit)))")
        }
        self.settings = settings
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    public func send(_ message: MailMessage) -> MailSendOutcome {
        guard let list = curl_slist_append(nil, "<\(message.to)>") else { return .failed(reason: "libcurl: no memory") }
        // Freed after the handle (deferred first, so it runs last): the handle points at it.
        defer { curl_slist_free_all(list) }
        guard let handle = curl_easy_init() else { return .failed(reason: "libcurl: no handle") }
        defer { curl_easy_cleanup(handle) }
        let body = UploadBody(Array(message.data.utf8))
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return withExtendedLifetime(body) {
            errorBuffer.withUnsafeMutableBufferPointer { errors in
                let buffer = errors
                let context = Unmanaged.passUnretained(body).toOpaque()
                var steps: [(String, () -> CURLcode)] = [
                    ("url", { gather_curl_set_string(handle, CURLOPT_URL, self.settings.url) }),
                    ("protocols", { gather_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps") }),
                    ("errors", { gather_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress) }),
                    ("nosignal", { gather_curl_set_long(handle, CURLOPT_NOSIGNAL, 1) }),
                    ("verify peer", { gather_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1) }),
                    ("verify host", { gather_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2) }),
                    ("connect timeout", { gather_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT, self.connectTimeout) }),
                    ("timeout", { gather_curl_set_long(handle, CURLOPT_TIMEOUT, self.timeout) }),
                    ("from", { gather_curl_set_string(handle, CURLOPT_MAIL_FROM, "<\(message.from)>") }),
                    ("rcpt", { gather_curl_set_list(handle, CURLOPT_MAIL_RCPT, list) }),
                    ("upload", { gather_curl_set_long(handle, CURLOPT_UPLOAD, 1) }),
                    ("read", { gather_curl_set_read_function(handle, uploadRead) }),
                    ("read data", { gather_curl_set_pointer(handle, CURLOPT_READDATA, context) }),
                ]
                if settings.security == .startTLS {
                    steps.append(("starttls", { gather_curl_set_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)) }))
                }
                if let ca = settings.caFile {
                    steps.append(("ca", { gather_curl_set_string(handle, CURLOPT_CAINFO, ca) }))
                }
                for (name, step) in steps {
                    let code = step()
                    guard code == CURLE_OK else { return .failed(reason: reason(code, "setting \(name)", buffer)) }
                }
                let code = curl_easy_perform(handle)
                guard code == CURLE_OK else { return .failed(reason: reason(code, "sending", buffer)) }
                return .sent
            }
        }
    }

    /// curl's code, its text and the error buffer's detail, scrubbed, at most 200 characters.
    private func reason(_ code: CURLcode, _ step: String, _ buffer: UnsafeMutableBufferPointer<CChar>) -> String {
        let detail = buffer.baseAddress.map { String(cString: $0) } ?? ""
        let text = "\(step): curl \(code.rawValue) \(String(cString: curl_easy_strerror(code)))"
            + (detail.isEmpty ? "" : " (\(detail))")
        return String(settings.scrubbed(text).prefix(200))
    }
}

/// The message's bytes and how far libcurl has read them.
private final class UploadBody {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// libcurl's read callback: copies the next part of the message; 0 ends it.
private func uploadRead(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                        _ context: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let context else { return 0 }
    let body = Unmanaged<UploadBody>.fromOpaque(context).takeUnretainedValue()
    let room = size * count
    let chunk = min(room, body.bytes.count - body.offset)
    guard chunk > 0 else { return 0 }
    body.bytes.withUnsafeBufferPointer { source in
        UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + body.offset, byteCount: chunk)
    }
    body.offset += chunk
    return chunk
}
