import SignalboxModel
import Testing

/// `Coalescing`: a push with a pending twin is absorbed into it, and the survivor answers for every push it absorbed.
@Suite struct CoalescingTests {
    @Test func aPushWithAPendingTwinIsAbsorbedIntoIt() {
        #expect(Coalescing.place(pendingTwin: "p1") == .absorbed(into: "p1"))
        #expect(Coalescing.place(pendingTwin: String?.none) == .pending, "no pending twin (none, or only one being sent)")
    }

    /// Pushes coalesce only when app, token and payload all match.
    @Test(arguments: [
        (Coalescing.Key(appId: "a", token: "t1", payload: "{}"), true),
        (Coalescing.Key(appId: "b", token: "t1", payload: "{}"), false),
        (Coalescing.Key(appId: "a", token: "t2", payload: "{}"), false),
        (Coalescing.Key(appId: "a", token: "t1", payload: "{\"domain\":\"d\"}"), false),
    ])
    func theKeyIsAppTokenAndPayload(_ other: Coalescing.Key, coalesces: Bool) {
        #expect((Coalescing.Key(appId: "a", token: "t1", payload: "{}") == other) == coalesces)
    }

    /// What a push carries after absorbing (planned pushes of events, returning pushes) and the outcomes each event
    /// gets when it leaves.
    @Test(arguments: [
        ([String](), [String: Int](), ["e1": 1]),
        (["e2"], [:], ["e1": 1, "e2": 1]),
        (["e2", "e3"], [:], ["e1": 1, "e2": 1, "e3": 1]),
        // The same event reaching one token through two installations in two pages: two planned pushes, two outcomes.
        (["e1"], [:], ["e1": 2]),
        (["e2", "e2"], [:], ["e1": 1, "e2": 2]),
        // A returning push of e0 that had absorbed e2: e0 and e2 both follow the survivor.
        (["e2"], ["e0": 1, "e2": 1], ["e1": 1, "e0": 1, "e2": 2]),
    ])
    func theSurvivorCreditsEveryPushItAbsorbed(planned: [String], returning: [String: Int], credits: [String: Int]) {
        var carried = Coalescing.Carried(event: "e1")
        #expect(!carried.carriesAbsorbedEvents)
        for event in planned { carried.absorb(planned: event) }
        if let own = returning.keys.sorted().first {
            var other = Coalescing.Carried(event: own)
            for (event, count) in returning where event != own { for _ in 0..<count { other.absorb(planned: event) } }
            carried.absorb(returning: other)
        }
        #expect(carried.credits == credits)
        #expect(carried.carriesAbsorbedEvents == (credits.values.reduce(0, +) > 1))
    }
}
