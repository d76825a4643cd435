import Foundation

/// The names and addresses phones may use to reach this laptop; the server certificate must
/// cover all of them or a phone on one of them refuses the connection.
public struct MachineIdentity: Sendable, Equatable {
    public var hostName: String
    /// Non-loopback interface addresses, IPv4 and IPv6 (link-local fe80:: excluded: phones
    /// cannot use them in a URL without a zone).
    public var ipAddresses: [String]

    public init(hostName: String, ipAddresses: [String]) {
        self.hostName = hostName
        self.ipAddresses = ipAddresses
    }

    public static func current() -> MachineIdentity {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = gethostname(&buffer, buffer.count) == 0
            ? buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : "localhost"
        return MachineIdentity(hostName: name, ipAddresses: interfaceAddresses())
    }

    /// `localhost`, the host name and its mDNS name, lowercase, only characters a DNS name may have.
    public var dnsNames: [String] {
        var names = ["localhost"]
        let host = hostName.lowercased()
        let valid = !host.isEmpty && host.count <= 253
            && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        if valid {
            names.append(host)
            let label = host.split(separator: ".").first.map(String.init) ?? host
            names.append(label + ".local")
        }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// Loopback first, then every interface address.
    public var allIPAddresses: [String] {
        var seen = Set<String>()
        return (["127.0.0.1", "::1"] + ipAddresses).filter { seen.insert($0).inserted }
    }

    private static func interfaceAddresses() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let list = first else { return [] }
        defer { freeifaddrs(list) }
        var result: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = list
        while let entry = cursor?.pointee {
            defer { cursor = entry.ifa_next }
            guard let address = entry.ifa_addr, (entry.ifa_flags & UInt32(IFF_LOOPBACK)) == 0,
                  (entry.ifa_flags & UInt32(IFF_UP)) != 0 else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            guard !text.lowercased().hasPrefix("fe80"), !text.contains("%") else { continue }
            if !result.contains(text) { result.append(text) }
        }
        return result
    }
}
