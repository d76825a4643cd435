#if canImport(Glibc)
import Glibc
#endif

/// A network in CIDR notation (`192.168.1.0/24`, `fd00::/8`) and whether an address is in it,
/// for `--metrics-from`. Kept here rather than in a library because it is twenty lines over
/// `inet_pton` and no offline package offers it.
struct AddressRange: Equatable, Sendable {
    let network: [UInt8]
    let prefixLength: Int

    /// Loopback, which may always read /metrics.
    static let loopback = [AddressRange(cidr: "127.0.0.0/8")!, AddressRange(cidr: "::1/128")!]

    init?(cidr: String) {
        let parts = cidr.split(separator: "/", maxSplits: 1).map(String.init)
        guard let address = Self.bytes(of: parts[0]) else { return nil }
        let length = parts.count == 2 ? Int(parts[1]) : address.count * 8
        guard let length, (0...address.count * 8).contains(length) else { return nil }
        network = address
        prefixLength = length
    }

    func contains(_ text: String) -> Bool {
        guard var address = Self.bytes(of: text) else { return false }
        // An IPv4 peer on a dual-stack socket reads ::ffff:a.b.c.d.
        if address.count == 16, network.count == 4, address[0..<12] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF][...] {
            address = Array(address[12...])
        }
        guard address.count == network.count else { return false }
        var remaining = prefixLength
        for (a, n) in zip(address, network) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if a & mask != n & mask { return false }
            remaining -= bits
        }
        return true
    }

    private static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
