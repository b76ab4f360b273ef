import Crypto
import Foundation
import SignalboxTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The dashboard in a real headless chromium (Debian's `chromium` and `chromium-driver`, installed by
/// `scripts/setup`), driven over WebDriver against a real `signalbox serve --apns-simulator` process. Saves a
/// screenshot of each page to `.build/screenshots/`; with `SIGNALBOX_DOCS_SCREENSHOTS=1` also to `docs/dashboard/`.
@Suite(.serialized) struct DashboardBrowserTests {
    /// The repository root (the server package is its `Server/` folder).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let token = "5f1c0b7e" + String(repeating: "a1", count: 28)

    /// The browser and its driver: `CHROMIUM` / `CHROMEDRIVER`, else Debian's paths. Missing ones fail the test.
    static func browser() throws -> (chromium: String, driver: String) {
        let environment = ProcessInfo.processInfo.environment
        let chromium = environment["CHROMIUM"] ?? "/usr/bin/chromium"
        let driver = environment["CHROMEDRIVER"] ?? "/usr/bin/chromedriver"
        for path in [chromium, driver] where !FileManager.default.isExecutableFile(atPath: path) {
            throw ChildProcessError(message: "\(path) not found: the dashboard's browser test needs Debian's chromium and chromium-driver; run scripts/setup as root (apt-get install chromium chromium-driver)")
        }
        return (chromium, driver)
    }

    @Test func signInCreateAnAppSendATestPushAndFindItInTheInspector() async throws {
        let (chromium, chromedriver) = try Self.browser()
        let data = try makeTemporaryDirectory("dashboard")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let simulatorPort = try FreePorts.pair()
        let server = try await ServerProcess.start(dataDirectory: data, arguments: ["--apns-simulator", "--simulator-port", "\(simulatorPort)"])
        defer { server.process.kill(SIGTERM) }
        let driverPort = try FreePorts.pair()
        let driverProcess = try ChildProcess(["--port=\(driverPort)"], executable: chromedriver)
        defer { driverProcess.kill() }  // chromedriver may ignore SIGTERM
        _ = try await driverProcess.waitFor("started successfully")
        let browser = try await WebDriver.start(driver: "http://127.0.0.1:\(driverPort)", binary: chromium, width: 1280, height: 1000)
        let site = "http://127.0.0.1:\(server.port)"
        let shots = Screenshots(browser: browser)
        do {
            // Sign in with the admin key.
            try await browser.go(site + "/dashboard")
            #expect(try await browser.url.hasSuffix("/dashboard/login"))
            try await shots.take("sign-in")
            try await browser.type("#key", "not-a-key")
            try await browser.click("button[type=submit]")
            #expect(try await browser.bodyText().contains("neither the admin key nor an app's server key"))
            try await browser.type("#key", ServerProcess.adminKey)
            try await browser.click("main button[type=submit]")
            #expect(try await browser.url.hasSuffix("/dashboard/apps"))
            let session = try #require(try await browser.cookies().first { $0["name"] as? String == "signalbox_session" })
            #expect(session["httpOnly"] as? Bool == true)
            #expect(session["sameSite"] as? String == "Strict")

            // Create an app from a .p8 file.
            let keyFile = data + "/AuthKey_KEY1234567.p8"
            try P256.Signing.PrivateKey().pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
            try await browser.type("#bundleId", "com.example.garage")
            try await browser.type("#teamId", "TEAM123456")
            try await browser.type("#keyId", "KEY1234567")
            try await browser.attach("#privateKey", file: keyFile)
            try await browser.click("form[enctype] button[type=submit]")
            let appId = try await browser.text("#app-id")
            let serverKey = try await browser.text("#server-key")
            #expect(serverKey.hasPrefix("sbk_"))
            try await shots.take("app-created", docs: false)  // shows the new keys: not for the docs
            try await browser.go(site + "/dashboard/apps")
            let appsPage = try await browser.source()
            #expect(appsPage.contains("com.example.garage"))
            #expect(!appsPage.contains(serverKey) && !appsPage.contains("PRIVATE KEY"), "the list renders no secret")
            try await shots.take("apps")

            // Register a control token and post an event through the API, as an app's backend would.
            let api = HTTPJSON(base: site)
            let installation = "/v1/apps/\(appId)/installations/iphone-ana"
            #expect(try await api.call("PUT", installation, key: serverKey, json: #"{"userId":"ana","channels":["home:42"],"environment":"sandbox"}"#).status == 204)
            let controls = #"{"controls":[{"kind":"com.example.garage.door","configuration":{"door":"north"},"pushToken":"\#(Self.token)"}]}"#
            #expect(try await api.call("PUT", installation + "/controls", key: serverKey, json: controls).status == 204)
            let posted = try await api.call("POST", "/v1/apps/\(appId)/events", key: serverKey, json: #"{"target":{"controls":{"kinds":["com.example.garage.door"]}},"audience":{"users":["ana"]}}"#)
            let eventId = try #require((posted.json as? [String: Any])?["eventId"] as? String)
            try await waitUntilDelivered(api, appId: appId, eventId: eventId, key: serverKey)

            // Send a test push from the dashboard to the built-in simulator.
            try await browser.go(site + "/dashboard/apps/\(appId)/send")
            try await browser.type("#token", Self.token)
            try await browser.select("#pushType", value: "controls")
            try await browser.click("main form button[type=submit]")
            let result = try await browser.text("#result")
            #expect(result.contains("APNs answered 200"), "\(result)")
            let apnsId = try await browser.text("#result dd.mono")
            try await shots.take("test-push")

            // Find it in the inspector: the registration and both answers (the event's and the test push).
            try await browser.click("#result a")
            let inspector = try await browser.bodyText()
            #expect(inspector.contains("iphone-ana") && inspector.contains("com.example.garage.door") && inspector.contains(apnsId))
            #expect(try await browser.findAll("tbody .badge.ok").count == 2, "two delivered lines")
            try await shots.take("inspector")
            try await browser.go(site + "/dashboard/apps/\(appId)/inspect?q=ana")
            #expect(try await browser.bodyText().contains("User ana"))
            try await browser.go(site + "/dashboard/apps/\(appId)/inspect?q=iphone-ana")
            #expect(try await browser.bodyText().contains("Installation iphone-ana"))
            #expect(try await browser.findAll("tbody .badge.ok").count == 1, "the event's line; the direct push names no installation")
            try await shots.take("inspector-installation")

            // The overview, the event's page, the delete confirmation.
            try await browser.go(site + "/dashboard/apps/\(appId)")
            let overview = try await browser.bodyText()
            #expect(overview.contains("com.example.garage") && overview.contains(eventId) && overview.contains("Pushes in the last hour"))
            try await shots.take("overview")
            try await browser.click("a[href$='/events/\(eventId)']")
            #expect(try await browser.bodyText().contains("Its pushes by outcome"))
            try await shots.take("event")
            // Replace the app's APNs key with a new .p8 for sandbox only, then check it.
            try await browser.go(site + "/dashboard/apps/\(appId)")
            try await browser.click("a[href$='/apns-key']")
            let newKey = P256.Signing.PrivateKey().pemRepresentation
            let newKeyFile = data + "/AuthKey_KEYSANDBOX.p8"
            try newKey.write(toFile: newKeyFile, atomically: true, encoding: .utf8)
            try await browser.attach("#privateKeyFile", file: newKeyFile)
            try await browser.type("#keyId", "KEYSANDBOX")
            try await browser.type("#teamId", "TEAM123456")
            try await browser.select("#environment", value: "sandbox")
            try await browser.click("main form[enctype] button[type=submit]")
            #expect(try await browser.text("#saved").contains("The APNs key was replaced"))
            let keysTable = try await browser.text("#keys")
            #expect(keysTable.contains("KEYSANDBOX") && keysTable.contains("KEY1234567"), "\(keysTable)")
            #expect(!(try await browser.source()).contains("PRIVATE KEY"), "the key is not shown back")
            try await shots.take("apns-key-replaced")
            try await browser.click("#saved button[type=submit]")
            #expect(try await browser.bodyText().contains("APNs credentials"))
            try await shots.take("apns-key-check")
            try await browser.go(site + "/dashboard/apps/\(appId)/delete")
            try await shots.take("delete-confirmation")

            // Readable on a phone.
            try await browser.resize(width: 390, height: 844)
            try await browser.go(site + "/dashboard/apps/\(appId)/inspect?q=\(Self.token)")
            try await shots.take("inspector-phone")
        } catch {
            try? await shots.take("failure", docs: false)
            await browser.quit()
            throw error
        }
        await browser.quit()
        try await server.stop()
        #expect(!server.loggedErrors, "\(server.process.printed)")
        #expect(!server.process.printed.contains("PRIVATE KEY"), "no key in the server's log")
    }

    private func waitUntilDelivered(_ api: HTTPJSON, appId: String, eventId: String, key: String) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let status = try await api.call("GET", "/v1/apps/\(appId)/events/\(eventId)", key: key).json as? [String: Any]
            if status?["state"] as? String == "done" {
                #expect(status?["delivered"] as? Int == 1)
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("event \(eventId) not done in 30 s")
    }

    /// Numbered screenshots in `.build/screenshots/dashboard/`, copied to `docs/dashboard/` when asked.
    final class Screenshots: @unchecked Sendable {  // used by one test task only
        let browser: WebDriver
        var count = 0

        init(browser: WebDriver) { self.browser = browser }

        func take(_ name: String, docs: Bool = true) async throws {
            count += 1
            let file = String(format: "%02d-%@.png", count, name)
            let path = DashboardBrowserTests.packageRoot + "/.build/screenshots/dashboard/" + file
            try await browser.screenshot(to: path)
            guard docs, ProcessInfo.processInfo.environment["SIGNALBOX_DOCS_SCREENSHOTS"] == "1" else { return }
            let target = DashboardBrowserTests.packageRoot + "/docs/dashboard/" + name + ".png"
            try FileManager.default.createDirectory(atPath: DashboardBrowserTests.packageRoot + "/docs/dashboard", withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: path, toPath: target)
        }
    }
}
