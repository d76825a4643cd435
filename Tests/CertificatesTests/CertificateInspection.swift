import COpenSSL
import Foundation
@testable import GatherCertificates
import XCTest

/// What a phone's TLS stack reads from a certificate, asked of OpenSSL directly.
extension Certificate {
    static func load(path: String, file: StaticString = #filePath, line: UInt = #line) throws -> Certificate {
        let pem = try XCTUnwrap(FileManager.default.contents(atPath: path), "no file at \(path)", file: file, line: line)
        return try XCTUnwrap(Certificate.load(pem: pem), "\(path) is not a PEM certificate", file: file, line: line)
    }

    var commonName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = X509_NAME_get_text_by_NID(X509_get_subject_name(pointer), NID_commonName, &buffer, Int32(buffer.count))
        return length > 0 ? String(cString: buffer) : ""
    }

    /// subjectAltName in order: DNS names as written, IP addresses in canonical text.
    var subjectAltNames: (dns: [String], ips: [String]) {
        guard let raw = X509_get_ext_d2i(pointer, NID_subject_alt_name, nil, nil) else { return ([], []) }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var dns: [String] = [], ips: [String] = []
        for index in 0..<OPENSSL_sk_num(names) {
            guard let entry = OPENSSL_sk_value(names, index)?.assumingMemoryBound(to: GENERAL_NAME.self) else { continue }
            let value = entry.pointee.d.ia5  // every member of the union is an ASN1_STRING
            guard let value, let bytes = ASN1_STRING_get0_data(value) else { continue }
            let raw = UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(value)))
            switch entry.pointee.type {
            case GEN_DNS: dns.append(String(decoding: raw, as: UTF8.self))
            case GEN_IPADD: ips.append(Self.ipText(raw))
            default: XCTFail("unexpected subjectAltName type \(entry.pointee.type)")
            }
        }
        return (dns, ips)
    }

    var keyUsage: UInt32 { X509_get_key_usage(pointer) }
    var allowsServerAuth: Bool { X509_get_extended_key_usage(pointer) & UInt32(XKU_SSL_SERVER) != 0 }

    /// notAfter − notBefore: the span Apple caps at 825 days.
    var lifetime: TimeInterval {
        var days: Int32 = 0, seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(pointer), X509_get0_notAfter(pointer)) == 1 else { return -1 }
        return TimeInterval(days) * 86_400 + TimeInterval(seconds)
    }

    /// What a TLS client does at `date`: chain to `authority` as the only trust anchor, for the
    /// TLS-server purpose, and match the name or address it dialled.
    func verifies(against authority: Certificate, at date: Date, host: String? = nil, ip: String? = nil) -> Bool {
        guard let store = X509_STORE_new() else { return false }
        defer { X509_STORE_free(store) }
        guard X509_STORE_add_cert(store, authority.pointer) == 1, let context = X509_STORE_CTX_new() else { return false }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, pointer, nil) == 1,
              X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER) == 1
        else { return false }
        X509_STORE_CTX_set_time(context, 0, time_t(date.timeIntervalSince1970))
        let parameters = X509_STORE_CTX_get0_param(context)
        if let host, X509_VERIFY_PARAM_set1_host(parameters, host, host.utf8.count) != 1 { return false }
        if let ip, X509_VERIFY_PARAM_set1_ip_asc(parameters, ip) != 1 { return false }
        return X509_verify_cert(context) == 1
    }

    private static func ipText(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var output = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard bytes.count == 4 || bytes.count == 16,
              inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, bytes.baseAddress, &output, socklen_t(output.count)) != nil
        else { return "<\(bytes.count) bytes>" }
        return String(cString: output)
    }
}
