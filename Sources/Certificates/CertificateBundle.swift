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
}

public struct CertificateError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}
