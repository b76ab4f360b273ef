import APNsSimulator
import Crypto
import Foundation
import Testing

/// One app's large event does not hold up another app's push (`design.md`, "Tenants share fairly"): through the
/// real API, SQLite, fan-out, dispatcher and HTTP/2 to the simulator. Order and counts, not wall-clock time.
@Suite struct NoisyNeighbourTests {
    static let door = "com.example.garage.door"

    @Test func aOneTokenEventIsNotQueuedBehindAnotherAppsLargeEvent() async throws {
        try await DeliveryHarness.run(configure: {
            // As in production, pages of installations with one token each, and as many pushes in flight as a page
            // and a half, against an APNs that answers in 20 ms: the large event's fan-out follows its delivery.
            $0.delivery.fanOutBatch = 50
            $0.delivery.maxInFlight = 75
            $0.delivery.claimBatch = 75
        }, simulator: {
            $0.faults = APNsSimulator.FaultPlan(rates: [(.latency(.milliseconds(20)), 1.0)], seed: 3)
        }) { harness in
            // One team key for both apps, as Apple issues it (the simulator knows one key per team and key id).
            let key = P256.Signing.PrivateKey()
            let noisy = try await harness.api.createApp(bundleId: "com.example.noisy", privateKey: key)
            let quiet = try await harness.api.createApp(bundleId: "com.example.quiet", privateKey: key)
            let tokens = (0..<1_500).map { String(format: "%08x", $0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in stride(from: worker, to: tokens.count, by: 8) {
                            try await harness.registerControls(noisy, installation: "i\(tokens[index])", controls: [(Self.door, "north", tokens[index])])
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await harness.registerControls(quiet, installation: "phone", controls: [(Self.door, "north", "ffff0001")])
            let body = #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#

            let large = try await harness.post(noisy, event: body)
            try await harness.waitFor("the large event's first push at APNs") { harness.simulator.acceptedCount > 0 ? true : nil }
            let small = try await harness.post(quiet, event: body)
            // What went out before the quiet event existed is no measure of waiting: a loaded run may be far into the
            // large event by now. Its position counts from here.
            let acceptedWhenPosted = harness.simulator.acceptedCount

            let smallStatus = try await harness.waitUntilDone(quiet, event: small)
            let largeStatus = try await harness.waitUntilDone(noisy, event: large)
            #expect(smallStatus["delivered"] as? Int == 1)
            #expect(largeStatus["state"] as? String == "done" && largeStatus["delivered"] as? Int == 1_500, "\(largeStatus)")
            // Nothing lost, nothing twice.
            #expect(harness.acceptedTokens == Dictionary(uniqueKeysWithValues: (tokens + ["ffff0001"]).map { ($0, 1) }))
            // Taking turns, it goes out after the noisy app's current page; oldest first, it waited for the rest of the
            // fan-out (over 750 when half or less had gone out at the post).
            let order = harness.simulator.acceptedPushes.map(\.token)
            let position = try #require(order.firstIndex(of: "ffff0001"))
            #expect(
                position - acceptedWhenPosted < 750,
                "the quiet app's push was accepted \(position)th of 1,501, \(position - acceptedWhenPosted) after its event was posted"
            )
        }
    }
}
