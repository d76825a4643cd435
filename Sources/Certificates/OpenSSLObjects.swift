import COpenSSL
import Foundation
import GatherSecurity

/// Thin owners of OpenSSL objects, so every `*_free` happens exactly once.
final class PrivateKey {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// ECDSA on P-256: small, fast, and accepted by every phone (Apple's rules allow it).
    static func generateP256() throws -> PrivateKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw OpenSSLFailure.last("key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_keygen(context, &key) == 1, let key
        else { throw OpenSSLFailure.last("P-256 key generation") }
        return PrivateKey(owning: key)
    }

    static func load(pem: Data) -> PrivateKey? {
        MemoryBIO.reading(pem) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil) }.map(PrivateKey.init(owning:))
    }

    func pem() throws -> Data {
        try MemoryBIO.writing { bio in PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 }
    }
}

final class Certificate {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    static func load(pem: Data) -> Certificate? {
        MemoryBIO.reading(pem) { bio in PEM_read_bio_X509(bio, nil, nil, nil) }.map(Certificate.init(owning:))
    }

    func pem() throws -> Data {
        try MemoryBIO.writing { bio in PEM_write_bio_X509(bio, pointer) == 1 }
    }

    var sha256Fingerprint: String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(pointer, EVP_sha256(), &digest, &length) == 1 else { return "" }
        return Digest.colonHex(Array(digest.prefix(Int(length))))
    }

    func matches(_ key: PrivateKey) -> Bool { X509_check_private_key(pointer, key.pointer) == 1 }

    func isSigned(by key: PrivateKey) -> Bool { X509_verify(pointer, key.pointer) == 1 }

    /// Still valid `margin` seconds from `date`.
    func isValid(at date: Date, margin: TimeInterval = 0) -> Bool {
        var later = time_t(date.timeIntervalSince1970 + margin)
        var now = time_t(date.timeIntervalSince1970)
        return X509_cmp_time(X509_get0_notAfter(pointer), &later) > 0
            && X509_cmp_time(X509_get0_notBefore(pointer), &now) < 0
    }

    func covers(dnsName: String) -> Bool {
        X509_check_host(pointer, dnsName, dnsName.utf8.count, UInt32(X509_CHECK_FLAG_NO_WILDCARDS), nil) == 1
    }

    func covers(ipAddress: String) -> Bool { X509_check_ip_asc(pointer, ipAddress, 0) == 1 }
}

enum MemoryBIO {
    static func reading<T>(_ data: Data, _ body: (OpaquePointer) -> T?) -> T? {
        data.withUnsafeBytes { raw -> T? in
            guard let base = raw.baseAddress, let bio = BIO_new_mem_buf(base, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    static func writing(_ body: (OpaquePointer) -> Bool) throws -> Data {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLFailure.last("memory BIO") }
        defer { BIO_free(bio) }
        guard body(bio) else { throw OpenSSLFailure.last("PEM encoding") }
        var bytes: UnsafeMutablePointer<CChar>?
        let count = gather_bio_mem_data(bio, &bytes)
        guard count > 0, let bytes else { throw OpenSSLFailure.last("PEM encoding") }
        return Data(bytes: bytes, count: count)
    }
}

enum OpenSSLFailure {
    /// The step that failed and OpenSSL's own reason, drained from its error queue.
    static func last(_ step: String) -> CertificateError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return CertificateError("OpenSSL failed at \(step)" + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")))
    }
}
