import SignalboxModel
import Testing

/// `ClaimOrder`: apps take turns; within an app, oldest due first; paused apps and pushes not yet due wait.
@Suite struct ClaimOrderTests {
    typealias Candidate = ClaimOrder.Candidate

    /// Pushes `a1`…: app `a`, due at the number after the app's letter times 10 unless given.
    static func push(_ id: String, due: Int64? = nil) -> Candidate {
        Candidate(id: id, appId: String(id.prefix(1)), due: due ?? Int64(id.dropFirst())! * 10)
    }

    @Test(arguments: [
        // Oldest first would give three of a's; in turns b's first comes second.
        (["a1", "a2", "a3", "b5"], 3, ["a1", "b5", "a2"]),
        // Within a turn, the earlier due time first, whichever app.
        (["a5", "a6", "b1", "b2"], 4, ["b1", "a5", "b2", "a6"]),
        // Three apps: every app's first, then every app's second.
        (["a1", "a2", "b3", "b4", "c9"], 10, ["a1", "b3", "c9", "a2", "b4"]),
        (["a1", "a2", "b3"], 0, []),
        // Not yet due (`now` is 100): left out, and it does not hold an app's turn.
        (["a1", "a12", "b2"], 10, ["a1", "b2"]),
    ])
    func appsTakeTurns(_ ids: [String], limit: Int, taken: [String]) {
        let pushes = ids.map { Self.push($0) }
        #expect(ClaimOrder.claim(pushes.reversed(), now: 100, limit: limit).map(\.id) == taken)
    }

    @Test func tiesGoByPushIdWithinAnAppAndByAppIdBetweenApps() {
        let pushes = [Self.push("b2", due: 5), Self.push("a2", due: 5), Self.push("b1", due: 5), Self.push("a1", due: 5), Self.push("a0", due: 7)]
        #expect(ClaimOrder.claim(pushes, now: 10, limit: 10).map(\.id) == ["a1", "b1", "a2", "b2", "a0"])
    }

    @Test func pausedAppsGiveNothing() {
        let pushes = ["a1", "a2", "b3"].map { Self.push($0) }
        #expect(ClaimOrder.claim(pushes, now: 50, limit: 10, pausedApps: ["a"]).map(\.id) == ["b3"])
        #expect(ClaimOrder.claim(pushes, now: 50, limit: 10, pausedApps: ["a", "b"]).isEmpty)
    }

    /// One app's backlog delays another app's push by one claim at most: each claim of `limit` takes the other
    /// app's oldest due push among its first two.
    @Test func aBacklogDelaysAnotherAppByOnePlaceAtMost() {
        let backlog = (0..<1_000).map { Candidate(id: String(format: "a%04d", $0), appId: "a", due: 0) }
        for limit in 1...5 {
            let taken = ClaimOrder.claim(backlog + [Candidate(id: "b", appId: "b", due: 40)], now: 50, limit: limit)
            #expect(taken.count == limit)
            #expect(taken.prefix(2).contains { $0.appId == "b" } || limit == 1)
        }
    }
}
