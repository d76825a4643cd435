import COpenSSL
import Foundation

/// Builds X.509 certificates to the rules phones enforce (Apple's are the strictest): names in
/// subjectAltName, serverAuth, at most 825 days, SHA-256, ECDSA P-256.
enum CertificateIssuer {
    static let serverLifetimeDays = 825
    /// Apple's 825-day cap binds server certificates, not a root the user trusts by hand. Every
    /// phone trusts the CA once; ten years spares the whole club from doing it again every two,
    /// and an expired CA would stop the server (it is never replaced silently).
    static let authorityLifetimeDays = 3650

    /// `scope` nil makes a CA as releases before name constraints did (tests of the upgrade path).
    static func makeAuthority(key: PrivateKey, hostName: String, scope: AuthorityScope?, now: Date) throws
        -> Certificate {
        let certificate = try skeleton(subjectCommonName: "Football Gather Live local CA (\(hostName))",
                                       issuer: nil, key: key, now: now, days: authorityLifetimeDays)
        try add(certificate, issuer: certificate, [
            (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
            (NID_key_usage, "critical,keyCertSign,cRLSign"),
            (NID_subject_key_identifier, "hash"),
        ] + (scope.map { [(NID_name_constraints, $0.extensionValue)] } ?? []))
        try sign(certificate, with: key)
        return certificate
    }

    /// `commonName` is the name people see in a certificate viewer; phones match subjectAltName only.
    static func makeServer(key: PrivateKey, commonName: String, dnsNames: [String], ipAddresses: [String],
                           authority: Certificate, authorityKey: PrivateKey, now: Date) throws -> Certificate {
        let certificate = try skeleton(subjectCommonName: commonName.isEmpty ? "localhost" : commonName,
                                       issuer: authority, key: key, now: now, days: serverLifetimeDays)
        let names = dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }
        try add(certificate, issuer: authority, [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
            (NID_subject_alt_name, names.joined(separator: ",")),
        ])
        try sign(certificate, with: authorityKey)
        return certificate
    }

    // MARK: - Steps

    private static func skeleton(subjectCommonName: String, issuer: Certificate?, key: PrivateKey, now: Date,
                                 days: Int) throws -> Certificate {
        guard let raw = X509_new() else { throw OpenSSLFailure.last("X509_new") }
        let certificate = Certificate(owning: raw)
        guard X509_set_version(raw, 2) == 1 else { throw OpenSSLFailure.last("version") }
        try setRandomSerial(raw)

        guard let name = X509_NAME_new() else { throw OpenSSLFailure.last("name") }
        defer { X509_NAME_free(name) }
        guard X509_NAME_add_entry_by_txt(name, "O", gather_mbstring_utf8(), "Football Gather Live", -1, -1, 0) == 1,
              X509_NAME_add_entry_by_txt(name, "CN", gather_mbstring_utf8(), String(subjectCommonName.prefix(64)),
                                         -1, -1, 0) == 1,
              X509_set_subject_name(raw, name) == 1,
              X509_set_issuer_name(raw, issuer.map { X509_get_subject_name($0.pointer) } ?? name) == 1
        else { throw OpenSSLFailure.last("subject") }

        // An hour of slack for phones whose clock runs a little behind.
        var start = time_t(now.timeIntervalSince1970 - 3600)
        var end = start + time_t(days) * 86_400  // the whole span counts towards Apple's 825 days
        guard X509_time_adj_ex(X509_getm_notBefore(raw), 0, 0, &start) != nil,
              X509_time_adj_ex(X509_getm_notAfter(raw), 0, 0, &end) != nil,
              X509_set_pubkey(raw, key.pointer) == 1
        else { throw OpenSSLFailure.last("validity") }
        return certificate
    }

    private static func setRandomSerial(_ certificate: OpaquePointer) throws {
        guard let number = BN_new() else { throw OpenSSLFailure.last("serial") }
        defer { BN_free(number) }
        guard BN_rand(number, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1,
              let serial = BN_to_ASN1_INTEGER(number, nil)
        else { throw OpenSSLFailure.last("serial") }
        defer { ASN1_INTEGER_free(serial) }
        guard X509_set_serialNumber(certificate, serial) == 1 else { throw OpenSSLFailure.last("serial") }
    }

    private static func add(_ certificate: Certificate, issuer: Certificate, _ extensions: [(Int32, String)]) throws {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer.pointer, certificate.pointer, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw OpenSSLFailure.last("extension \(nid) = \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate.pointer, ext, -1) == 1 else { throw OpenSSLFailure.last("extension \(nid)") }
        }
    }

    private static func sign(_ certificate: Certificate, with key: PrivateKey) throws {
        guard X509_sign(certificate.pointer, key.pointer, EVP_sha256()) > 0 else { throw OpenSSLFailure.last("signing") }
    }
}
