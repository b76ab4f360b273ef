import Foundation
import SignalboxAPI
import Testing
@testable import SignalboxClient
import SignalboxClientTesting
import SignalboxTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reload receipts from the SDK to a real `signalbox serve` that delivers through its built-in APNs simulator:
/// the receipt after a control push is matched, and `/metrics` counts the push, the receipt and its event-to-reload time.
@Suite(.serialized) struct ReloadReceiptsLiveTests {
    @Test func aReceiptSentByTheQueueIsMatchedAndCountedInMetrics() async throws {
        let server = try await LiveServer.start(arguments: ["--apns-simulator", "--simulator-port", "\(try FreePorts.pair())"])
        defer { server.stop() }
        let clock = ManualClock()
        let queue = LiveServerTests.queue(server, network: LiveServerTests.Network(), clock: clock, store: MemorySyncStore(installationId: "phone-1"))
        try queue.set(.installation(InstallationRequest(userId: "u1", channels: ["home:42"], environment: "sandbox")))
        try queue.set(.controls(ControlsRequest(controls: [Control(kind: "door", configuration: .object([:]), pushToken: "d0d0")])))
        #expect(try await queue.sync().errors.isEmpty)

        let event = #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#
        let posted = try await LiveServer.call(server.base, "POST", "/v1/apps/\(server.appId)/events", key: server.serverKey, body: Data(event.utf8))
        let eventId = try #require(posted.json["eventId"] as? String)
        let deadline = Date().addingTimeInterval(120)  // a bound for a hang, not a window
        var delivered = 0
        while delivered == 0, Date() < deadline {
            delivered = try await LiveServer.call(server.base, "GET", "/v1/apps/\(server.appId)/events/\(eventId)", key: server.serverKey)
                .json["delivered"] as? Int ?? 0
            if delivered == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(delivered == 1)

        // The manual clock is ahead of the server's: the server takes the receipts' time as its now.
        try queue.recordReload(kind: "door", pushType: .controls)
        try queue.recordReload(kind: "unregistered", pushType: .widgets)
        let report = try await queue.sync()
        #expect(report.reloadsSent == 2 && report.errors.isEmpty, "\(report.errors)")

        let (data, _) = try await URLSession.shared.data(from: URL(string: server.base.absoluteString + "/metrics")!)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        func value(_ name: String, _ labels: [String]) -> String? {
            lines.first { $0.hasPrefix(name + "{") && labels.allSatisfy($0.contains) }?.split(separator: " ").last.map(String.init)
        }
        #expect(value("signalbox_reloads_total", [#"type="controls""#, #"kind="door""#, #"matched="true""#]) == "1")
        #expect(value("signalbox_reloads_total", [#"type="widgets""#, #"kind="other""#, #"matched="false""#]) == "1")
        #expect(value("signalbox_event_to_reload_seconds_count", [#"type="controls""#, #"kind="door""#]) == "1")
        #expect(value("signalbox_pushes_total", [#"type="controls""#, #"outcome="delivered""#, #"reason="""#]) == "1")
        #expect(value("signalbox_pushes_total", [#"type="widgets""#, #"outcome="delivered""#]) == "0")
    }

    @Test func anInstallationKeepsItsNewestThousandReceiptsAndMetricsCountTheRest() async throws {
        let server = try await LiveServer.start(arguments: ["--apns-simulator", "--simulator-port", "\(try FreePorts.pair())"])
        defer { server.stop() }
        let base = "/v1/apps/\(server.appId)/installations/chatty"
        let installation = #"{"userId":"u1","channels":[],"environment":"sandbox"}"#
        _ = try await LiveServer.call(server.base, "PUT", base, key: server.serverKey, body: Data(installation.utf8))
        // 11 batches of 100 receipts, each at its own second in the past: the cap (1,000) drops the first batch.
        let formatter = ISO8601DateFormatter()
        let start = Date().addingTimeInterval(-3600)
        for batch in 0..<11 {
            let receipts = (0..<100).map { index in
                #"{"kind":"k","pushType":"widgets","at":"\#(formatter.string(from: start.addingTimeInterval(Double(batch * 100 + index))))"}"#
            }
            let body = #"{"reloads":[\#(receipts.joined(separator: ","))]}"#
            let reply = try await LiveServer.call(server.base, "POST", base + "/reloads", key: server.serverKey, body: Data(body.utf8))
            #expect((reply.json["reloads"] as? [Any])?.count == 100)
        }
        let (data, _) = try await URLSession.shared.data(from: URL(string: server.base.absoluteString + "/metrics")!)
        let metric = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("signalbox_reloads_dropped_total ") }
        #expect(metric.flatMap { $0.split(separator: " ").last }.map(String.init) == "100", "\(metric ?? "no metric")")
    }
}
