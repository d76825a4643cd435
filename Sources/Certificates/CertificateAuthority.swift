import Foundation

/// The local CA and the server certificate in `--cert-dir`: made at first start, reused after,
/// the server certificate re-issued when the machine's names or addresses change.
public enum CertificateAuthority {
    static let authorityFile = "ca.pem"
    static let authorityKeyFile = "ca-key.pem"
    static let serverFile = "server.pem"
    static let serverKeyFile = "server-key.pem"
    /// A server certificate this close to its end is renewed at start.
    static let renewalMargin: TimeInterval = 30 * 86_400

    public static func ensure(in directory: String, identity: MachineIdentity, now: Date = Date()) throws
        -> CertificateBundle {
        let files = CertificateFiles(directory: directory)
        try files.createDirectory()
        let (authority, authorityKey) = try loadOrCreateAuthority(files, identity: identity, now: now)
        let names = ServerNames(identity: identity, authority: authority)

        var issuedNow = false
        if !serverStillGood(files, authority: authority, authorityKey: authorityKey, names: names, now: now) {
            try issueServer(files, names: names, authority: authority, authorityKey: authorityKey, now: now)
            issuedNow = true
        }
        return CertificateBundle(caCertificatePath: files.path(authorityFile), certificatePath: files.path(serverFile),
                                 privateKeyPath: files.path(serverKeyFile), fingerprintSHA256: authority.sha256Fingerprint,
                                 issuedNow: issuedNow, warnings: warnings(files, authority: authority, names: names))
    }

    /// `gather ca renew`: a new CA (with name constraints) and a server certificate from it. The
    /// four old files are kept beside them as `*.old`, the keys still readable by the owner only.
    public static func renew(in directory: String, identity: MachineIdentity, now: Date = Date()) throws
        -> CertificateRenewal {
        let files = CertificateFiles(directory: directory)
        try files.createDirectory()
        // Made before anything moves, so a failure here leaves the old CA where it was.
        let key = try PrivateKey.generateP256()
        let authority = try CertificateIssuer.makeAuthority(key: key, hostName: identity.hostName,
                                                            scope: AuthorityScope(identity: identity), now: now)
        let kept = try [authorityFile, authorityKeyFile, serverFile, serverKeyFile].filter(files.exists).map { name in
            try files.keepAsOld(name, secret: name.hasSuffix("-key.pem"))
        }
        try files.writeSecret(key.pem(), to: authorityKeyFile)
        try files.writePublic(authority.pem(), to: authorityFile)
        let names = ServerNames(identity: identity, authority: authority)
        try issueServer(files, names: names, authority: authority, authorityKey: key, now: now)
        let bundle = CertificateBundle(caCertificatePath: files.path(authorityFile),
                                       certificatePath: files.path(serverFile), privateKeyPath: files.path(serverKeyFile),
                                       fingerprintSHA256: authority.sha256Fingerprint, issuedNow: true,
                                       warnings: warnings(files, authority: authority, names: names))
        return CertificateRenewal(bundle: bundle, keptFiles: kept)
    }

    /// The user's own certificate (`--cert/--key`): checked to be readable and a pair, not changed.
    public static func userSupplied(certificatePath: String, privateKeyPath: String) throws -> CertificateBundle {
        let certificateData = try CertificateFiles.read(certificatePath, what: "certificate")
        let keyData = try CertificateFiles.read(privateKeyPath, what: "private key")
        guard let certificate = Certificate.load(pem: certificateData) else {
            throw CertificateError("\(certificatePath) is not a PEM certificate")
        }
        guard let key = PrivateKey.load(pem: keyData) else {
            throw CertificateError("\(privateKeyPath) is not a PEM private key (or it is encrypted)")
        }
        guard certificate.matches(key) else {
            throw CertificateError("the private key at \(privateKeyPath) does not match the certificate at \(certificatePath)")
        }
        return CertificateBundle(caCertificatePath: nil, certificatePath: certificatePath, privateKeyPath: privateKeyPath,
                                 fingerprintSHA256: certificate.sha256Fingerprint, issuedNow: false)
    }

    // MARK: - The CA

