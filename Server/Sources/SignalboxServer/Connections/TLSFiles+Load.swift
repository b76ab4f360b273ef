import NIOSSL

extension TLSFiles {
    /// The server TLS configuration from the PEM files.
    /// - Throws: `ConfigurationError` naming the file or option that is missing or unreadable.
    func serverConfiguration() throws -> TLSConfiguration {
        guard !certificate.isEmpty, !key.isEmpty else {
            throw ConfigurationError("TLS needs both --tls-certificate and --tls-key (SIGNALBOX_TLS_CERTIFICATE, SIGNALBOX_TLS_KEY)")
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw ConfigurationError("cannot read the TLS certificate \(certificate) (PEM expected)")
        }
        guard !chain.isEmpty else { throw ConfigurationError("no certificate in the TLS certificate file \(certificate)") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw ConfigurationError("cannot read the TLS private key \(key) (PEM expected)")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    }
}

/// Whether `host` is reachable from this machine only.
func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
}
