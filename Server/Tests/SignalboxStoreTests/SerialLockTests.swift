import Testing

@testable import SignalboxStore

/// SQLite's one connection taken in turn: urgent transactions (an accepted event) go ahead of queued background
/// work, but never starve it.
@Suite struct SerialLockTests {
    @Test func urgentSectionsGoFirstButAtMostFourInARowWhileOthersWait() async throws {
        let lock = SerialLock()
        let order = Order()
        let (holding, release) = AsyncStream<Void>.makeStream()
        let (held, heldContinuation) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await lock.withLock {
                heldContinuation.yield()
                for await _ in holding { break }
            }
        }
        for await _ in held { break }
        var sections: [Task<Void, any Error>] = []
        // Queued one at a time, so the arrival order is known: two background sections, then six urgent ones.
        for (index, name) in ["b1", "b2", "u1", "u2", "u3", "u4", "u5", "u6"].enumerated() {
            sections.append(Task {
                try await lock.withLock(urgent: name.hasPrefix("u")) { await order.append(name) }
            })
            while await lock.waiting < index + 1 { await Task.yield() }
        }
        release.yield()
        try await holder.value
        for section in sections { try await section.value }
        #expect(await order.names == ["u1", "u2", "u3", "u4", "b1", "u5", "u6", "b2"])
        #expect(await lock.waiting == 0)
    }
}

private actor Order {
    private(set) var names: [String] = []
    func append(_ name: String) { names.append(name) }
}
