import COpenSSL
import Foundation

/// Why an Ed25519 operation failed, with OpenSSL's own reason when it gave one.
public struct SigningFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ what: String) {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else {
            description = what
            return
        }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        description = "\(what): \(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
    }
}

/// An Ed25519 private key (OpenSSL 3's `EVP_PKEY`, freed exactly once): the venue signs what it
/// publishes beyond the Wi-Fi with it, so a relay believes only the venue.
public final class Ed25519PrivateKey: @unchecked Sendable {
    /// Read-only after init; OpenSSL allows one key in several signing contexts at once.
    private let key: OpaquePointer

    private init(owning key: OpaquePointer) { self.key = key }
    deinit { EVP_PKEY_free(key) }

    public static func generate() throws -> Ed25519PrivateKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { throw SigningFailure("Ed25519 key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var made: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &made) == 1, let made else {
            throw SigningFailure("Ed25519 key generation")
        }
        return Ed25519PrivateKey(owning: made)
    }

    /// A PKCS#8 PEM private key; nil when it is not one or not Ed25519.
    public static func load(pem: Data) -> Ed25519PrivateKey? {
        guard let bio = pem.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else { return nil }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
            ERR_clear_error()
            return nil
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519 else {
            EVP_PKEY_free(key)
            return nil
        }
        return Ed25519PrivateKey(owning: key)
    }

    /// The key as PKCS#8 PEM ("BEGIN PRIVATE KEY"), unencrypted: the file's mode protects it.
    public func pem() throws -> Data {
        guard let bio = BIO_new(BIO_s_mem()) else { throw SigningFailure("memory BIO") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            throw SigningFailure("writing the Ed25519 key")
        }
        var start: UnsafeMutablePointer<CChar>?
        let length = gather_bio_mem_data(bio, &start)
        guard length > 0, let start else { throw SigningFailure("reading the Ed25519 key back") }
        return Data(bytes: start, count: length)
    }

    /// The 32 bytes of the public key.
    public func publicKeyBytes() throws -> [UInt8] {
        var length = 32
        var bytes = [UInt8](repeating: 0, count: 32)
        guard EVP_PKEY_get_raw_public_key(key, &bytes, &length) == 1, length == 32 else {
            throw SigningFailure("reading the Ed25519 public key")
        }
        return bytes
    }

    /// The 64-byte signature of `message` (Ed25519 hashes internally: no digest is named).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw SigningFailure("signing context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else { throw SigningFailure("Ed25519 sign init") }
        var length = 64
        var signature = [UInt8](repeating: 0, count: 64)
        // An empty array may have no address; OpenSSL reads none of the one byte put there instead.
        let status = (message.isEmpty ? [0] : message).withUnsafeBufferPointer { buffer in
            EVP_DigestSign(context, &signature, &length, buffer.baseAddress, message.count)
        }
        guard status == 1, length == 64 else { throw SigningFailure("Ed25519 signing") }
        return signature
    }
}

/// An Ed25519 public key, made once from its 32 bytes and used for every verification.
public final class Ed25519PublicKey: @unchecked Sendable {
    /// Read-only after init; OpenSSL allows one key in several verifying contexts at once.
    private let key: OpaquePointer
    public let rawBytes: [UInt8]

    /// nil unless exactly 32 bytes that OpenSSL accepts as an Ed25519 public key.
    public init?(rawBytes: [UInt8]) {
        guard rawBytes.count == 32,
              let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, rawBytes, rawBytes.count)
        else {
            ERR_clear_error()
            return nil
        }
        self.key = key
        self.rawBytes = rawBytes
    }

    deinit { EVP_PKEY_free(key) }

    /// The standard padded base64 of the 32 bytes, as the banner prints it.
    public var base64: String { Base64.encoded(rawBytes) }

    /// True only when `signature` is the key's signature of `message`; false for anything else,
    /// including OpenSSL failing (nothing unverified is ever believed).
    public func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else {
            ERR_clear_error()
            return false
        }
        let status = (message.isEmpty ? [0] : message).withUnsafeBufferPointer { buffer in
            EVP_DigestVerify(context, signature, signature.count, buffer.baseAddress, message.count)
        }
        if status != 1 { ERR_clear_error() }
        return status == 1
    }
}
