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

        var issuedNow = false
        let serverPath = files.path(serverFile), serverKeyPath = files.path(serverKeyFile)
        if !serverStillGood(files, authority: authority, authorityKey: authorityKey, identity: identity, now: now) {
            let key = try PrivateKey.generateP256()
            let certificate = try CertificateIssuer.makeServer(key: key, identity: identity, authority: authority,
                                                               authorityKey: authorityKey, now: now)
            try files.writeSecret(key.pem(), to: serverKeyFile)
            try files.writePublic(certificate.pem(), to: serverFile)
            issuedNow = true
        }
        return CertificateBundle(caCertificatePath: files.path(authorityFile), certificatePath: serverPath,
                                 privateKeyPath: serverKeyPath, fingerprintSHA256: authority.sha256Fingerprint,
                                 issuedNow: issuedNow)
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
            let authority = try CertificateIssuer.makeAuthority(key: key, hostName: identity.hostName, now: now)
            try files.writeSecret(key.pem(), to: authorityKeyFile)
            try files.writePublic(authority.pem(), to: authorityFile)
            // A new CA invalidates any server certificate made by an older one.
            try? FileManager.default.removeItem(atPath: files.path(serverFile))
            return (authority, key)
        }
        let advice = "move \(files.path(authorityFile)) and \(files.path(authorityKeyFile)) away to make a new CA "
            + "(phones must then trust the new one)"
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

    private static func serverStillGood(_ files: CertificateFiles, authority: Certificate, authorityKey: PrivateKey,
                                        identity: MachineIdentity, now: Date) -> Bool {
        guard let certificateData = try? CertificateFiles.read(files.path(serverFile), what: ""),
              let keyData = try? CertificateFiles.read(files.path(serverKeyFile), what: ""),
              let certificate = Certificate.load(pem: certificateData), let key = PrivateKey.load(pem: keyData)
        else { return false }
        return certificate.matches(key) && certificate.isSigned(by: authorityKey)
            && certificate.isValid(at: now, margin: renewalMargin)
            && identity.dnsNames.allSatisfy(certificate.covers(dnsName:))
            && identity.allIPAddresses.allSatisfy(certificate.covers(ipAddress:))
    }
}
