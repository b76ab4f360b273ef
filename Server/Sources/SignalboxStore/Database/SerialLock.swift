/// Runs async critical sections one at a time (a transaction owns the connection). Urgent ones, which someone is
/// waiting for (an accepted event, its first page), go ahead of queued background work, but at most
/// `urgentInARow` in a row while background work waits, so a storm of urgent work cannot starve delivery.
actor SerialLock {
    static let urgentInARow = 4
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var urgentWaiters: [CheckedContinuation<Void, Never>] = []
    private var urgentGranted = 0

    /// Sections waiting for their turn.
    var waiting: Int { waiters.count + urgentWaiters.count }

    func withLock<T: Sendable>(urgent: Bool = false, _ body: @Sendable () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { urgent ? urgentWaiters.append($0) : waiters.append($0) }
        } else {
            busy = true
        }
        defer { handOver() }
        return try await body()
    }

    private func handOver() {
        if !urgentWaiters.isEmpty, waiters.isEmpty || urgentGranted < Self.urgentInARow {
            urgentGranted += 1
            urgentWaiters.removeFirst().resume()
        } else if !waiters.isEmpty {
            urgentGranted = 0
            waiters.removeFirst().resume()
        } else {
            urgentGranted = 0
            busy = false
        }
    }
}
