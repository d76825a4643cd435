import GatherSecurity

/// The venue's signature on what it publishes beyond the Wi-Fi: header `Gather-Signature`, the
/// base64 (standard, padded) Ed25519 signature of the epoch, a newline, then the body. Binding
/// the epoch means a message signed in one run of the venue never verifies in another.
public enum StreamSignature {
    public static let header = "Gather-Signature"

    /// What is signed: `epoch + "\n" + body`.
    public static func signedBytes(epoch: String, body: [UInt8]) -> [UInt8] {
        Array(epoch.utf8) + [0x0A] + body
    }

    public static func sign(_ body: [UInt8], epoch: String, key: Ed25519PrivateKey) throws -> String {
        Base64.encoded(try key.sign(signedBytes(epoch: epoch, body: body)))
    }

    /// True only for a well-formed signature of `body` in `epoch` by `key`.
    public static func verify(_ body: [UInt8], epoch: String, signature: String?, key: Ed25519PublicKey) -> Bool {
        guard let signature, signature.utf8.count == 88, let raw = Base64.decoded(signature) else { return false }
        return key.verify(raw, of: signedBytes(epoch: epoch, body: body))
    }
}
