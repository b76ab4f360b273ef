import Foundation
import NIOSSL
import SignalboxServer
import SignalboxWebhooks
import Testing

/// Webhooks to an HTTPS receiver with a throw-away self-signed certificate: refused under the system's trust roots,
/// delivered once `webhooks.caFile` names it.
struct WebhookHTTPSTests {
    /// A self-signed certificate for 127.0.0.1 and localhost (valid a day) and the receiver's TLS configuration.
    static func certificate(in root: String) throws -> (file: String, tls: TLSConfiguration) {
        let (certificate, key) = (root + "/receiver.pem", root + "/receiver.key")
        try TLSServeTests.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", certificate,
        ])
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
        )
        return (certificate, tls)
    }

    @Test func theTestDeliveryTrustsTheReceiverOnlyThroughTheCAFile() async throws {
        let root = try makeTemporaryDirectory("webhook-tls")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (certificate, tls) = try Self.certificate(in: root)
        let receiver = WebhookReceiver(tls: tls)
        try await receiver.serve { url in
            #expect(url.hasPrefix("https://"))
            for caFile in [nil, certificate] {
                try await Harness.make(configure: {
                    $0.webhooks.allowPrivateTargets = true
                    $0.webhooks.caFile = caFile
                    // The HTTP client retries a refused handshake until the deadline, so the untrusted case takes all
                    // of it; the trusted one gets ample time, since a loaded machine must not fail it.
                    $0.webhooks.requestTimeout = caFile == nil ? .seconds(5) : .seconds(60)
                }).run { api in
                    let app = try await api.createApp()
                    let created = try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: #"{"url":"\#(url)"}"#)
                    let id = try #require(created.json?["id"] as? String, "\(created.body)")
                    let tested = try await api.call(.post, "/v1/apps/\(app.id)/webhooks/\(id)/test", key: app.serverKey)
                    if caFile == nil {
                        // "TLS failed: …", or the deadline when a loaded machine made no attempt finish before it.
                        let error = tested.json?["error"] as? String ?? ""
                        #expect(tested.json?["delivered"] as? Bool == false && (error.hasPrefix("TLS failed") || error.hasPrefix("no answer within")), "\(tested.body)")
                    } else {
                        #expect(tested.json?["delivered"] as? Bool == true && tested.json?["status"] as? Int == 200, "\(tested.body)")
                    }
                }
            }
            #expect(receiver.deliveries.count == 1, "only the delivery that trusted the certificate arrived")
        }
    }

    @Test func aLifecycleEventReachesAnHTTPSReceiverOnceSigned() async throws {
        let root = try makeTemporaryDirectory("webhook-tls")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (certificate, tls) = try Self.certificate(in: root)
        let receiver = WebhookReceiver(tls: tls)
        try await receiver.serve { url in
            try await DeliveryHarness.run(configure: {
                WebhookDeliveryTests.configure(&$0)
                $0.webhooks.caFile = certificate
            }) { harness in
                let app = try await harness.api.createApp()
                let (endpoint, secret) = try await WebhookDeliveryTests.createEndpoint(harness, app, url: url, types: ["event.done"])
                try await harness.registerControls(app, installation: "i1", controls: [("door", "1", String(repeating: "a", count: 64))])
                let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#)
                _ = try await receiver.wait { !$0.isEmpty }
                // Until the endpoint's backlog is empty: a second delivery of the same event would have come by then.
                _ = try await WebhookDeliveryTests.endpointStatus(harness, app, endpoint) { $0["backlog"] as? Int == 0 }
                let received = receiver.deliveries
                #expect(received.count == 1, "\(received.map(\.eventType))")
                let delivery = try #require(received.first)
                #expect(delivery.eventType == "event.done" && delivery.answered == 200)
                #expect((delivery.json?["data"] as? [String: Any])?["eventId"] as? String == event)
                #expect(WebhookSignature.verify(header: delivery.signature, body: delivery.body, secret: secret, now: Date()), "\(delivery.signature)")
            }
        }
    }

    @Test func aCAFileWithoutACertificateIsRefused() throws {
        let root = try makeTemporaryDirectory("webhook-tls")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "not a certificate\n".write(toFile: root + "/garbage.pem", atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try HTTPWebhookTransport.trusting(caFile: root + "/none.pem") }
        #expect(throws: (any Error).self) { try HTTPWebhookTransport.trusting(caFile: root + "/garbage.pem") }
    }
}
