import COpenSSL
import Foundation

/// What the local CA may vouch for, written into it as a critical RFC 5280 `nameConstraints`
/// extension: the names and addresses a laptop at the pitch is reached on, so that a leaked CA
/// key (phones trust the CA for everything otherwise) cannot impersonate a bank or any public site.
struct AuthorityScope: Equatable {
    /// Loopback, private, link-local and unique-local networks: where phones on a club's Wi-Fi
    /// reach the laptop. 169.254/16 is where a laptop ends up on a Wi-Fi without DHCP.
    static let privateNetworks: [IPNetwork] = [
        "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
        "::1/128", "fe80::/10", "fc00::/7",
    ].map { IPNetwork(cidr: $0)! }

    /// A constraint admits the name itself and any name below it: `local` covers `HOST.local`.
    let dnsNames: [String]
    let networks: [IPNetwork]

    /// The machine's names, `.local`, the private networks, and exactly each address the machine
    /// has outside them (a public address admitted as a /32 or /128, never its network).
    init(identity: MachineIdentity) {
        var names = ["localhost"]
        names += identity.dnsNames.filter { $0 != "localhost" && $0 != "local" && !$0.hasSuffix(".local") }
        names.append("local")
        dnsNames = names
        let outside = identity.allIPAddresses.compactMap(IPNetwork.init(host:))
            .filter { host in !Self.privateNetworks.contains { $0.contains(host) } }
        var seen = Set<IPNetwork>()
        networks = (Self.privateNetworks + outside).filter { seen.insert($0).inserted }
    }

    /// The value `X509V3_EXT_conf_nid` parses; OpenSSL 3.0 writes an IP subtree as address/mask.
    var extensionValue: String {
        let subtrees = dnsNames.map { "permitted;DNS:\($0)" }
            + networks.map { "permitted;IP:\($0.addressText)/\($0.maskText)" }
        return "critical," + subtrees.joined(separator: ",")
    }
}

/// An IPv4 or IPv6 network as bytes and a prefix length.
struct IPNetwork: Hashable {
    let bytes: [UInt8]
    let prefixLength: Int

    init?(cidr: String) {
        let parts = cidr.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let bytes = Self.parse(String(parts[0])), let length = Int(parts[1]),
              (0...bytes.count * 8).contains(length)
        else { return nil }
        self.bytes = bytes
        prefixLength = length
    }

    /// One address as a network of itself.
    init?(host text: String) {
        guard let bytes = Self.parse(text) else { return nil }
        self.bytes = bytes
        prefixLength = bytes.count * 8
    }

    func contains(_ other: IPNetwork) -> Bool {
        guard other.bytes.count == bytes.count, other.prefixLength >= prefixLength else { return false }
        return zip(zip(bytes, other.bytes), mask).allSatisfy { pair, mask in pair.0 & mask == pair.1 & mask }
    }

    var addressText: String { Self.text(zip(bytes, mask).map { $0 & $1 }) }
    var maskText: String { Self.text(mask) }

    private var mask: [UInt8] {
        (0..<bytes.count).map { index in
            let bits = min(8, max(0, prefixLength - index * 8))
            return bits == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
    }

    private static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func text(_ bytes: [UInt8]) -> String {
        var output = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, bytes, &output, socklen_t(output.count)) != nil else { return "" }
        return output.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

// MARK: - Asking a CA what it permits

extension Certificate {
    /// False for a CA made before the constraints were added (it vouches for any name at all).
    var hasNameConstraints: Bool { X509_get_ext_by_NID(pointer, NID_name_constraints, -1) >= 0 }

    var nameConstraintsAreCritical: Bool {
        let index = X509_get_ext_by_NID(pointer, NID_name_constraints, -1)
        guard index >= 0, let ext = X509_get_ext(pointer, index) else { return false }
        return X509_EXTENSION_get_critical(ext) == 1
    }

    /// Whether a certificate naming `subjectAltName` (`DNS:…` or `IP:…`) would verify under this
    /// CA, decided by OpenSSL's own name-constraint check on a throwaway certificate, so the answer
    /// is exactly what a verifier computes. A single name outside makes a whole certificate fail.
    func permits(subjectAltName: String) -> Bool {
        guard let raw = X509_get_ext_d2i(pointer, NID_name_constraints, nil, nil) else { return true }
        let constraints = raw.assumingMemoryBound(to: NAME_CONSTRAINTS.self)
        defer { NAME_CONSTRAINTS_free(constraints) }
        guard let probe = X509_new() else { return false }
        defer { X509_free(probe) }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, nil, probe, nil, nil, 0)
        guard let ext = X509V3_EXT_conf_nid(nil, &context, NID_subject_alt_name, subjectAltName) else {
            ERR_clear_error()
            return false
        }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(probe, ext, -1) == 1 else { return false }
        _ = X509_check_purpose(probe, -1, 0)  // fills the cached subjectAltName the check reads
        let verdict = NAME_CONSTRAINTS_check(probe, constraints)
        ERR_clear_error()
        return verdict == X509_V_OK
    }
}