    /// A CA that phones may already trust is never replaced silently: a damaged one is an error.
    private static func loadOrCreateAuthority(_ files: CertificateFiles, identity: MachineIdentity, now: Date) throws
        -> (Certificate, PrivateKey) {
        let hasCertificate = files.exists(authorityFile), hasKey = files.exists(authorityKeyFile)
        if !hasCertificate, !hasKey {
            let key = try PrivateKey.generateP256()
            let authority = try CertificateIssuer.makeAuthority(key: key, hostName: identity.hostName,
                                                                scope: AuthorityScope(identity: identity), now: now)
            try files.writeSecret(key.pem(), to: authorityKeyFile)
            try files.writePublic(authority.pem(), to: authorityFile)
            // A new CA invalidates any server certificate made by an older one.
            try? FileManager.default.removeItem(atPath: files.path(serverFile))
            return (authority, key)
        }
        let advice = "run `gather ca renew --cert-dir \(files.directory)` to make a new CA (it keeps "
            + "\(files.path(authorityFile)) and its key as *.old; phones must then trust the new one)"
        guard hasCertificate, hasKey else {
            throw CertificateError("the local CA in \(files.directory) is incomplete; \(advice)")
        }
        let certificateData = try CertificateFiles.read(files.path(authorityFile), what: "CA certificate")
        let keyData = try CertificateFiles.read(files.path(authorityKeyFile), what: "CA private key")
        guard let authority = Certificate.load(pem: certificateData), let key = PrivateKey.load(pem: keyData) else {
            throw CertificateError("the local CA in \(files.directory) cannot be parsed; \(advice)")
        }
        guard authority.matches(key) else {
            throw CertificateError("the local CA's key in \(files.directory) does not match its certificate; \(advice)")
        }
        guard authority.isValid(at: now) else {
            throw CertificateError("the local CA in \(files.directory) has expired; \(advice)")
        }
        return (authority, key)
    }

    // MARK: - The server certificate

    private static func issueServer(_ files: CertificateFiles, names: ServerNames, authority: Certificate,
                                    authorityKey: PrivateKey, now: Date) throws {
        let key = try PrivateKey.generateP256()
        let certificate = try CertificateIssuer.makeServer(key: key, commonName: names.commonName,
                                                           dnsNames: names.dnsNames, ipAddresses: names.ipAddresses,
                                                           authority: authority, authorityKey: authorityKey, now: now)
        try files.writeSecret(key.pem(), to: serverKeyFile)
        try files.writePublic(certificate.pem(), to: serverFile)
    }

    private static func serverStillGood(_ files: CertificateFiles, authority: Certificate, authorityKey: PrivateKey,
                                        names: ServerNames, now: Date) -> Bool {
        guard let certificateData = try? CertificateFiles.read(files.path(serverFile), what: ""),
              let keyData = try? CertificateFiles.read(files.path(serverKeyFile), what: ""),
              let certificate = Certificate.load(pem: certificateData), let key = PrivateKey.load(pem: keyData)
        else { return false }
        return certificate.matches(key) && certificate.isSigned(by: authorityKey)
            && certificate.isValid(at: now, margin: renewalMargin)
            && names.dnsNames.allSatisfy(certificate.covers(dnsName:))
            && names.ipAddresses.allSatisfy(certificate.covers(ipAddress:))
    }

    // MARK: - Warnings at start

    private static func warnings(_ files: CertificateFiles, authority: Certificate, names: ServerNames) -> [String] {
        let renew = "`gather ca renew --cert-dir \(files.directory)`"
        var warnings: [String] = []
        if !authority.hasNameConstraints {
            warnings.append("the local CA in \(files.directory) was made without name constraints: if its private key "
                + "leaked, it could vouch for any web site on every phone that trusts it. Run \(renew) to replace it "
                + "(every phone must then trust the new CA once more).")
        }
        if !names.outside.isEmpty {
            warnings.append("the local CA in \(files.directory) cannot vouch for \(names.outside.joined(separator: ", ")) "
                + "(it was made when this machine had other names or addresses), so phones cannot use them over TLS. "
                + "Run \(renew) to cover them (every phone must then trust the new CA once more).")
        }
        return warnings
    }
}

/// The names and addresses the server certificate carries: every one the machine has that its CA
/// permits. One name outside the CA's constraints would make phones refuse the whole certificate,
/// so those are left out (and named in a warning) instead.
struct ServerNames: Equatable {
    let commonName: String
    let dnsNames: [String]
    let ipAddresses: [String]
    let outside: [String]

    init(identity: MachineIdentity, authority: Certificate) {
        let (dns, dnsOutside) = identity.dnsNames.split { authority.permits(subjectAltName: "DNS:\($0)") }
        let (ips, ipsOutside) = identity.allIPAddresses.split { authority.permits(subjectAltName: "IP:\($0)") }
        dnsNames = dns
        ipAddresses = ips
        outside = dnsOutside + ipsOutside
        let host = identity.hostName.lowercased()
        commonName = dns.contains(host) ? identity.hostName : "localhost"
    }
}

private extension Array {
    func split(_ keep: (Element) -> Bool) -> (kept: [Element], left: [Element]) {
        (filter(keep), filter { !keep($0) })
    }
}
