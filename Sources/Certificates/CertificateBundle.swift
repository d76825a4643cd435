/// The files the Transport serves TLS with, and what the banner prints about them.
public struct CertificateBundle: Sendable, Equatable {
    /// nil when the user brought their own certificate: there is no CA of ours to offer.
    public var caCertificatePath: String?
    public var certificatePath: String
    public var privateKeyPath: String
    /// SHA-256 of the CA's DER (what a phone shows when trusting it), or of the user's certificate.
    public var fingerprintSHA256: String
    /// True when the server certificate was (re-)issued by this start.
    public var issuedNow: Bool
    /// Sentences for the operator at start (an old CA without name constraints, names it cannot cover).
    public var warnings: [String] = []
}

/// What `gather ca renew` did: the new files, and where the replaced ones were kept.
public struct CertificateRenewal: Sendable, Equatable {
    public var bundle: CertificateBundle
    public var keptFiles: [String]
}

public struct CertificateError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}
