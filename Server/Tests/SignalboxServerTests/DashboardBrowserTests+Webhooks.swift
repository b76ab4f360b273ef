import Crypto
import Foundation
import SignalboxTestSupport
import SignalboxWebhooks
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The webhooks page in headless chromium, signed in with an app's server key: a refused URL, an endpoint added
/// with one event type (its secret shown once), a test delivery, a rotation, a real `event.done` delivery that
/// turns the endpoint's status to delivering, and a delete. Deliveries go to a real receiver on 127.0.0.1, so the
/// server allows private targets.
extension DashboardBrowserTests {
    @Test func manageAnAppsWebhooksFromItsPage() async throws {
        let (chromium, chromedriver) = try Self.browser()
        let data = try makeTemporaryDirectory("dashboard-webhooks")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let simulatorPort = try FreePorts.pair()
        let server = try await ServerProcess.start(
            dataDirectory: data, arguments: ["--apns-simulator", "--simulator-port", "\(simulatorPort)"],
            // The receiver answers from this process: a loaded run can delay its answers by seconds, and an answer
            // past the default 10 s timeout would be a second delivery (as in `WebhookDeliveryTests.configure`).
            environment: [
                "SIGNALBOX_WEBHOOKS_ALLOW_PRIVATE_TARGETS": "true", "SIGNALBOX_WEBHOOKS_TIMEOUT_SECONDS": "60",
                "SIGNALBOX_WEBHOOKS_CLAIM_LEASE_SECONDS": "120",
            ]
        )
        defer { server.process.kill(SIGTERM) }
        let driverPort = try FreePorts.pair()
        let driverProcess = try ChildProcess(["--port=\(driverPort)"], executable: chromedriver)
        defer { driverProcess.kill() }  // chromedriver may ignore SIGTERM
        _ = try await driverProcess.waitFor("started successfully")
        let browser = try await WebDriver.start(driver: "http://127.0.0.1:\(driverPort)", binary: chromium, width: 1280, height: 1000)
        let site = "http://127.0.0.1:\(server.port)"
        let api = HTTPJSON(base: site)
        let shots = Screenshots(browser: browser)
        let receiver = WebhookReceiver()
        do {
            try await receiver.serve { hookURL in
                let pem = String(decoding: try JSONEncoder().encode(P256.Signing.PrivateKey().pemRepresentation), as: UTF8.self)
                let created = try await api.call(
                    "POST", "/v1/apps", key: ServerProcess.adminKey,
                    json: #"{"bundleId":"com.example.garage","teamId":"TEAM123456","keyId":"KEY1234567","environment":"sandbox","privateKey":\#(pem)}"#
                ).json as? [String: Any]
                let appId = try #require(created?["appId"] as? String), serverKey = try #require(created?["serverKey"] as? String)

                // An app session: its server key may do all the API lets it do with webhooks.
                try await browser.go(site + "/dashboard")
                try await browser.type("#key", serverKey)
                try await browser.click("main button[type=submit]")
                try await browser.click("nav a[href$='/webhooks']")
                #expect(try await browser.bodyText().contains("No webhook endpoints yet."))

                try await browser.type("#url", "ftp://backend.example.com/hook")
                try await browser.click("main form[action$='/webhooks'] button[type=submit]")
                #expect(try await browser.text("[role=alert]").contains("must use http or https"))

                try await browser.type("#url", hookURL)
                try await browser.tick("input[name='type:event.done']")
                try await browser.click("main form[action$='/webhooks'] button[type=submit]")
                let first = try await browser.text("#webhook-secret")
                #expect(first.hasPrefix("whsec_"))
                let hookId = try #require(try await browser.text("#new-secret dd code").split(separator: " ").first.map(String.init))
                #expect(try await browser.text("tr#\(hookId)").contains("events: event.done"))
                try await shots.take("webhook-created", docs: false)  // shows a secret: not for the docs
                try await browser.go(site + "/dashboard/apps/\(appId)/webhooks")
                #expect(try await !browser.source().contains(first), "the secret is shown once")

                try await browser.click("tr#\(hookId) form[action$='/test'] button")
                let test = try await browser.text("#test-result")
                #expect(test.contains("accepted") && test.contains("HTTP 200") && test.contains(" ms"), "\(test)")
                let tested = try #require(receiver.deliveries.first)
                #expect(tested.eventType == "webhook.test")
                #expect(WebhookSignature.verify(header: tested.signature, body: tested.body, secret: first, now: Date()))

                try await browser.click("tr#\(hookId) form[action$='/secret'] button")
                let second = try await browser.text("#webhook-secret")
                #expect(second.hasPrefix("whsec_") && second != first)
                #expect(try await browser.text("#new-secret").contains("Previous secret"))

                // A real lifecycle event reaches the receiver, signed with both secrets during the overlap.
                let posted = try await api.call("POST", "/v1/apps/\(appId)/events", key: serverKey, json: #"{"target":{"widgets":{}},"audience":{"all":true}}"#)
                #expect(posted.status == 202, "\(String(describing: posted.json))")
                let arrived = try await receiver.wait { $0.contains { $0.eventType == "event.done" } }
                let done = try #require(arrived.first { $0.eventType == "event.done" })
                #expect(WebhookSignature.verify(header: done.signature, body: done.body, secret: second, now: Date()))
                #expect(WebhookSignature.verify(header: done.signature, body: done.body, secret: first, now: Date()))
                // The server records the answer after the receiver has seen the request: read the page until it does.
                var row = ""
                let deadline = ContinuousClock.now + .seconds(120)
                repeat {
                    try await browser.go(site + "/dashboard/apps/\(appId)/webhooks")
                    row = try await browser.text("tr#\(hookId)")
                    if row.contains("delivering") { break }
                    try await Task.sleep(for: .milliseconds(100))
                } while ContinuousClock.now < deadline
                #expect(row.contains("delivering") && !row.contains("never"), "\(row)")
                try await shots.take("webhooks")

                try await browser.click("tr#\(hookId) form[action$='/delete'] button")
                #expect(try await browser.bodyText().contains("No webhook endpoints yet."))
                #expect(receiver.deliveries.count == 2, "the test and the event, each once")
            }
        } catch {
            try? await shots.take("webhooks-failure", docs: false)
            await browser.quit()
            throw error
        }
        await browser.quit()
        try await server.stop()
        #expect(!server.loggedErrors, "\(server.process.printed)")
    }
}
